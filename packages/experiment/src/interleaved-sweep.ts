/**
 * A sweep that survives a noisy machine. Instead of measuring the defaults first and then each
 * candidate in turn (so that a burst of load, or slow drift, lands on whichever combination was
 * being measured), every round measures every arm once in a fresh random order: the defaults, a
 * second copy of the defaults (the A/A arm), and each candidate. Load and drift then hit every arm
 * alike, and each arm is compared with the defaults of the same rounds, which cancels them
 * (paired.ts: by default the 20% trimmed mean of the arm's log ratios with a sign-flip p-value,
 * exact up to 14 rounds and resampled from 10,000 patterns past them, the verdict saying which; a
 * paired t-test, or a blocked analysis that pools the noise over the arms, on request).
 *
 * The A/A arm is the baseline against itself: if the decision rule would crown it, the rule is
 * being fooled by noise. Its comparison is reported, and so is the rule's false-winner rate
 * estimated by sign-flip resampling (swapping the two copies of the defaults within rounds).
 *
 * @example
 * ```ts
 * const r = await runInterleavedSweep({ backend, candidates: [{ combo: { threads: '1' } }], rounds: 5, seed: 1 })
 * console.log(r.verdict, r.aa.declaredWinner, r.aa.falseWinnerRate)
 * ```
 */
import { KerneltuneError, isKerneltuneError } from '@kerneltune/core/lite'
import type { Combo, EnginePlugin, MeasurementBackend, MeasurementLaunch, RepetitionMetrics } from '@kerneltune/core'
import { describePMethod, metricDirection } from '@kerneltune/stats'
import { compareRounds, minRoundsToDecide, pValueMethod, signFlipMethodOf, type PairedComparison, type RoundsTest } from './paired.ts'
import { analyzeSweep, comparedMetrics, SWEEP_GATE_DEFAULTS, type AnalyzeOptions, type ExperimentMetric, type MeasuredCombo, type SweepAnalysis, type SweepComboStats } from './sweep-analysis.ts'
import { sweepComboHash } from './sweep.ts'
import { summarizeRepetitions } from './summary.ts'

export interface InterleavedProgress {
  readonly round: number
  readonly rounds: number
  /** Position in this round's order, 1-based, and the arm measured. */
  readonly step: number
  readonly steps: number
  readonly arm: string
  readonly combo: Combo
}

