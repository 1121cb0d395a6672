/** Summaries and the SVG plot for bench/bayesian-optimizer.bench.ts (no dependencies). */
export interface Run { file: string; strategy: string; seed: number; to5: number | null; to1: number | null; evaluations: number; curve: (number | null)[] }
export interface Timing { file: string; strategy: string; observations: number; medianMs: number; maxMs: number; samples: number[] }
export interface SpaceInfo { file: string; configurations: number; failed: number; optimum: number }

/** Quantile of counts where null means "not reached within the cap" (sorted last); null if the quantile is censored. */
function quantile(values: (number | null)[], q: number): number | null {
  const v = values.map((x) => (x === null ? Infinity : x)).sort((a, b) => a - b)
  const pos = (v.length - 1) * q
  const lo = v[Math.floor(pos)]!
  const hi = v[Math.ceil(pos)]!
  const r = lo === hi ? lo : lo + (hi - lo) * (pos - Math.floor(pos))
  return Number.isFinite(r) ? r : null
}
const stats = (values: (number | null)[]) => ({
  median: quantile(values, 0.5),
  q1: quantile(values, 0.25),
  q3: quantile(values, 0.75),
  reached: values.filter((x) => x !== null).length,
  runs: values.length,
  values,
})

function medianCurve(runs: Run[], length: number): (number | null)[] {
  const out: (number | null)[] = []
  for (let i = 0; i < length; i++) {
    // A run that stopped early (within 1%) keeps its last best.
    const vals = runs.map((r) => (r.curve.length ? (r.curve[Math.min(i, r.curve.length - 1)] ?? Infinity) : Infinity)).sort((a, b) => a - b)
    const m = vals.length % 2 ? vals[(vals.length - 1) / 2]! : (vals[vals.length / 2 - 1]! + vals[vals.length / 2]!) / 2
    out.push(Number.isFinite(m) ? Number(m.toFixed(5)) : null)
  }
  return out
}

export function buildReport(input: { spaces: SpaceInfo[]; runs: Run[]; timings: Timing[]; seeds: number; caps: Record<string, number | string> }) {
  const strategies = [...new Set(input.runs.map((r) => r.strategy))]
  const spaces = input.spaces.map((sp) => {
    const per: Record<string, unknown> = {}
    const s5: Record<string, number | null> = {}
    for (const st of strategies) {
      const runs = input.runs.filter((r) => r.file === sp.file && r.strategy === st).sort((a, b) => a.seed - b.seed)
      const to5 = stats(runs.map((r) => r.to5))
      s5[st] = to5.median
      const timing = input.timings.find((t) => t.file === sp.file && t.strategy === st)
      per[st] = { within5: to5, within1: stats(runs.map((r) => r.to1)), curve: medianCurve(runs, 200), askMsAt200: timing && { median: Number(timing.medianMs.toFixed(1)), max: Number(timing.maxMs.toFixed(1)) } }
    }
    const ratio = s5.bo != null && s5.random != null ? Number((s5.bo / s5.random).toFixed(3)) : null
    return { ...sp, strategies: per, boOverRandomWithin5: ratio }
  })
  const ratios = spaces.map((s) => s.boOverRandomWithin5)
  const boAsk = input.timings.filter((t) => t.strategy === 'bo').map((t) => t.medianMs)
  const summary = {
    spaces: spaces.length,
    seeds: input.seeds,
    caps: input.caps,
    boOverRandomWithin5: Object.fromEntries(spaces.map((s) => [s.file, s.boOverRandomWithin5])),
    spacesMeetingThirdTarget: ratios.filter((r) => r !== null && r <= 1 / 3).length,
    boAskMsAt200: { worstSpaceMedian: Number(Math.max(...boAsk).toFixed(1)), bestSpaceMedian: Number(Math.min(...boAsk).toFixed(1)) },
    askUnder200ms: boAsk.every((m) => m < 200),
  }
  return { seeds: input.seeds, caps: input.caps, summary, spaces }
}

const COLORS: Record<string, string> = { bo: '#d62728', tpe: '#1f77b4', random: '#7f7f7f' }

/** Small multiples: median best-so-far gap to the optimum (log scale) against evaluations, one panel per space. */
export function renderSvg(report: ReturnType<typeof buildReport>): string {
  const cols = 5
  const pw = 230
  const ph = 170
  const m = { l: 44, t: 28, r: 8, b: 30 }
  const rows = Math.ceil(report.spaces.length / cols)
  const W = cols * pw
  const H = rows * ph + 40
  const yMin = -1 // 0.1 %
  const yMax = 2 // 100 %
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="10">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="8" y="16" font-size="12">Median best-so-far gap to each space's best time (%, log) vs evaluations, ${report.seeds} seeds</text>`,
  ]
  Object.entries(COLORS).forEach(([s, c], i) => parts.push(`<rect x="${W - 200 + i * 65}" y="7" width="12" height="3" fill="${c}"/><text x="${W - 185 + i * 65}" y="12">${s}</text>`))
  report.spaces.forEach((sp, k) => {
    const ox = (k % cols) * pw
    const oy = 24 + Math.floor(k / cols) * ph
    const iw = pw - m.l - m.r
    const ih = ph - m.t - m.b
    const X = (e: number) => ox + m.l + (e / 200) * iw
    const Y = (gap: number) => oy + m.t + ih - ((Math.min(Math.max(Math.log10(Math.max(gap, 1e-9)), yMin), yMax) - yMin) / (yMax - yMin)) * ih
    parts.push(`<text x="${ox + m.l}" y="${oy + m.t - 6}">${sp.file.replace(/\.csv$/, '').replace('gemm_clblast_xgemm_', 'gemm ').replace('convolution_milo_', 'conv ')}</text>`)
    parts.push(`<rect x="${ox + m.l}" y="${oy + m.t}" width="${iw}" height="${ih}" fill="none" stroke="#bbb"/>`)
    for (const [g, label] of [[0.1, '0.1'], [1, '1'], [5, '5'], [10, '10'], [100, '100']] as const) {
      parts.push(`<line x1="${ox + m.l}" x2="${ox + m.l + iw}" y1="${Y(g).toFixed(1)}" y2="${Y(g).toFixed(1)}" stroke="#eee"/><text x="${ox + m.l - 4}" y="${(Y(g) + 3).toFixed(1)}" text-anchor="end">${label}</text>`)
    }
    for (const e of [0, 50, 100, 150, 200]) parts.push(`<text x="${X(e).toFixed(1)}" y="${oy + m.t + ih + 12}" text-anchor="middle">${e}</text>`)
    for (const [st, v] of Object.entries(sp.strategies)) {
      const curve = (v as { curve: (number | null)[] }).curve
      const pts = curve.map((r, i) => (r === null ? null : `${X(i + 1).toFixed(1)},${Y((r - 1) * 100).toFixed(1)}`)).filter(Boolean)
      if (pts.length) parts.push(`<polyline fill="none" stroke="${COLORS[st] ?? '#000'}" stroke-width="1.4" points="${pts.join(' ')}"/>`)
    }
  })
  parts.push('</svg>')
  return parts.join('\n') + '\n'
}
