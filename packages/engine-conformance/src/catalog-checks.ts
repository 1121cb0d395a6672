/**
 * The checks that need the catalog: an engine's baseline (every dimension it has at its neutral
 * value, as `run create` builds it) must be expressible, and a quick (Tier 1) run on a capable
 * device must have more than one legal combination. Both failed for TGI and ONNX Runtime before
 * engines declared the dimensions they control, while their translator tests passed.
 */
import { createCatalog, type Catalog } from '@kerneltune/catalog'
import { engineControls, type Combo, type EnginePlugin, type HardwareSpec } from '@kerneltune/core'

/**
 * The device quick runs are checked on: an H100 SXM (sm_90), where FP8, FlashAttention 3 and
 * Machete are all allowed, so no engine loses combinations to the hardware.
 */
export const CAPABLE_DEVICE: HardwareSpec = {
  id: 'h100-sxm',
  name: 'NVIDIA H100 SXM5 80GB',
  vendor: 'nvidia',
  kind: 'gpu',
  memBwGbs: 3350,
  fp16Tflops: 989.4,
  smCount: 132,
  memoryGb: 80,
  computeCapability: '9.0',
  architecture: 'Hopper',
  unifiedMemory: false,
  sources: ['NVIDIA H100 datasheet'],
}

/** A catalog holding only this engine's extension and controls, as the CLI builds one. */
export function engineCatalog(engine: EnginePlugin): Catalog {
  return createCatalog({
    extensions: engine.catalogExtension ? [{ engine: engine.name, extension: engine.catalogExtension }] : [],
    controls: { [engine.name]: engineControls(engine) },
  })
}

/** Every dimension the catalog gives the engine, at its default (neutral) value. */
export function baselineOf(catalog: Catalog, engine: string): Combo {
  return Object.fromEntries(catalog.dimensionsFor(engine).map((d) => [d.id, d.defaultValue]))
}

export interface QuickRunCount {
  readonly total: number
  readonly legal: number
  readonly pruned: number
  readonly refused: number
}

/** Classifies the quick space of `engine` at `version` on `hardware`, asking the translator. */
export async function quickRunCount(engine: EnginePlugin, version: string, hardware: HardwareSpec = CAPABLE_DEVICE): Promise<QuickRunCount> {
  const catalog = engineCatalog(engine)
  const counts = { total: 0, legal: 0, pruned: 0, refused: 0 }
  const refuse = async (combo: Combo) => {
    const t = await engine.translate(combo, { version })
    return t.ok ? undefined : t
  }
  for await (const e of catalog.enumerateAsync({ hardware, engine: engine.name, engineVersion: version }, { mode: 'quick', refuse })) {
    counts.total++
    counts[e.status]++
  }
  return counts
}