export interface InterleavedSweepOptions extends AnalyzeOptions {
  readonly backend: MeasurementBackend
  readonly candidates: readonly { readonly combo: Combo; readonly hash?: string }[]
  readonly baseline?: Combo
  /** Translates the winner into a command line (the engine's translator). */
  readonly engine: EnginePlugin
  /** Removes the engine's default values so equal combos compare equal (the engine package's withoutDefaults). */
  readonly withoutDefaults: (combo: Combo) => Combo
  readonly model?: string
  /** Rounds at most (each arm gets one repetition per round). Default 5. */
  readonly rounds?: number
  /**
   * Rounds before the time budget may end the sweep. Default 2 (the paired test's minimum). 0
   * makes the budget a contract from the first measurement (kerneltune sweep's --time-budget
   * covers a whole command): a budget too short for 2 rounds then ends the sweep with fewer, and
   * the verdict says that nothing could be compared, instead of the sweep overrunning its budget.
   */
  readonly minRounds?: number
  /**
   * After `minRounds` rounds, no measurement starts once the elapsed time plus that arm's last
   * measurement would exceed it. One that started inside it is let finish (its estimate was short:
   * a measurement boundary, not the middle of a load, is where the sweep stops) unless it is still
   * running one visit past it (the longest visit so far): then it is cancelled through its signal
   * and dropped. So the sweep ends within the budget plus one visit. (A cancelled visit wastes its
   * work, and a server whose requests were cut can take seconds to stop.) The round it stops
   * in is used as far as it got: its order was random, so which arms it reached says nothing about
   * their values, and every arm measured beside the defaults in it adds a pair.
   */
  readonly timeBudgetMs?: number
  /**
   * Called after every round but the last with the result so far (the A/A false-winner rate not
   * resampled, to keep it cheap), and awaited: a caller that writes it down after each round
   * leaves what was measured when its process is killed before the sweep ends.
   */
  readonly onRound?: (partial: InterleavedSweepResult) => void | Promise<void>
  /** Warm-ups before an arm's first measurement (a launch per arm visit needs them). Default 1. */
  readonly warmups?: number
  /**
   * Warm-ups before an arm's later measurements. Default `warmups`. With a backend that keeps each
   * arm's server running, 0 spends the budget on rounds instead: every visit then has the same
   * shape for every arm, so whatever a first request after idling costs is the same for all arms
   * and cancels in the within-round comparison.
   */
  readonly revisitWarmups?: number
  /**
   * Before round 1, let the backend bring up every arm (its prepare(): a server each, launched in
   * parallel and warmed), so that the first round measures as the later ones do instead of paying
   * every launch inside it (issue 35). An arm whose preparation failed is that arm's failure (the
   * defaults' is the sweep's). Default true; false: each arm is launched on its first visit.
   */
  readonly prelaunch?: boolean
  /** Include the A/A arm. Default true. */
  readonly aaCheck?: boolean
  /**
   * The combination the A/A arm asks the backend for; default the baseline. A backend that keeps a
   * server per combination (serverBackend's keepServers) would give the A/A arm the baseline's own
   * server, so the check would miss the server-to-server variance every candidate has: pass a
   * combination that runs the same settings under another key (e.g. the baseline with a default
   * value spelled out that its translator writes no flag for).
   */
  readonly aaCombo?: Combo
  readonly seed?: number
  /**
   * The test of an arm against the defaults (paired.ts): 'sign-flip' (default), the 20% trimmed
   * mean of the arm's own log ratios with a randomization p-value (exact over all 2^n sign
   * patterns up to 14 rounds, resampled from 10,000 past them: `pMethod`); 'paired', a t-test on
   * their mean; 'blocked', the noise pooled over the arms (more degrees of freedom in few rounds,
   * valid only when every arm is about as noisy as the defaults).
   */
  readonly test?: RoundsTest
  /** Sign-flip resamples behind the A/A false-winner rate; default 2000 (0: not estimated). */
  readonly aaResamples?: number
  readonly signal?: AbortSignal
  readonly onProgress?: (p: InterleavedProgress) => void
  /** Clock, for tests; default performance.now. */
  readonly now?: () => number
}

export interface AaCheck {
  readonly comparison?: PairedComparison
  /** True when the decision rule would have named the A/A arm a winner: a false winner. */
  readonly declaredWinner: boolean
  /** Share of sign-flip resamples of the A/A pairs that the rule calls better (its false-winner rate at this noise). */
  readonly falseWinnerRate?: number
  readonly resamples: number
  /** The A/A arm's measurements, one per round (as the baseline's), so its data can be re-analysed. */
  readonly reps: readonly RepetitionMetrics[]
}

export type InterleavedComboStats = SweepComboStats & { readonly paired: Partial<Record<ExperimentMetric, PairedComparison>> }

export interface InterleavedSweepResult extends Omit<SweepAnalysis, 'winner' | 'combos'> {
  readonly design: 'interleaved'
  readonly measured: true
  readonly simulated: boolean
  readonly device: string
  readonly backend: string
  readonly rounds: number
  /** True when the time budget ended the last round part-way (its arms measured beside the defaults still count). */
  readonly partialRound: boolean
  /** True when the time budget ended the rounds before `settings.rounds` (part-way through one, or between two). */
  readonly budgetEnded: boolean
  /** The longest measurement of an arm that completed, ms (a first visit includes its server's launch); 0 before any. */
  readonly longestVisitMs: number
  /** The arms in the order measured, per round. */
  readonly order: readonly (readonly string[])[]
  /** Each round's duration, seconds (round 1 against the later ones is what launches cost). */
  readonly roundSeconds: readonly number[]
  /** The backend's prepare() before round 1, seconds (absent when there was none). */
  readonly prepareSeconds?: number
  /** Per arm ('baseline', 'aa' or the combination's hash): every launch it paid, with its phases. */
  readonly launches: Readonly<Record<string, readonly MeasurementLaunch[]>>
  readonly combos: readonly InterleavedComboStats[]
  readonly aa: AaCheck
  /** The winner and its command line (`argv`: the engine's translation of its combination). */
  readonly winner?: InterleavedComboStats & { readonly argv: readonly string[] }
  readonly recommendedArgv: readonly string[]
  readonly seconds: number
  readonly settings: { readonly rounds: number; readonly minRounds: number; readonly warmups: number; readonly revisitWarmups: number; readonly prelaunch: boolean; readonly test: RoundsTest; readonly seed: number; readonly timeBudgetMs?: number }
  readonly notes: readonly string[]
}

