/**
 * onnxEngine({ provider: 'cpu' }): the same engine name and combination contract, with the CPU
 * execution provider's session options instead of CUDA/TensorRT provider options, over the
 * releases whose CPU facts were checked (cpu-release.ts).
 */
import { applyControls, checkCombo, CORE_DIMENSION_VALUES, KerneltuneError, resolveVersion } from '@kerneltune/core/lite'
import type { Combo, CoreDimensionId, TranslateContext, TranslateResult } from '@kerneltune/core'
import { ORT_CPU_RELEASES, ORT_CPU_VERSIONS, type OrtCpuVersion } from './cpu-release.ts'
import { CPU_PROVIDER, cpuSession, ORT_CPU_DIMENSION_VALUES, ORT_CPU_EXTENSION, ortCpuInventory } from './cpu.ts'
import type { OnnxEnginePlugin } from './plugin.ts'
import { ortFiles, ortTranslation } from './files.ts'
import { OPTIMIZATION_LEVEL } from './releases.ts'

/** The only core dimension the CPU EP has a control for: graph optimisation (fusions). */
export const ORT_CPU_CONTROLS: readonly CoreDimensionId[] = ['fusion_strategy']

/** onnxruntime-node's names for the levels releases.ts spells as the C API's. */
const BINDING_LEVEL = { ORT_DISABLE_ALL: 'disabled', ORT_ENABLE_BASIC: 'basic', ORT_ENABLE_EXTENDED: 'extended', ORT_ENABLE_ALL: 'all' } as const

const KNOWN = { ...CORE_DIMENSION_VALUES, ...ORT_CPU_DIMENSION_VALUES }

/**
 * The release a plugin defaults to: the installed onnxruntime-node's when it is one of `versions`
 * (1.30.0 → 1.30), else the newest of them.
 */
export function defaultRelease<V extends string>(versions: readonly V[], installed: string | undefined): V {
  const hit = installed === undefined ? undefined : versions.find((v) => installed === v || installed.startsWith(`${v}.`))
  return hit ?? versions[0]!
}

export function onnxCpuEngine(installedVersion?: string): OnnxEnginePlugin {
  const name = 'onnx'
  const displayName = 'ONNX Runtime'
  const defaultVersion = defaultRelease(ORT_CPU_VERSIONS, installedVersion)
  return {
    name,
    kind: 'engine',
    apiVersion: 1,
    displayName,
    description: `ONNX Runtime session options on the CPU execution provider (releases ${ORT_CPU_VERSIONS.join(', ')}, checked against onnxruntime-node's binaries).`,
    defaultVersion,
    supportedVersions: () => [...ORT_CPU_VERSIONS],
    controls: ORT_CPU_CONTROLS,
    catalogExtension: ORT_CPU_EXTENSION,
    inventory: (version) => (version in ORT_CPU_RELEASES ? ortCpuInventory(ORT_CPU_RELEASES[version as OrtCpuVersion]) : undefined),
    translate(combo: Combo, context: TranslateContext = {}): TranslateResult {
      const version = resolveVersion(name, displayName, context.version, ORT_CPU_VERSIONS, defaultVersion)
      const provider = context.options?.provider
      if (provider !== undefined && provider !== 'cpu') {
        throw new KerneltuneError('INVALID_INPUT', `this ONNX Runtime plugin translates for the CPU execution provider; for ${String(provider)} use onnxEngine({ provider: '${String(provider)}' })`, { plugin: name })
      }
      const bad = checkCombo(name, displayName, version, combo, KNOWN)
      if (bad) return bad
      const controlled = applyControls(name, displayName, version, combo, ORT_CPU_CONTROLS)
      if (!controlled.ok) return controlled
      const { session: entries, notes } = cpuSession(controlled.combo)
      const fusion = controlled.combo.fusion_strategy as keyof typeof OPTIMIZATION_LEVEL | undefined
      const session = fusion === undefined ? entries : { graphOptimizationLevel: BINDING_LEVEL[OPTIMIZATION_LEVEL[fusion]], ...entries }
      return ortTranslation(name, version, ortFiles(session, CPU_PROVIDER, {}), [
        'ONNX Runtime is a library: pass these options to InferenceSession (onnxruntime-node SessionOptions; dotted keys go in extra, as session config entries).',
        ...controlled.notes,
        ...notes,
      ])
    },
  }
}
