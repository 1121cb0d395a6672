/**
 * Time to first screen: from navigation start to the first page showing its data, reported once
 * per page load to POST /metrics/client (the server's kerneltune_l1_landing_ttfs_seconds). The
 * value is also left on `document.documentElement.dataset.ttfs` for the benchmark to read.
 */
import { useEffect } from 'react'
import { api } from './api.ts'

let reported = false

export function useFirstScreen(ready: boolean): void {
  useEffect(() => {
    if (!ready || reported) return
    reported = true
    // After the frame that shows the data has been painted.
    requestAnimationFrame(() => {
      const seconds = performance.now() / 1000
      document.documentElement.dataset.ttfs = String(seconds)
      api('/metrics/client', { method: 'POST', body: { metric: 'landing_ttfs_seconds', value: Math.min(seconds, 600) } }).catch(() => undefined)
    })
  }, [ready])
}
