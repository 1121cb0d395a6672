/**
 * The Pareto plot (Observable Plot): throughput against p95 latency for every measured combination,
 * the frontier drawn in a second, highlighted mark. A click (or Enter on a focused point) selects it.
 * The axes come from plot-axes.ts: they include the baseline's noise band (drawn), never stretch a
 * spread inside it over the whole plot, and the caption says whether the spread is noise, a
 * difference, or (simulated) the model's.
 */
import { useEffect, useMemo, useRef } from 'react'
import { formatTick, leftMarginFor, noiseNote, planAxis, type AxisNoise } from './plot-axes.ts'

export interface Point { index: number; throughput: number; p95: number; frontier: boolean; label: string }

export interface PlotNoise { throughput: AxisNoise | null; p95: AxisNoise | null }

export function ParetoPlot({ points, noise, simulated, onSelect }: { points: Point[]; noise: PlotNoise; simulated: boolean; onSelect: (index: number) => void }) {
  const ref = useRef<HTMLDivElement>(null)
  const plans = useMemo(() => ({
    // Neither a throughput nor a latency can be negative: the axes (and the bands) start at 0 at the lowest.
    y: planAxis(points.map((p) => p.throughput), noise.throughput, { min: 0 }),
    x: planAxis(points.map((p) => p.p95), noise.p95, { min: 0 }),
  }), [points, noise])
  useEffect(() => {
    const el = ref.current
    if (!el) return
    let cancelled = false
    let drawn: SVGElement | HTMLElement | undefined
    // Plot (with d3) loads on first use, so that the landing page's bundle stays small.
    void import('@observablehq/plot').then((Plot) => {
    if (cancelled) return
    const { x, y } = plans
    const groups = [points.filter((p) => !p.frontier), points.filter((p) => p.frontier)]
    const band = { fill: '#0b4f9c', fillOpacity: 0.12 }
    const svg = Plot.plot({
      width: 640, height: 360, grid: true, ariaLabel: 'Pareto plot: throughput against p95 latency',
      // Wide enough for the longest y label: Plot's default 40px clipped labels such as "208.15".
      marginLeft: leftMarginFor(y.labels),
      x: { label: 'p95 latency (ms)', domain: x.domain, ticks: x.ticks, tickFormat: (v: number) => formatTick(v, x.decimals) },
      y: { label: 'throughput (tokens/s)', domain: y.domain, ticks: y.ticks, tickFormat: (v: number) => formatTick(v, y.decimals) },
      marks: [
        // Bands without the other axis's channels span the whole frame.
        ...(y.band ? [Plot.rect([{ y1: y.band[0], y2: y.band[1] }], { y1: 'y1', y2: 'y2', ...band, className: 'noise-band-y' })] : []),
        ...(x.band ? [Plot.rect([{ x1: x.band[0], x2: x.band[1] }], { x1: 'x1', x2: 'x2', ...band, className: 'noise-band-x' })] : []),
        Plot.dot(groups[0], { x: 'p95', y: 'throughput', stroke: '#555', r: 4, title: 'label', className: 'combo-dots' }),
        Plot.line([...groups[1]!].sort((a, b) => a.p95 - b.p95), { x: 'p95', y: 'throughput', stroke: '#0b4f9c' }),
        Plot.dot(groups[1], { x: 'p95', y: 'throughput', fill: '#0b4f9c', r: 6, title: 'label', className: 'frontier-dots' }),
      ],
    })
    // Dots render in data order inside their mark's group, so the n-th circle is the n-th point.
    const marks = svg.querySelectorAll('g.combo-dots, g.frontier-dots')
    marks.forEach((g) => {
      const data = g.classList.contains('frontier-dots') ? groups[1]! : groups[0]!
      g.querySelectorAll('circle').forEach((c, i) => {
        const p = data[i]
        if (!p) return
        c.setAttribute('data-index', String(p.index))
        c.setAttribute('data-frontier', String(p.frontier))
        c.setAttribute('tabindex', '0')
        c.setAttribute('role', 'button')
        c.setAttribute('aria-label', p.label)
        c.style.cursor = 'pointer'
        c.addEventListener('click', () => onSelect(p.index))
        c.addEventListener('keydown', (e) => { if ((e as KeyboardEvent).key === 'Enter') onSelect(p.index) })
      })
    })
    // Plot labels its mark groups with aria-label; a label needs a role to be allowed (axe: aria-prohibited-attr).
    svg.querySelectorAll('g[aria-label]:not([role])').forEach((g) => g.setAttribute('role', 'group'))
    el.replaceChildren(svg)
    drawn = svg
    })
    return () => { cancelled = true; drawn?.remove() }
  }, [points, plans, onSelect])
  const notes = points.length ? [noiseNote('Throughput', plans.y, noise.throughput, simulated), noiseNote('p95 latency', plans.x, noise.p95, simulated)] : []
  return (
    <figure>
      <div ref={ref} data-testid="pareto" />
      <figcaption>
        {points.length} {simulated ? 'predicted' : 'measured'} combinations; {points.filter((p) => p.frontier).length} on the frontier (filled).
        {(plans.x.band || plans.y.band) && ' The shaded band is the baseline\'s measurement noise.'}
        {notes.map((t) => <span key={t} className="noise-note" data-testid="noise-note"><br />{t}</span>)}
      </figcaption>
    </figure>
  )
}
