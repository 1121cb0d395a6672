/**
 * `MixedBpwAutoTuner`: benchmarks configs through an injected benchmarker, keeps the lookup table
 * that `selectKernel` reads, records latencies for online adaptation, and exports or loads the
 * upstream JSON. Unlike upstream, tuning fills the lookup table as well as the optimized store.
 */
import { kerneltuneError } from '@kerneltune/core'
import { DEFAULT_HISTORY_LENGTH, DEFAULT_SIMDGROUP_MAPPING, DEFAULT_TILE_SIZE_MAPPING, MIN_ONLINE_SAMPLES, type BitWidth } from './constants.ts'
import { appendSample, decideAdaptation, latencyKey, rankContext, type Adaptation } from './adaptation.ts'
import { benchmarkMixed, benchmarkOne, type LayerBenchmarker } from './benchmark.ts'
import { generateCompatConfigs } from './config-generation.ts'
import { confirmCell } from './confirm-cell.ts'
import { normalizeDeviceFamily, type DeviceProbe } from './device.ts'
import { configId, optimizedConfigId, optimizedFromResult, optimizedKey, parseConfigId, type BenchmarkResult, type KernelConfig, type OptimizedConfig } from './kernel-config.ts'
import { countEntries, defaultConfig, selectFromTable, setEntry, sortedBits, type LookupTable, type Selection } from './lookup.ts'
import { fromExported, toExported, type ExportedConfig } from './serialization.ts'
import { bestOf, getOptimal, type AutotuneStatistics, type CellResult, type BenchmarkAllOptions, type BenchmarkLayerOptions } from './tuner-support.ts'

export interface TunerOptions {
  deviceName?: string
  /** Used only when `deviceName` is absent (upstream: sysctl brand string). */
  probe?: DeviceProbe
  configPath?: string
  warmupIterations?: number
  benchmarkIterations?: number
  enableOnlineAdaptation?: boolean
  historyLength?: number
  benchmarker?: LayerBenchmarker
  /** Where failed configs are reported (they are skipped, never fatal). */
  log?: (message: string) => void
}

export class MixedBpwAutoTuner {
  readonly device: string
  readonly deviceName: string
  readonly deviceFamily: string
  readonly configPath: string
  warmupIterations: number
  benchmarkIterations: number
  tileSizeMapping: Record<number, number> = { ...DEFAULT_TILE_SIZE_MAPPING }
  simdgroupMapping: Record<number, number> = { ...DEFAULT_SIMDGROUP_MAPPING }
  adaptationHistoryLen: number
  adaptationEnabled: boolean
  readonly historyLength: number
  readonly lookupTable: LookupTable = new Map()
  readonly adaptationTimings: Map<string, number[]> = new Map()
  readonly optimizedConfigs: Map<string, OptimizedConfig> = new Map()
  readonly results: BenchmarkResult[] = []
  readonly onlineHistory: Map<string, { config_id: string; ms: number }[]> = new Map()
  private readonly benchmarker: LayerBenchmarker | undefined
  private readonly log: (message: string) => void

  constructor(options: TunerOptions = {}) {
    this.deviceFamily = normalizeDeviceFamily(options.deviceName, options.probe)
    this.device = this.deviceFamily.toLowerCase()
    this.deviceName = options.deviceName || this.deviceFamily
    this.configPath = options.configPath ?? ''
    this.warmupIterations = options.warmupIterations ?? 5
    this.benchmarkIterations = options.benchmarkIterations ?? 20
    this.adaptationEnabled = options.enableOnlineAdaptation ?? true
    this.historyLength = options.historyLength ?? DEFAULT_HISTORY_LENGTH
    this.adaptationHistoryLen = this.historyLength
    this.benchmarker = options.benchmarker
    this.log = options.log ?? (() => {})
  }

  private get mappings() {
    return { tileSizeMapping: this.tileSizeMapping, simdgroupMapping: this.simdgroupMapping }
  }

