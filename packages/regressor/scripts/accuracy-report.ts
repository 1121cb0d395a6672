/** Renders assets/accuracy.md (quoted in the README) from the leave-one-hardware-out scores. */
import type { CoverageReport } from '../src/intervals.ts'
import { TARGETS, intervalMeetsTarget, type ModelScores, type SubsetScores } from './accuracy.ts'

const pct = (x: number) => (Number.isNaN(x) ? '–' : `${(x * 100).toFixed(1)}%`)
const ok = (b: boolean) => (b ? 'met' : '**not met**')

export interface ReportInput {
  header: string
  models: readonly ModelScores[]
  shipped: ModelScores
  coverage: { all: CoverageReport; decode: CoverageReport; prefill: CoverageReport; byGroup: Record<string, CoverageReport> }
  /** The shipped candidate scored with the rows PROVENANCE flags as anomalous kept (training and evaluation). */
  withFlagged?: { scores: ModelScores; coverage: { decode: CoverageReport; prefill: CoverageReport }; samples: number }
  /** The held-out scores split by whether another chip shares a row's backend and build (`supportSplit`). */
  support?: { kinds: Record<string, string[]>; shared: SubsetScores; alone: SubsetScores }
}

function supportTable(support: NonNullable<ReportInput['support']>): string[] {
  const alone = Object.entries(support.kinds).filter(([, chips]) => chips.length === 1).map(([kind, chips]) => `${kind} (${chips[0]})`)
  const line = (label: string, s: SubsetScores, phase: 'decode' | 'prefill') => {
    const p = s[phase]
    const mapeOk = p.mapeRows <= (phase === 'decode' ? TARGETS.decodeMape : TARGETS.prefillMape)
    return `| ${label} | ${phase} | ${pct(p.mapeRows)} | ${pct(p.mapeChips)} | ${ok(mapeOk)} | ${pct(p.interval.coverage)} | ${pct(p.interval.medianRelativeWidth)} | ${pct(p.chipCoverage)} | ${ok(intervalMeetsTarget(p.interval))} | ${p.interval.rows} |`
  }
  return [
    `The same held-out predictions split by whether another chip of the data shares a row's backend and build. The rows of ${alone.join(' and ')} have no such sibling: held out, they ask the model for kernels no training row ran. Targets judged over rows.`,
    '',
    '| rows | phase | MAPE (rows) | MAPE (chips) | MAPE target | coverage | median width | coverage (chip mean) | interval target | rows |',
    '|---|---|---|---|---|---|---|---|---|---|',
    line(`shared backend and build (${support.shared.chips.length} chips)`, support.shared, 'decode'),
    line(`shared backend and build (${support.shared.chips.length} chips)`, support.shared, 'prefill'),
    line(`only chip of its backend and build (${support.alone.chips.join(', ')})`, support.alone, 'decode'),
    line(`only chip of its backend and build (${support.alone.chips.join(', ')})`, support.alone, 'prefill'),
    '',
  ]
}

