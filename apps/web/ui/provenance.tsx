/**
 * How a run's numbers were made, said where its hardware is shown: "simulated: nothing was run"
 * for a backend that predicts, "proxy: measured on …, standing in for …" for one that runs
 * something else (its own kernels, this machine's device) in place of the target. A page that
 * shows "H100" and a winner without it reads as a measured H100 result (issue 23 item 13).
 */

import type { MeasuredBy, ProxyLabel } from './api-types.gen.ts'

/** The run page's banner, from the run's summary (or, while it runs, from its streamed results). */
export function ProvenanceBanner({ simulated, proxy, devices, hardware }: { simulated: boolean; proxy: Pick<ProxyLabel, 'of' | 'on'> | null; devices: string[]; hardware: string | undefined }) {
  if (simulated) {
    return (
      <p className="banner simulated" role="note" data-testid="provenance">
        <strong>simulated: nothing was run</strong>. The numbers on this page are predictions{devices.length ? ` by the ${devices.join('; ')}` : ''}, not measurements{hardware ? ` on ${hardware}` : ''}.
      </p>
    )
  }
  if (proxy) {
    // The summary's `on` is "<what ran> on <devices>"; the devices alone say where it was measured.
    const where = devices.join('; ')
    const ran = where && proxy.on.endsWith(` on ${where}`) ? proxy.on.slice(0, -` on ${where}`.length) : proxy.on
    return (
      <p className="banner proxy" role="note" data-testid="provenance">
        <strong>proxy: measured on {devices.length ? devices.join('; ') : 'the server\'s machine'}, standing in for {proxy.of}</strong>. What ran: {ran}; check a result on the target before relying on it.
      </p>
    )
  }
  return null
}

/** The Run History badge, from the backend's declaration (the brief rows carry no summary). */
export function ProvenanceBadge({ by, engine, hardware }: { by: MeasuredBy | null | undefined; engine: string; hardware: string | undefined }) {
  if (!by) return null
  if (by.simulated) return <span className="badge simulated" data-testid="provenance-badge">simulated: nothing was run</span>
  if (!by.proxy) return null
  const of = by.proxy.engine && by.proxy.device ? `${engine} on ${hardware ?? 'the target'}` : by.proxy.engine ? engine : hardware ?? 'the target hardware'
  return <span className="badge proxy" data-testid="provenance-badge" title={by.proxy.runs ? `ran: ${by.proxy.runs}` : undefined}>proxy: standing in for {of}</span>
}