  /** Times one config (upstream `benchmark_config`); never throws. */
  async benchmarkConfig(config: KernelConfig, batch: number, hidden: number, intermediate = 4 * hidden): Promise<BenchmarkResult> {
    const r = await benchmarkOne(this.benchmarker, config, batch, hidden, intermediate, { warmup: this.warmupIterations, iterations: this.benchmarkIterations })
    this.results.push(r)
    if (!r.success) this.log(`skipped ${configId(config)} at batch ${batch}, hidden ${hidden}: ${r.error_msg}`)
    return r
  }

  /** Benchmarks every candidate config for one layer (one bit set, batch and hidden size). */
  async benchmarkLayer(options: BenchmarkLayerOptions): Promise<BenchmarkResult[]> {
    const bits = sortedBits(options.bits)
    if (bits.length === 0) throw kerneltuneError('INVALID_INPUT', 'benchmarkLayer needs at least one bit width')
    const { batch, hidden } = options
    const intermediate = options.intermediate ?? 4 * hidden
    const opts = { warmup: options.warmup ?? this.warmupIterations, iterations: options.iterations ?? this.benchmarkIterations }
    const configs = options.configs ?? generateCompatConfigs([bits[0] as BitWidth], { tileSizeMapping: this.tileSizeMapping, simdgroupMapping: this.simdgroupMapping })
    const out: BenchmarkResult[] = []
    for (const config of configs) {
      const r = await benchmarkMixed(this.benchmarker, config, bits, batch, hidden, intermediate, opts)
      this.results.push(r)
      if (!r.success) this.log(`skipped ${configId(config)} for bits ${bits.join(',')} at batch ${batch}, hidden ${hidden}: ${r.error_msg}`)
      out.push(r)
      options.onResult?.(r)
    }
    return out
  }

  /**
   * Benchmarks every (bit set, batch, hidden) cell, and records the fastest successful config of
   * each in the lookup table (and, for single widths, in the optimized store). With
   * `confirmRounds`, the winner is re-timed against the default afresh and recorded only if it is
   * confirmed faster; otherwise the default is.
   */
  async benchmarkAll(options: BenchmarkAllOptions): Promise<CellResult[]> {
    const cells: { bits: number[]; batch: number; hidden: number; configs: KernelConfig[] }[] = []
    for (const set of options.bitSets) {
      const bits = sortedBits(set)
      for (const batch of options.batchSizes) {
        for (const hidden of options.hiddenSizes) {
          const configs = options.configsFor?.(bits, batch, hidden) ??
            generateCompatConfigs([bits[0] as BitWidth], { tileSizeMapping: this.tileSizeMapping, simdgroupMapping: this.simdgroupMapping })
          cells.push({ bits, batch, hidden, configs })
        }
      }
    }
    const total = cells.reduce((n, c) => n + c.configs.length, 0)
    let done = 0
    const out: CellResult[] = []
    for (const cell of cells) {
      const results = await this.benchmarkLayer({
        bits: cell.bits,
        batch: cell.batch,
        hidden: cell.hidden,
        intermediate: options.intermediateFor?.(cell.hidden),
        configs: cell.configs,
        warmup: options.warmup,
        iterations: options.iterations,
        onResult: (r) => options.onProgress?.(++done, total, r, cell.bits),
      })
      const best = bestOf(results)
      const confirmed = best && (options.confirmRounds ?? 0) > 0
        ? await confirmCell({
          benchmarker: this.benchmarker, bits: cell.bits, batch: cell.batch, hidden: cell.hidden,
          intermediate: options.intermediateFor?.(cell.hidden) ?? 4 * cell.hidden, best, results,
          defaultConfig: defaultConfig(cell.batch, cell.bits, this.mappings),
          timing: { warmup: options.warmup ?? this.warmupIterations, iterations: options.iterations ?? this.benchmarkIterations },
          rounds: options.confirmRounds!, ...(options.confirmSeed !== undefined ? { seed: options.confirmSeed } : {}),
        })
        : undefined
      if (confirmed?.error) this.log(`confirmation failed for bits ${cell.bits.join(',')} at batch ${cell.batch}, hidden ${cell.hidden}: ${confirmed.error}; the selection winner stays, unconfirmed`)
      // Without a confirmed win the cell keeps its default: the selection margin alone is biased upward.
      const chosen = confirmed?.kept === 'default' ? confirmed.default : best
      if (chosen) {
        setEntry(this.lookupTable, cell.batch, cell.hidden, cell.bits, chosen.config)
        if (cell.bits.length === 1) this.optimizedConfigs.set(optimizedKey(cell.batch, cell.bits[0]!, cell.hidden), optimizedFromResult(chosen))
      } else {
        this.log(`no config succeeded for bits ${cell.bits.join(',')} at batch ${cell.batch}, hidden ${cell.hidden}; the table has no entry for it`)
      }
      out.push({ bits: cell.bits, batch: cell.batch, hidden: cell.hidden, results, best, ...(confirmed ? { confirmed } : {}) })
    }
    return out
  }