/** mulberry32: the round orders are reproducible from the seed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), a | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const valueOf = (r: RepetitionMetrics | undefined, m: ExperimentMetric) => (r && typeof r[m] === 'number' && Number.isFinite(r[m]) ? (r[m] as number) : undefined)

const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`

type Arm = { id: string; combo: Combo; hash: string; reps: (RepetitionMetrics | undefined)[]; error?: string; launches?: MeasurementLaunch[]; warmed?: boolean }

/** What the rounds measured so far: the analysis reads it after each round and at the end. */
interface RoundsState {
  readonly arms: readonly Arm[]
  readonly rounds: number
  readonly order: readonly (readonly string[])[]
  readonly partialRound: boolean
  readonly budgetEnded: boolean
  readonly device: string
  readonly simulated: boolean
  readonly notes: readonly string[]
  readonly seconds: number
  readonly longestVisitMs: number
  readonly roundSeconds: readonly number[]
  readonly prepareSeconds?: number
  readonly settings: InterleavedSweepResult['settings']
}

export async function runInterleavedSweep(o: InterleavedSweepOptions): Promise<InterleavedSweepResult> {
  const now = o.now ?? (() => performance.now())
  const started = now()
  const maxRounds = o.rounds ?? 5
  const minRounds = Math.min(maxRounds, Math.max(0, o.minRounds ?? 2))
  const warmups = o.warmups ?? 1
  const revisitWarmups = o.revisitWarmups ?? warmups
  const test = o.test ?? 'sign-flip'
  const seed = o.seed ?? 1
  const strip = o.withoutDefaults
  if (!(maxRounds >= 2)) throw new KerneltuneError('INVALID_INPUT', `rounds must be at least 2 (a paired comparison needs 2 rounds), got ${maxRounds}`)
  const baselineCombo = o.baseline ?? {}
  const seen = new Set([sweepComboHash(strip(baselineCombo))])
  const candidates = o.candidates.filter((c) => {
    const k = sweepComboHash(strip(c.combo))
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
  const arms: Arm[] = [
    { id: 'baseline', combo: baselineCombo, hash: sweepComboHash(baselineCombo), reps: [] },
    ...(o.aaCheck === false ? [] : [{ id: 'aa', combo: o.aaCombo ?? baselineCombo, hash: `aa:${sweepComboHash(baselineCombo)}`, reps: [] }]),
    ...candidates.map((c) => ({ id: c.hash ?? sweepComboHash(c.combo), combo: c.combo, hash: c.hash ?? sweepComboHash(c.combo), reps: [] })),
  ]
  const random = seeded(seed)
  const order: string[][] = []
  const notes = new Set<string>()
  let device = ''
  let simulated = o.backend.simulated
  let rounds = 0
  /** Set when the budget ended the sweep; partial when it did so after the round's first measurement. */
  let stopped = false
  let partial = false
  // Each arm's last measurement, ms: its estimate for the budget (the first also paid a launch).
  const lastVisitMs = new Map<string, number>()
  const launched = (a: Arm, l: MeasurementLaunch | undefined) => l && (a.launches ??= []).push(l)
  const prelaunch = o.prelaunch !== false && o.backend.prepare !== undefined
  let prepareSeconds: number | undefined
  if (prelaunch) {
    const t = now()
    const prepared = await o.backend.prepare!(arms.map((a) => ({ combo: a.combo, repetitions: 1, warmups, ...(o.signal ? { signal: o.signal } : {}) })))
    if (o.signal?.aborted) throw new KerneltuneError('CANCELLED', 'the sweep was cancelled')
    arms.forEach((a, i) => {
      const p = prepared[i]
      launched(a, p?.launch)
      a.warmed = p?.ok === true && p.warmed
      if (!p || p.ok) return
      if (a.id === 'baseline' || a.id === 'aa') throw new KerneltuneError('MEASUREMENT_FAILED', `the default settings could not be measured: ${p.error ?? 'its server did not start'}`)
      // Failing to start is the combination's result, as on a visit: it takes no part in the rounds.
      a.error = p.error ?? 'its server did not start'
    })
    prepareSeconds = (now() - t) / 1000
  }
  const roundSeconds: number[] = []
  let longestVisitMs = 0
  // Copies: the rounds go on after a partial result is handed out.
  const state = (): RoundsState => ({
    arms: arms.map((a) => ({ ...a, reps: [...a.reps], ...(a.launches ? { launches: [...a.launches] } : {}) })), rounds, order: order.map((r) => [...r]), partialRound: partial, budgetEnded: stopped, device, simulated, notes: [...notes],
    seconds: (now() - started) / 1000, longestVisitMs, roundSeconds: [...roundSeconds], ...(prepareSeconds === undefined ? {} : { prepareSeconds }),
    settings: { rounds: maxRounds, minRounds, warmups, revisitWarmups, prelaunch, test, seed, ...(o.timeBudgetMs === undefined ? {} : { timeBudgetMs: o.timeBudgetMs }) },
  })
  for (let round = 0; round < maxRounds && !stopped; round++) {
    const roundStart = now()
    const live = arms.filter((a) => !a.error)
    // Fisher–Yates on this round's arms.
    const shuffled = [...live]
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1))
      ;[shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!]
    }
    order.push(shuffled.map((a) => a.id))
    // The budget ends the sweep before this round's step: the round keeps the arms it reached.
    const stopAt = (step: number) => {
      stopped = true
      partial = step > 0
      if (partial) order[round] = order[round]!.slice(0, step)
      else order.pop()
    }
    for (const [step, arm] of shuffled.entries()) {
      if (o.signal?.aborted) throw new KerneltuneError('CANCELLED', 'the sweep was cancelled')
      if (o.timeBudgetMs !== undefined && round >= minRounds && now() - started + (lastVisitMs.get(arm.id) ?? 0) > o.timeBudgetMs) {
        stopAt(step)
        break
      }
      const visitStart = now()
      o.onProgress?.({ round: round + 1, rounds: maxRounds, step: step + 1, steps: shuffled.length, arm: arm.id, combo: arm.combo })
      // After the minimum rounds the budget is a deadline: a measurement still running one visit
      // past it is cancelled and dropped, so a sudden slowdown cannot carry the sweep further.
      const deadline = o.timeBudgetMs !== undefined && round >= minRounds ? new AbortController() : undefined
      const timer = deadline ? setTimeout(() => deadline.abort(), Math.max(0, o.timeBudgetMs! - (now() - started)) + longestVisitMs) : undefined
      const signal = deadline ? (o.signal ? AbortSignal.any([o.signal, deadline.signal]) : deadline.signal) : o.signal
      try {
        const r = await o.backend.measure({ combo: arm.combo, repetitions: 1, warmups: round === 0 && !arm.warmed ? warmups : revisitWarmups, ...(signal ? { signal } : {}) })
        launched(arm, r.launch)
        device = r.device
        simulated ||= r.simulated
        for (const n of r.notes ?? []) if (!/^(server argv|TTFT|TPOT|output tokens|prompt tokens):? /.test(n)) notes.add(n)
        arm.reps[round] = r.repetitions[0]
        const ms = now() - visitStart
        lastVisitMs.set(arm.id, ms)
        longestVisitMs = Math.max(longestVisitMs, ms)
      } catch (e) {
        if (deadline?.signal.aborted && !o.signal?.aborted) {
          stopAt(step)
          break
        }
        if (isKerneltuneError(e) && e.code === 'CANCELLED') throw e
        // A backend reached through a registry reports a cancelled measurement as its own failure: the signal says which it was.
        if (o.signal?.aborted) throw new KerneltuneError('CANCELLED', 'the sweep was cancelled', { cause: e })
        const message = e instanceof Error ? e.message : String(e)
        if (arm.id === 'baseline' || arm.id === 'aa') throw new KerneltuneError('MEASUREMENT_FAILED', `the default settings could not be measured: ${message}`, { cause: e })
        // A combination that fails (to start, or under load) is a result: it drops out of later rounds.
        arm.error = message
      } finally {
        clearTimeout(timer)
      }
    }
    if (order.length > round) {
      rounds = round + 1
      roundSeconds.push((now() - roundStart) / 1000)
    }
    if (o.onRound && !stopped && round + 1 < maxRounds) await o.onRound(await analyzeRounds(o, state(), 0))
  }
  return analyzeRounds(o, state(), o.aaResamples ?? 2000)
}

