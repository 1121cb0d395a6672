/**
 * The sweep's launch phases and round durations as kit log lines (issue 35): one line per server
 * launch (why, and in seconds since its spawn: listening, model loaded, ready, the warm-up), then
 * the pre-launch and each round, so a lease's log says where round 1 went without opening the JSON.
 * Reads the sweep's --json result; a CLI build without these fields gives no lines.
 */

interface Launch { readonly reason?: string; readonly ok?: boolean; readonly error?: string; readonly phases?: Readonly<Record<string, number | string>> }

const s = (ms: unknown) => (typeof ms === 'number' ? `${(ms / 1000).toFixed(1)} s` : '-')

/** One launch in words. */
export function launchLine(arm: string, l: Launch): string {
  const p = l.phases ?? {}
  const warm = typeof p.warmupStartMs === 'number' ? `, warm-up ${s(p.warmupStartMs)}..${s(p.warmupEndMs)} (${p.warmupRequests ?? '?'} requests)` : ''
  const failed = l.ok === false ? `, FAILED: ${String(l.error ?? '').slice(0, 120)}` : ''
  return `launch ${arm} (${l.reason ?? '?'}): listening ${s(p.listeningMs)}, model loaded ${s(p.modelLoadedMs)}, ready ${s(p.readyMs)}${warm}${failed}`
}

export function launchLines(result: unknown): string[] {
  const r = (result ?? {}) as { launches?: Record<string, readonly Launch[]>; roundSeconds?: readonly number[]; prepareSeconds?: number }
  const lines = Object.entries(r.launches ?? {}).flatMap(([arm, ls]) => ls.map((l) => launchLine(arm, l)))
  if (r.roundSeconds?.length) {
    const pre = typeof r.prepareSeconds === 'number' ? `pre-launch ${r.prepareSeconds.toFixed(1)} s; ` : ''
    lines.push(`${pre}rounds: ${r.roundSeconds.map((x, i) => `${i + 1}: ${x.toFixed(1)} s`).join(', ')}`)
  }
  return lines
}