  /** Upstream `run_autotune`, one bit width per cell, intermediate 4·hidden unless given. */
  async runAutotune(bitWidths: readonly number[], batchSizes: readonly number[], hiddenSizes: readonly number[], intermediateFor?: (hidden: number) => number): Promise<Map<string, OptimizedConfig>> {
    await this.benchmarkAll({ bitSets: bitWidths.map((b) => [b]), batchSizes, hiddenSizes, ...(intermediateFor ? { intermediateFor } : {}) })
    return this.optimizedConfigs
  }

  selectKernel(batch: number, hidden: number, bits: readonly number[], fallbackToDefault = true): Selection | null {
    return selectFromTable(this.lookupTable, batch, hidden, bits, this.mappings, fallbackToDefault)
  }

  /** Sets one table entry by hand (what tuning does for each cell). */
  setLookup(batch: number, hidden: number, bits: readonly number[], config: KernelConfig): void {
    setEntry(this.lookupTable, batch, hidden, bits, config)
  }

  recordLatency(kernelName: string, batch: number, latencyMs: number, hidden?: number | null, bits?: readonly number[] | null): string {
    const key = latencyKey(kernelName, batch, hidden, bits)
    appendSample(this.adaptationTimings, key, latencyMs, this.adaptationHistoryLen)
    return key
  }

  adaptSelection(batch: number, hidden: number, bits: readonly number[], topK = 3): Adaptation | null {
    const ranking = rankContext(this.adaptationTimings, batch, hidden, bits)
    if (ranking.length === 0) return null
    return decideAdaptation(this.selectKernel(batch, hidden, bits, false)?.config ?? null, ranking, topK)
  }

  /**
   * Upstream `record_online_sample`: once a (batch, bit, hidden) has 10 samples, the config with
   * the lowest mean replaces the optimized one if it beats its expected latency. Config ids are
   * parsed robustly (upstream's `split("_")` breaks on large_batch and per_*). Returns true on a
   * replacement.
   */
  recordOnlineSample(batch: number, bit: number, hidden: number, id: string, latencyMs: number): boolean {
    if (!this.adaptationEnabled) return false
    const key = optimizedKey(batch, bit, hidden)
    const history = this.onlineHistory.get(key) ?? []
    history.push({ config_id: id, ms: latencyMs })
    if (history.length > this.historyLength) history.splice(0, history.length - this.historyLength)
    this.onlineHistory.set(key, history)
    const current = this.optimizedConfigs.get(key)
    if (history.length < MIN_ONLINE_SAMPLES || !current) return false
    const sums = new Map<string, { sum: number; n: number }>()
    for (const s of history) {
      const a = sums.get(s.config_id) ?? { sum: 0, n: 0 }
      sums.set(s.config_id, { sum: a.sum + s.ms, n: a.n + 1 })
    }
    const [bestId, best] = [...sums].map(([k, a]) => [k, a.sum / a.n] as const).sort((a, b) => a[1] - b[1])[0]!
    const parsed = parseConfigId(bestId)
    if (!parsed || parsed.bit_width !== bit) return false
    if (bestId === optimizedConfigId(current) || !(best < current.expected_latency_ms)) return false
    this.optimizedConfigs.set(key, {
      ...current,
      kernel_variant: parsed.kernel_variant,
      tile_size_m: parsed.tile_size_m,
      tile_size_n: parsed.tile_size_n,
      num_simdgroups: parsed.num_simdgroups,
      batch_strategy: parsed.batch_strategy,
      expected_latency_ms: best,
      throughput: 0,
    })
    return true
  }

