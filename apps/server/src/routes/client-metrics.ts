/**
 * Metrics that only a browser can measure, reported back to the server: the landing page's time
 * to first screen. A viewer token is enough (the page runs with the operator's viewer token); the
 * value is bounded so that one bad client cannot push the histogram's sum out of shape.
 */
import { z } from 'zod'
import { route, type Route } from '../http.ts'

export const CLIENT_METRICS = ['landing_ttfs_seconds'] as const

const ClientMetricBody = z.object({
  metric: z.enum(CLIENT_METRICS),
  /** Seconds from navigation start to the first screen with data. */
  value: z.number().finite().min(0).max(600),
}).strict()

export const clientMetricRoutes: Route[] = [
  route({ method: 'post', path: '/metrics/client', summary: 'Record a browser-side measurement (landing time to first screen, seconds)', role: 'viewer', body: ClientMetricBody, status: 202 }, async ({ body, deps }) => {
    deps.ops.landingTtfs.observe(body.value)
    return { recorded: body.metric }
  }),
]