/** The design's result from the rounds measured: every arm paired with the defaults by round, the A/A check (`flips` sign-flip resamples), the decision. */
async function analyzeRounds(o: InterleavedSweepOptions, s: RoundsState, flips: number): Promise<InterleavedSweepResult> {
  const metric = o.metric ?? 'decodeTps'
  const compared = comparedMetrics(o)
  const alpha = o.alpha ?? SWEEP_GATE_DEFAULTS.alpha
  const epsilon = o.epsilon ?? SWEEP_GATE_DEFAULTS.epsilon
  const gateMethod = o.gate ?? SWEEP_GATE_DEFAULTS.gate
  const { rounds, arms } = s
  const { test, seed } = s.settings
  const strip = o.withoutDefaults
  const dense = (a: Arm) => a.reps.filter((r): r is RepetitionMetrics => r !== undefined)
  const base = arms[0]!
  const aaArm = arms.find((a) => a.id === 'aa')
  const cands = arms.filter((a) => a.id !== 'baseline' && a.id !== 'aa')
  const measured: MeasuredCombo[] = cands.map((a) => ({ combo: a.combo, hash: a.hash, reps: dense(a), ...(a.error ? { error: a.error } : {}) }))
  // Under 2 rounds of the defaults (a time budget that ended the sweep in its first rounds) nothing
  // can be compared: the arms keep their statistics and no combination passes.
  const tooFew = dense(base).length < 2
  const analysis: SweepAnalysis = tooFew
    ? {
        metric, baseline: { combo: base.combo, hash: base.hash, reps: dense(base), stats: summarizeRepetitions(dense(base)) },
        combos: measured.map((c) => ({ ...c, stats: summarizeRepetitions(c.reps), comparison: {} })),
        gate: { method: gateMethod, status: 'fail', passed: false, reasons: [`${rounds} rounds of the defaults: a comparison needs 2`], perCombo: [] },
        verdict: '',
      }
    : analyzeSweep({ combo: base.combo, hash: base.hash, reps: dense(base) }, measured, o)
  // Every arm against the defaults of the same rounds, per metric (paired.ts).
  const tableOf = (list: readonly Arm[], m: ExperimentMetric) => Array.from({ length: rounds }, (_, r) => list.map((a) => valueOf(a.reps[r], m)))
  const pairAgainstDefaults = (list: readonly Arm[]) => {
    const out = list.map((): Partial<Record<ExperimentMetric, PairedComparison>> => ({}))
    for (const m of compared) compareRounds(tableOf(list, m), metricDirection(m) === 'higher', alpha, test).forEach((c, i) => c && (out[i]![m] = c))
    return out
  }
  const armOrder = [base, ...(aaArm ? [aaArm] : []), ...cands]
  const allPaired = pairAgainstDefaults(armOrder)
  const pairedOf = (a: Arm) => allPaired[armOrder.indexOf(a)]!
  // The decision rule, the same for candidates and the A/A arm: paired-better on the metric, and
  // (regression gate) no other metric worse by more than epsilon on the paired estimate.
  const decides = (paired: Partial<Record<ExperimentMetric, PairedComparison>>, gatePassed: boolean | undefined) => {
    if (paired[metric]?.verdict !== 'better') return false
    if (gateMethod === 'manual') return true
    if (gateMethod === 'regression') return compared.every((m) => m === metric || paired[m] === undefined || paired[m]!.improvement >= -epsilon)
    return gatePassed === true
  }
  const combos: InterleavedComboStats[] = analysis.combos.map((c, i) => ({ ...c, paired: pairedOf(cands[i]!) }))
  const winners = combos.filter((c) => !c.error && decides(c.paired, c.gate?.passed)).sort((a, b) => b.paired[metric]!.improvement - a.paired[metric]!.improvement)

  let aa: AaCheck = { declaredWinner: false, resamples: 0, reps: [] }
  if (aaArm) {
    const aaPaired = pairedOf(aaArm)
    // Sign-flip resampling of the A/A null: in a random half of the rounds the baseline and the
    // A/A arm swap places, and the same test judges the A/A arm again.
    const table = tableOf(armOrder, metric)
    const pairs = table.filter((row) => row[0] !== undefined && row[1] !== undefined).length
    const higher = metricDirection(metric) === 'higher'
    let wins = 0
    const rnd = seeded(seed ^ 0x5bd1e995)
    // Only the blocked test needs the other arms (its pooled noise); the others judge the A/A pairs alone.
    const judged = test === 'blocked' ? table : table.map((row) => row.slice(0, 2))
    for (let b = 0; b < flips && pairs >= 2; b++) {
      const flipped = judged.map((row) => (rnd() < 0.5 ? row : [row[1], row[0], ...row.slice(2)]))
      if (compareRounds(flipped, higher, alpha, test)[1]?.verdict === 'better') wins++
    }
    aa = {
      ...(aaPaired[metric] ? { comparison: aaPaired[metric] } : {}),
      declaredWinner: decides(aaPaired, true),
      ...(pairs >= 2 && flips > 0 ? { falseWinnerRate: wins / flips } : {}),
      resamples: pairs >= 2 ? flips : 0,
      reps: dense(aaArm),
    }
  }

  const engine = o.engine
  const argvOf = async (combo: Combo) => {
    const t = await engine.translate(strip(combo), o.model === undefined ? {} : { model: o.model })
    if (!t.ok) throw new KerneltuneError('INTERNAL', `${engine.name} could not translate the measured combo ${JSON.stringify(combo)}: ${t.reason}`)
    return [...t.argv]
  }
  const top = winners[0]
  const winner = top ? { ...top, argv: await argvOf(top.combo) } : undefined
  let verdict: string
  if (top) {
    const p = top.paired[metric]!
    const method = signFlipMethodOf(p)
    verdict = `${metric} ${pct(p.improvement)} against the default settings, over ${p.n} interleaved rounds, compared within each round (${p.test}${p.trim ? `, ${p.trim * 100}% trimmed` : ''}, ${p.df} degrees of freedom; 95% interval ${pct(p.interval.low)} to ${pct(p.interval.high)}, p=${p.pValue.toPrecision(2)}${method ? `, ${describePMethod(method)}` : ''})`
  } else if (tooFew && s.budgetEnded) {
    verdict = `the time budget ended the sweep after ${rounds} ${rounds === 1 ? 'round' : 'rounds'}${s.partialRound ? ' (the last one partial)' : ''}, before the defaults had the 2 a comparison needs: nothing was compared; keep the defaults, and give the sweep a larger time budget`
  } else {
    const best = [...combos].filter((c) => c.paired[metric]).sort((a, b) => b.paired[metric]!.improvement - a.paired[metric]!.improvement)[0]
    verdict = best
      ? `no combination is significantly better than the default settings on ${metric} in paired rounds (best: ${pct(best.paired[metric]!.improvement)}, p=${best.paired[metric]!.pValue.toPrecision(2)}, ${pValueMethod(best.paired[metric]!)}); keep the defaults`
      : combos.some((c) => c.reps.length > 0) ? 'no combination was measured in 2 rounds beside the defaults, so none could be compared; keep the defaults' : 'no combination could be measured'
  }
  if (test === 'sign-flip' && rounds < minRoundsToDecide(alpha) && !tooFew) verdict += `; with ${rounds} rounds no comparison can reach p < ${alpha} (the sign-flip test needs ${minRoundsToDecide(alpha)}): run more rounds (a larger time budget, or shorter measurements)`
  if (aa.declaredWinner) verdict += `; WARNING: the A/A check named the defaults better than themselves (${pct(aa.comparison!.improvement)}), so this machine is too noisy for ${rounds} rounds: measure more rounds or on a quieter machine`
  const { winner: _w, combos: _c, ...rest } = analysis
  return {
    ...rest,
    design: 'interleaved',
    measured: true,
    simulated: s.simulated,
    device: s.device,
    backend: o.backend.name,
    rounds,
    partialRound: s.partialRound,
    budgetEnded: s.budgetEnded,
    longestVisitMs: s.longestVisitMs,
    order: s.order,
    roundSeconds: s.roundSeconds,
    ...(s.prepareSeconds === undefined ? {} : { prepareSeconds: s.prepareSeconds }),
    launches: Object.fromEntries(arms.filter((a) => a.launches?.length).map((a) => [a.id, a.launches!])),
    combos,
    aa,
    ...(winner ? { winner } : {}),
    verdict,
    recommendedArgv: winner ? winner.argv : await argvOf(o.baseline ?? {}),
    seconds: s.seconds,
    settings: s.settings,
    notes: s.notes,
  }
}