  getOptimalConfig(batch: number, bit: number, hidden: number): OptimizedConfig | null {
    return getOptimal(this.optimizedConfigs, batch, bit, hidden)
  }

  clearAdaptationHistory(): void {
    this.adaptationTimings.clear()
  }

  reset(): void {
    this.lookupTable.clear()
    this.adaptationTimings.clear()
    this.results.length = 0
    this.optimizedConfigs.clear()
    this.onlineHistory.clear()
  }

  toExported(): ExportedConfig {
    return toExported({
      device: this.device,
      device_name: this.deviceName,
      device_family: this.deviceFamily,
      adaptation_enabled: this.adaptationEnabled,
      lookup_table: this.lookupTable,
      adaptation_timings: this.adaptationTimings,
      optimized_configs: this.optimizedConfigs,
    })
  }

  /** Upstream `export_config`: the JSON text (indent 2). Writing it is the caller's (or adapter's) job. */
  exportConfig(): string {
    return JSON.stringify(this.toExported(), null, 2)
  }

  /** Upstream `load_config`: parses JSON text or a parsed value; every invalid entry is reported with its path. */
  static loadConfig(source: string | unknown, options: TunerOptions = {}): MixedBpwAutoTuner {
    let value = source
    if (typeof source === 'string') {
      try {
        value = JSON.parse(source)
      } catch (err) {
        throw kerneltuneError('INVALID_FORMAT', `autotune config is not valid JSON: ${(err as Error).message}`)
      }
    }
    const r = fromExported(value)
    if (!r.ok) throw kerneltuneError('INVALID_INPUT', `invalid autotune config: ${r.errors.join('; ')}`, { details: { errors: r.errors } })
    const s = r.state
    const tuner = new MixedBpwAutoTuner({ ...options, deviceName: options.deviceName ?? s.device_name })
    tuner.adaptationEnabled = s.adaptation_enabled
    if (s.tile_size_mapping) tuner.tileSizeMapping = { ...tuner.tileSizeMapping, ...s.tile_size_mapping }
    if (s.simdgroup_mapping) tuner.simdgroupMapping = { ...tuner.simdgroupMapping, ...s.simdgroup_mapping }
    if (s.adaptation_history_len) tuner.adaptationHistoryLen = s.adaptation_history_len
    for (const [b, byHidden] of s.lookup_table) tuner.lookupTable.set(b, byHidden)
    for (const [k, v] of s.adaptation_timings) tuner.adaptationTimings.set(k, [...(tuner.adaptationTimings.get(k) ?? []), ...v])
    for (const [k, v] of s.optimized_configs) tuner.optimizedConfigs.set(k, v)
    return tuner
  }

  /** Upstream `get_statistics` / `get_stats`. */
  statistics(): AutotuneStatistics {
    let samples = 0
    for (const v of this.adaptationTimings.values()) samples += v.length
    let online = 0
    for (const v of this.onlineHistory.values()) online += v.length
    const ok = this.results.filter((r) => r.success).length
    return {
      device: this.device,
      device_name: this.deviceName,
      device_family: this.deviceFamily,
      config_path: this.configPath,
      total_benchmarks: this.results.length,
      lookup_table_entries: countEntries(this.lookupTable),
      adaptation_enabled: this.adaptationEnabled,
      adaptation_samples: samples,
      active_adaptation_keys: this.adaptationTimings.size,
      num_online_samples: online,
      successful_benchmarks: ok,
      failed_benchmarks: this.results.length - ok,
    }
  }
}
