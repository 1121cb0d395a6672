/**
 * The roofline bounds of the run's model on its hardware (the run detail's `roofline`), shown
 * beside what the baseline measured and labelled as what they are: a prediction from the
 * specifications (peak bandwidth and FLOPS), never a measurement. A simulated run's numbers are
 * predictions too, so it gets no "measured" fraction.
 */
import type { RooflinePrediction, RunCombo } from './api-types.gen.ts'

const tps = (v: number) => (v >= 100 ? v.toFixed(0) : v.toPrecision(3))

/** The median of the baseline's repetitions (the aggregated metrics carry no phase rates). */
function median(reps: RunCombo['repetitions'], key: 'decodeTps' | 'prefillTps'): number | undefined {
  const v = reps.flatMap((r) => (typeof r[key] === 'number' && Number.isFinite(r[key]) ? [r[key]] : [])).sort((a, b) => a - b)
  if (v.length === 0) return undefined
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2
}

export function RooflineView({ p, baseline, simulated }: { p: RooflinePrediction; baseline: RunCombo | undefined; simulated: boolean }) {
  const reps = baseline?.repetitions ?? []
  const row = (name: string, bound: RooflinePrediction['decode'], measured: number | undefined) => (
    <li data-phase={name}>
      {name}: at most <strong>{tps(bound.boundTps)} tok/s</strong> ({bound.binding}-bound)
      {!simulated && measured !== undefined && Number.isFinite(measured)
        ? <> · the baseline measured <span data-testid={`roofline-measured-${name}`}>{tps(measured)} tok/s</span> (median of {reps.length} repetitions), {(100 * measured / bound.boundTps).toFixed(1)}% of the bound</>
        : null}
    </li>
  )
  return (
    <section className="card" aria-label="Roofline prediction" data-testid="roofline">
      <h3>Roofline prediction <span className="badge simulated">prediction, not measured</span></h3>
      <p className="hint">{p.source}: {p.hardware.name} at {p.hardware.memBwGbs.toFixed(1)} GB/s and {p.hardware.fp16Tflops.toFixed(2)} TFLOPS, batch {p.workload.batch}, {p.workload.promptTokens} prompt tokens. Measured throughput stays below these bounds.</p>
      <ul>
        {row('decode', p.decode, median(reps, 'decodeTps'))}
        {row('prefill', p.prefill, median(reps, 'prefillTps'))}
      </ul>
      {p.missing.length > 0 && <p className="hint">Left out for want of the model's shape: {p.missing.join('; ')}.</p>}
    </section>
  )
}
