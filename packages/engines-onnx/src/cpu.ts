/**
 * The CPU execution provider's translation: the session options ONNX Runtime's CPU EP runs with
 * (graph optimisation, execution mode, intra- and inter-op threads, the CPU memory arena, memory
 * patterns, thread spinning, the MatMulNBits accuracy level), as catalog dimensions this plugin
 * adds and as the session file a measurement backend applies to an InferenceSession.
 *
 * The session file uses onnxruntime-node's SessionOptions field names (graphOptimizationLevel …)
 * and, for session config entries, their dotted keys (session.intra_op.allow_spinning …): the two
 * layers the binding and the runtime accept (cpu-release.ts), so the inventory check compares each
 * emitted name with what the installed release was read to accept.
 */
import type { CatalogExtension, DimensionSpec, EngineInventory, Translation } from '@kerneltune/core'
import { CPU_CONFIG_KEYS, type OrtCpuRelease } from './cpu-release.ts'
import { PROVIDER_FILE, SESSION_FILE } from './files.ts'

export const CPU_PROVIDER = 'CPUExecutionProvider'

const ENGINES = ['onnx'] as const
const v = (id: string, description: string) => ({ id, description })
const threads = (ids: readonly string[]) => ids.map((id) => v(id, `${id} thread${id === '1' ? '' : 's'}`))

/** Each dimension's default is what ONNX Runtime does when the option is not set. */
export const ORT_CPU_DEFAULTS = {
  ort_execution_mode: 'sequential',
  ort_intra_op_threads: 'auto',
  ort_inter_op_threads: 'auto',
  ort_cpu_mem_arena: 'on',
  ort_mem_pattern: 'on',
  ort_intra_op_spinning: 'on',
  ort_matmulnbits_accuracy: 'model',
} as const
export type OrtCpuDimension = keyof typeof ORT_CPU_DEFAULTS

// Quick mode searches what `kerneltune sweep --engine onnx --quick` does, intra-op threads x the
// MatMulNBits accuracy, and keeps the rest at ORT's defaults: with every value of every dimension
// a quick run was 768 combinations, past what the dashboard lets a run start with (512).
export const ORT_CPU_DIMENSIONS: readonly DimensionSpec[] = [
  {
    id: 'ort_execution_mode', title: 'ONNX Runtime execution mode',
    description: 'SessionOptions.executionMode: sequential runs one node at a time (parallel inside it); parallel also runs independent nodes at once on the inter-op pool.',
    values: [v('sequential', 'one node at a time (ORT default)'), v('parallel', 'independent nodes at once')],
    defaultValue: ORT_CPU_DEFAULTS.ort_execution_mode, engines: ENGINES, quickValues: [ORT_CPU_DEFAULTS.ort_execution_mode],
  },
  {
    id: 'ort_intra_op_threads', title: 'ONNX Runtime intra-op threads',
    description: 'SessionOptions.intraOpNumThreads: threads inside one operator (a MatMul split across cores). auto (0) lets ORT use one per physical core.',
    values: [v('auto', 'one per physical core (ORT default)'), ...threads(['1', '2', '4', '8', '16', '32'])],
    defaultValue: ORT_CPU_DEFAULTS.ort_intra_op_threads, engines: ENGINES, quickValues: ['auto', '1', '2'],
  },
  {
    id: 'ort_inter_op_threads', title: 'ONNX Runtime inter-op threads',
    description: 'SessionOptions.interOpNumThreads: threads running independent nodes at once; read only in the parallel execution mode.',
    values: [v('auto', 'ORT default'), ...threads(['1', '2', '4'])],
    defaultValue: ORT_CPU_DEFAULTS.ort_inter_op_threads, engines: ENGINES, quickValues: [ORT_CPU_DEFAULTS.ort_inter_op_threads],
  },
  {
    id: 'ort_cpu_mem_arena', title: 'ONNX Runtime CPU memory arena',
    description: 'SessionOptions.enableCpuMemArena: a growing arena that keeps freed buffers for reuse instead of returning them to the allocator.',
    values: [v('on', 'arena (ORT default)'), v('off', 'plain allocations')],
    defaultValue: ORT_CPU_DEFAULTS.ort_cpu_mem_arena, engines: ENGINES, quickValues: [ORT_CPU_DEFAULTS.ort_cpu_mem_arena],
  },
  {
    id: 'ort_mem_pattern', title: 'ONNX Runtime memory pattern',
    description: 'SessionOptions.enableMemPattern: plans one block for a run from the shapes seen before; useful when shapes repeat.',
    values: [v('on', 'memory pattern (ORT default)'), v('off', 'no pattern')],
    defaultValue: ORT_CPU_DEFAULTS.ort_mem_pattern, engines: ENGINES, quickValues: [ORT_CPU_DEFAULTS.ort_mem_pattern],
  },
  {
    id: 'ort_intra_op_spinning', title: 'ONNX Runtime intra-op thread spinning',
    description: `Session config ${CPU_CONFIG_KEYS.intraOpSpinning}: idle pool threads spin waiting for work (fast hand-off) or sleep (less CPU taken from other processes).`,
    values: [v('on', 'spin (ORT default)'), v('off', 'sleep')],
    defaultValue: ORT_CPU_DEFAULTS.ort_intra_op_spinning, engines: ENGINES, quickValues: [ORT_CPU_DEFAULTS.ort_intra_op_spinning],
  },
  {
    id: 'ort_matmulnbits_accuracy', title: 'MatMulNBits accuracy level',
    description: 'Minimum accuracy of the activations in 4-bit MatMulNBits: 1 fp32, 2 fp16, 3 bf16, 4 int8 (the activations quantized per block, the fastest CPU path); 0 and a level the CPU lacks fall back. model keeps what the model says.',
    values: [v('model', 'as the model was exported'), v('0', 'unset'), v('1', 'fp32'), v('2', 'fp16'), v('3', 'bf16'), v('4', 'int8')],
    defaultValue: ORT_CPU_DEFAULTS.ort_matmulnbits_accuracy, engines: ENGINES, quickValues: ['model', '4'],
  },
]

