/**
 * The Pareto plot (Observable Plot): throughput against p95 latency for every measured combination,
 * the frontier drawn in a second, highlighted mark. A click (or Enter on a focused point) selects it.
 */
import { useEffect, useRef } from 'react'

export interface Point { index: number; throughput: number; p95: number; frontier: boolean; label: string }

export function ParetoPlot({ points, onSelect }: { points: Point[]; onSelect: (index: number) => void }) {
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const el = ref.current
    if (!el) return
    let cancelled = false
    let drawn: SVGElement | HTMLElement | undefined
    // Plot (with d3) loads on first use, so that the landing page's bundle stays small.
    void import('@observablehq/plot').then((Plot) => {
    if (cancelled) return
    const groups = [points.filter((p) => !p.frontier), points.filter((p) => p.frontier)]
    const svg = Plot.plot({
      width: 640, height: 360, grid: true, ariaLabel: 'Pareto plot: throughput against p95 latency',
      x: { label: 'p95 latency (ms)' }, y: { label: 'throughput (tokens/s)' },
      marks: [
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
  }, [points, onSelect])
  return <figure><div ref={ref} data-testid="pareto" /><figcaption>{points.length} measured combinations; {points.filter((p) => p.frontier).length} on the frontier (filled).</figcaption></figure>
}
