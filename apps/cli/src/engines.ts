/**
 * The engine plugins the CLI knows, registered in a core registry. Commands that translate or
 * apply combinations get their engines from here, so a new engine is added in one place.
 */
import { createRegistry, type Registry } from '@kerneltune/core'
import { llamacppEngine } from '@kerneltune/engines-llamacpp'
import { onnxEngine } from '@kerneltune/engines-onnx'
import { tgiEngine } from '@kerneltune/engines-tgi'
import { tritonEngine } from '@kerneltune/engines-triton'
import { trtllmEngine } from '@kerneltune/engines-trtllm'
import { vllmEngine } from '@kerneltune/engines-vllm'

/** The registry names of the built-in engines, in the order help texts list them. */
export const ENGINE_NAMES = ['vllm', 'tgi', 'trtllm', 'triton', 'onnx', 'llamacpp'] as const
export type EngineName = (typeof ENGINE_NAMES)[number]

/** A fresh core registry with the built-in engine plugins registered. */
export function engineRegistry(): Registry {
  return createRegistry([vllmEngine(), tgiEngine(), trtllmEngine(), tritonEngine(), onnxEngine(), llamacppEngine()])
}