export const ORT_CPU_EXTENSION: CatalogExtension = { dimensions: ORT_CPU_DIMENSIONS, rules: [] }

/** The values checkCombo accepts for the CPU dimensions. */
export const ORT_CPU_DIMENSION_VALUES: Readonly<Record<string, readonly string[]>> = Object.fromEntries(ORT_CPU_DIMENSIONS.map((d) => [d.id, d.values.map((x) => x.id)]))

/** The session file's entries for the CPU dimensions a combination sets (absent ones are left to ORT). */
export function cpuSession(combo: Readonly<Record<string, string>>): { session: Record<string, string>; notes: string[] } {
  const session: Record<string, string> = {}
  const notes: string[] = []
  const get = (id: OrtCpuDimension) => combo[id]
  if (get('ort_execution_mode') !== undefined) session.executionMode = get('ort_execution_mode')!
  const intra = get('ort_intra_op_threads')
  if (intra !== undefined) session.intraOpNumThreads = intra === 'auto' ? '0' : intra
  const inter = get('ort_inter_op_threads')
  if (inter !== undefined) {
    session.interOpNumThreads = inter === 'auto' ? '0' : inter
    if (inter !== 'auto' && (combo.ort_execution_mode ?? ORT_CPU_DEFAULTS.ort_execution_mode) === 'sequential') {
      notes.push(`interOpNumThreads=${inter} has no effect in the sequential execution mode: ORT creates the inter-op pool only for parallel execution.`)
    }
  }
  if (get('ort_cpu_mem_arena') !== undefined) session.enableCpuMemArena = get('ort_cpu_mem_arena') === 'on' ? '1' : '0'
  if (get('ort_mem_pattern') !== undefined) session.enableMemPattern = get('ort_mem_pattern') === 'on' ? '1' : '0'
  if (get('ort_intra_op_spinning') !== undefined) session[CPU_CONFIG_KEYS.intraOpSpinning] = get('ort_intra_op_spinning') === 'on' ? '1' : '0'
  const level = get('ort_matmulnbits_accuracy')
  if (level !== undefined && level !== 'model') {
    session[CPU_CONFIG_KEYS.qdqMatMulNBitsAccuracyLevel] = level
    notes.push(`${CPU_CONFIG_KEYS.qdqMatMulNBitsAccuracyLevel}=${level} applies where ORT turns DequantizeLinear + MatMul into MatMulNBits; a model that already holds MatMulNBits nodes keeps their accuracy_level attribute, which the onnxruntime measurement backend sets to ${level} as well.`)
  }
  return { session, notes }
}

const BOOLEAN = /^[01]$/
const COUNT = /^\d+$/

/** A CPU release's inventory: each session entry a binding field or config key that release accepts, with a value it takes. */
export function ortCpuInventory(release: OrtCpuRelease): EngineInventory {
  const check = (t: Translation): string[] => {
    const problems: string[] = []
    for (const file of Object.keys(t.files)) if (file !== SESSION_FILE && file !== PROVIDER_FILE) problems.push(`unexpected file ${file}`)
    const session = JSON.parse(t.files[SESSION_FILE] ?? '{}') as Record<string, string>
    for (const [key, value] of Object.entries(session)) {
      if (key.includes('.')) {
        if (!release.configKeys.includes(key)) problems.push(`session config key ${key} is not in the ${release.checked} inventory`)
        else if (key === CPU_CONFIG_KEYS.qdqMatMulNBitsAccuracyLevel ? !/^[0-4]$/.test(value) : !BOOLEAN.test(value)) problems.push(`${key}=${value} is not a value ${release.checked} takes`)
        continue
      }
      const accepts = (release.sessionOptions as Readonly<Record<string, unknown>>)[key]
      if (accepts === undefined) problems.push(`session option ${key} is not in the ${release.checked} inventory`)
      else if (Array.isArray(accepts) ? !accepts.includes(value) : !(accepts === 'boolean' ? BOOLEAN : COUNT).test(value)) problems.push(`${key}=${value} is not a value ${release.checked} takes`)
    }
    const { providers, provider_options: options } = JSON.parse(t.files[PROVIDER_FILE] ?? '{"providers":[],"provider_options":[]}') as { providers: string[]; provider_options: Record<string, string>[] }
    if (providers.some((p) => p !== CPU_PROVIDER)) problems.push(`providers ${providers.join(', ')}: the CPU translation names only ${CPU_PROVIDER}`)
    for (const key of Object.keys(options[0] ?? {})) problems.push(`${CPU_PROVIDER} option ${key} is not in the ${release.checked} inventory`)
    return problems
  }
  return { flags: {}, env: {}, evidence: release.evidence, check }
}
