/** The ONNX Runtime plugin's type, shared by the GPU (engine.ts) and CPU (cpu-engine.ts) factories. */
import type { Combo, EngineInventory, EnginePlugin, TranslateContext, TranslateResult } from '@kerneltune/core'

/** The ONNX Runtime plugin; its translate answers synchronously. */
export interface OnnxEnginePlugin extends EnginePlugin {
  translate(combo: Combo, context?: TranslateContext): TranslateResult
  inventory(version: string): EngineInventory | undefined
}