export function renderAccuracy({ header, models, shipped, coverage, withFlagged, support }: ReportInput): string {
  const ridge = models.find((m) => m.options.kind === 'linear')
  const cov = (c: CoverageReport) => `${pct(c.coverage)} | ${pct(c.medianRelativeWidth)} | ${c.rows}`
  const hw = Object.keys(shipped.byHardware)
  const o = shipped.overall
  const chips = Object.values(coverage.byGroup)
  const widths = chips.map((c) => c.medianRelativeWidth).sort((x, y) => x - y)
  const chipCov = { level: coverage.all.level, coverage: chips.reduce((s, c) => s + c.coverage, 0) / chips.length, medianRelativeWidth: (widths[(widths.length - 1) >> 1]! + widths[widths.length >> 1]!) / 2, rows: chips.length }
  return [
    header,
    '',
    'Leave-one-hardware-out MAPE (each chip predicted by a model that never saw any of its rows). "rows": over every',
    'held-out row (GB10 and M2 Ultra hold most rows, being the only chips with batch and context sweeps); "chips": the',
    'mean of the per-chip MAPEs (each unseen chip counts once), which picks the shipped model.',
    '',
    '| model | decode MAPE (rows) | prefill MAPE (rows) | decode MAPE (chips) | prefill MAPE (chips) | decode rows | prefill rows |',
    '|---|---|---|---|---|---|---|',
    // No timings here (they go to stderr), so the file is byte-identical from run to run.
    ...models.map((m) => `| ${m.label}${m === shipped ? ' **(shipped)**' : ''} | ${pct(m.overall.decode)} | ${pct(m.overall.prefill)} | ${pct(m.chipMean.decode)} | ${pct(m.chipMean.prefill)} | ${m.overall.decodeRows} | ${m.overall.prefillRows} |`),
    '',
    `Targets (issue 18): decode ≤ ${pct(TARGETS.decodeMape)}: ${ok(o.decode <= TARGETS.decodeMape)} over rows (${pct(o.decode)}), ${ok(shipped.chipMean.decode <= TARGETS.decodeMape)} over chips (${pct(shipped.chipMean.decode)}); ` +
      `prefill ≤ ${pct(TARGETS.prefillMape)}: ${ok(o.prefill <= TARGETS.prefillMape)} over rows (${pct(o.prefill)}), ${ok(shipped.chipMean.prefill <= TARGETS.prefillMape)} over chips (${pct(shipped.chipMean.prefill)}).`,
    '',
    ...(withFlagged
      ? [
          `With the ${withFlagged.samples - o.decodeRows - o.prefillRows} rows PROVENANCE flags as anomalous kept (${withFlagged.samples} samples; the same candidate, trained and scored on them): decode ${pct(withFlagged.scores.overall.decode)} (rows) / ${pct(withFlagged.scores.chipMean.decode)} (chips), ` +
            `prefill ${pct(withFlagged.scores.overall.prefill)} / ${pct(withFlagged.scores.chipMean.prefill)}; 90% interval coverage ${pct(withFlagged.coverage.decode.coverage)} / ${pct(withFlagged.coverage.prefill.coverage)} (decode / prefill), median width ${pct(withFlagged.coverage.decode.medianRelativeWidth)} / ${pct(withFlagged.coverage.prefill.medianRelativeWidth)}.`,
          '',
        ]
      : []),
    `90% prediction interval of the shipped model (split-conformal on held-out log residuals per phase, each divided by its workload regime's mean residual: phase × batch > 1 × MoE × build age; each chip's interval from the other chips' residuals and scales). Target: coverage 85–95% with median relative width (high − low) ÷ predicted under 50%.`,
    '',
    '| phase | coverage | median relative width | rows | target |',
    '|---|---|---|---|---|',
    `| decode | ${cov(coverage.decode)} | ${ok(intervalMeetsTarget(coverage.decode))} |`,
    `| prefill | ${cov(coverage.prefill)} | ${ok(intervalMeetsTarget(coverage.prefill))} |`,
    `| both | ${cov(coverage.all)} | ${ok(intervalMeetsTarget(coverage.all))} |`,
    `| both, per chip (mean coverage, median width over chips) | ${pct(chipCov.coverage)} | ${pct(chipCov.medianRelativeWidth)} | ${hw.length} chips | ${ok(intervalMeetsTarget(chipCov))} |`,
    '',
    ...(support ? supportTable(support) : []),
    `Per hardware (held out; shipped model${ridge && ridge !== shipped ? ', with the ridge for comparison' : ''}; 90% interval coverage over both phases):`,
    '',
    `| hardware | decode MAPE | prefill MAPE |${ridge && ridge !== shipped ? ' ridge decode | ridge prefill |' : ''} interval coverage | decode rows | prefill rows |`,
    `|---|---|---|${ridge && ridge !== shipped ? '---|---|' : ''}---|---|---|`,
    ...hw.map((g) => {
      const s = shipped.byHardware[g]!
      const r = ridge && ridge !== shipped ? ` ${pct(ridge.byHardware[g]!.decode)} | ${pct(ridge.byHardware[g]!.prefill)} |` : ''
      return `| ${g} | ${pct(s.decode)} | ${pct(s.prefill)} |${r} ${pct(coverage.byGroup[g]!.coverage)} (width ${pct(coverage.byGroup[g]!.medianRelativeWidth)}) | ${s.decodeRows} | ${s.prefillRows} |`
    }),
    '',
  ].join('\n')
}
