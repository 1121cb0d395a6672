/**
 * Which hardware the shipped model knows and which it extrapolates to, derived from the model and its
 * training rows rather than written by hand (issue 38's "Done when": the README says so, and a sentence
 * kept by hand went stale when v3.5.0 dropped the last Radeon rows). Every hardware preset is queried on
 * each backend llama.cpp runs it on, as `kerneltune predict` would build the query, and `unseenEffects`
 * names what no training row had: the same list a prediction prints as `extrapolation`.
 */
import { HARDWARE_PRESETS, type HardwarePreset } from '@kerneltune/features'
import { chipOf } from '../src/chips.ts'
import type { PreparedRow, TrainingSample } from '../src/learned.ts'
import { kernelFiguresQuery } from '../src/measurement-rows.ts'
import { supportKey } from '../src/intervals.ts'
import { unseenEffects, type PhysicsState } from '../src/physics.ts'
import { hardwareClass } from '../src/physics-terms.ts'
import { targetQuery } from '../src/predictor.ts'
import type { ThroughputQuery } from '../src/query.ts'

/** The backends a preset runs llama.cpp on: its usual one, and Vulkan on NVIDIA, AMD and Intel GPUs. */
export function presetBackends(p: HardwarePreset): string[] {
  if (!p.backend) return []
  return [...new Set([p.backend, ...(['nvidia', 'amd', 'intel'].includes(p.vendor ?? '') && p.kind !== 'cpu' ? ['vulkan'] : [])])]
}

/**
 * The probe, built as `kerneltune predict` builds its query (`targetQuery` with the preset's kernel
 * figures): Llama 2 7B Q4_0 on a current build, decode at a 128-token context or a 512-token prompt.
 */
export function probeQuery(p: HardwarePreset, backend: string, phase: 'decode' | 'prefill'): ThroughputQuery {
  return targetQuery({ model: { paramsB: 6.74, quant: 'Q4_0' }, hardware: p, workload: { phase, batch: 1, promptTokens: 512, contextTokens: 128 } }, { backend: backend as ThroughputQuery['backend'], ...kernelFiguresQuery(p) })
}

export interface MapRow {
  cls: string
  backend: string
  /** Training dies of this class and backend, per build age. */
  current: string[]
  legacy: string[]
  presets: string[]
  /** Per phase, the effects a current-build probe needs that no training row had. */
  unseen: { decode: string[]; prefill: string[] }
}

export interface HardwareMap {
  rows: MapRow[]
  /** Device classes with training rows that no preset belongs to (the CPUs of the tables). */
  classesWithoutPreset: string[]
}

/** One row per device class, backend and set of unseen effects, presets sorted by id within it. */
export function hardwareMap(state: PhysicsState, samples: readonly TrainingSample[], rows: readonly PreparedRow[], presets: readonly HardwarePreset[] = HARDWARE_PRESETS): HardwareMap {
  // Training dies per kind of device and build (`supportKey`: class, backend, build age).
  const dies = new Map<string, Set<string>>()
  rows.forEach((r, i) => {
    const key = supportKey(r.query)
    ;(dies.get(key) ?? dies.set(key, new Set()).get(key)!).add(chipOf(samples[i]!.group ?? ''))
  })
  const diesOf = (cls: string, backend: string, age: string) => [...(dies.get(`${cls}|${backend}|${age}`) ?? [])].sort()
  const out = new Map<string, MapRow>()
  for (const p of presets) {
    for (const backend of presetBackends(p)) {
      const decode = probeQuery(p, backend, 'decode')
      const unseen = { decode: unseenEffects(state, decode).sort(), prefill: unseenEffects(state, probeQuery(p, backend, 'prefill')).sort() }
      const cls = hardwareClass(decode)
      const key = `${cls}|${backend}|${unseen.decode.join(',')}|${unseen.prefill.join(',')}`
      const row = out.get(key) ?? out.set(key, { cls, backend, current: diesOf(cls, backend, 'current'), legacy: diesOf(cls, backend, 'legacy'), presets: [], unseen }).get(key)!
      row.presets.push(p.id)
    }
  }
  // Rows inside the data first, then by class, backend and what they extrapolate over.
  const rank = (r: MapRow) => `${r.unseen.decode.length + r.unseen.prefill.length > 0 ? 1 : 0}|${r.cls}|${r.backend}|${r.unseen.decode.join()}|${r.unseen.prefill.join()}`
  const mapped = [...out.values()].map((r) => ({ ...r, presets: r.presets.sort() })).sort((a, b) => (rank(a) < rank(b) ? -1 : rank(a) > rank(b) ? 1 : 0))
  const trained = [...new Set(rows.map((r) => hardwareClass(r.query)))].sort()
  return { rows: mapped, classesWithoutPreset: trained.filter((c) => !mapped.some((r) => r.cls === c)) }
}

const keys = (xs: readonly string[]) => xs.map((k) => `\`${k}\``).join(', ')
/** "inside the data", or what each phase extrapolates over. */
export function verdictOf(u: MapRow['unseen']): string {
  if (!u.decode.length && !u.prefill.length) return 'inside the data'
  if (u.decode.join() === u.prefill.join()) return `extrapolates: ${keys(u.decode)}`
  return (['decode', 'prefill'] as const).map((p) => `${p} ${u[p].length ? `extrapolates: ${keys(u[p])}` : 'inside the data'}`).join('; ')
}

const list = (xs: readonly string[]) => (xs.length ? xs.join(', ') : '–')

/** The markdown section of the accuracy report. */
export function renderHardwareMap(map: HardwareMap): string[] {
  return [
    '**Which hardware the model knows and which it extrapolates to** (the shipped model, derived from it and its training rows: every hardware preset on the backends llama.cpp runs it on, its usual one and Vulkan on NVIDIA, AMD and Intel GPUs, queried as Llama 2 7B Q4_0 on a current build, decode and a 512-token prompt. "Inside the data" means every effect the query needs was learned from training rows, not that its device was measured: an unseen chip of a known kind borrows that kind\'s efficiencies, with the held-out errors above. Otherwise `kerneltune predict` prints the effects it extrapolates over, listed here.)',
    '',
    '| device class | backend | training dies, current builds | training dies, 2023–24 builds | presets | current-build query |',
    '|---|---|---|---|---|---|',
    ...map.rows.map((r) => `| ${r.cls} | ${r.backend} | ${list(r.current)} | ${list(r.legacy)} | ${r.presets.join(', ')} | ${verdictOf(r.unseen)} |`),
    '',
    `Device classes with training rows that no preset above belongs to: ${list(map.classesWithoutPreset)} (CPU rows come from the tables' named CPUs, which have no preset).`,
    '',
  ]
}
