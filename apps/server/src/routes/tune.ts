/** Tier 2 tune-session endpoints: start, status (with best-so-far), SSE events, cancel, resume. */
import { KerneltuneError } from '@kerneltune/core'
import { startTune, TuneRequestSchema } from '@kerneltune/tuner'
import { IdParams, route, type Route } from '../http.ts'
import { CancelResponse, ResumeResponse, TuneSessionDetailResponse, TuneSessionResponse } from '../responses.ts'
import { followSse } from '../sse.ts'

const FINAL = ['completed', 'cancelled', 'failed']

export const tuneRoutes: Route[] = [
  route({ method: 'post', path: '/tune', summary: 'Start a tune session seeded from a Tier 1 run', role: 'operator', body: TuneRequestSchema, status: 202, response: TuneSessionResponse }, async ({ auth, body, deps }) => {
    const session = await startTune(deps.store, body, { registry: deps.registry, catalog: deps.catalog, tenant: auth.tenant })
    deps.queue.enqueue('tune', session.id)
    return session
  }),
  route({ method: 'get', path: '/tune/:id', summary: 'Session status, best-so-far and trials', role: 'viewer', params: IdParams, response: TuneSessionDetailResponse }, async ({ auth, params, deps }) => {
    const session = await deps.store.tune.require(auth.tenant, params.id)
    return { ...session, trials: await deps.store.tune.trials(session.id) }
  }),
  route({ method: 'get', path: '/tune/:id/events', summary: 'Server-Sent Events of trial results', role: 'viewer', params: IdParams, sse: true }, async ({ c, auth, params, deps }) => {
    const session = await deps.store.tune.require(auth.tenant, params.id)
    return followSse(c, deps.bus, session.id, {
      finalType: 'tune.finished',
      load: () => deps.store.tune.require(auth.tenant, session.id),
      ended: async (now) => FINAL.includes(now.status) || (now.status === 'paused' && !deps.queue.has(now.id)),
      // A session that left the queue without its final event (paused, or its worker died) ends the stream.
      quiet: async () => !deps.queue.has(session.id),
    })
  }),
  route({ method: 'post', path: '/tune/:id/cancel', summary: 'Halt a session and persist its state', role: 'operator', params: IdParams, status: 202, response: CancelResponse }, async ({ auth, params, deps }) => {
    const s = await deps.store.tune.require(auth.tenant, params.id)
    if (FINAL.includes(s.status)) return { id: s.id, status: s.status, cancelled: false }
    // A running job stores its optimizer state as it stops; a queued or paused one already has it stored.
    deps.queue.cancel(s.id)
    await deps.store.tune.setStatus(s.id, 'cancelled')
    return { id: s.id, status: 'cancelled', cancelled: true }
  }),
  route({ method: 'post', path: '/tune/:id/resume', summary: 'Resume a paused or crashed session', role: 'operator', params: IdParams, status: 202, response: ResumeResponse }, async ({ auth, params, deps }) => {
    const s = await deps.store.tune.require(auth.tenant, params.id)
    if (deps.queue.has(s.id)) return { id: s.id, status: s.status, resumed: false }
    if (s.status !== 'paused' && s.status !== 'running' && s.status !== 'failed') {
      throw new KerneltuneError('CONFLICT', `tune session ${s.id} is ${s.status}; only a paused, failed or interrupted session can be resumed`)
    }
    await deps.store.tune.setStatus(s.id, 'paused')
    deps.queue.enqueue('tune', s.id)
    return { id: s.id, status: 'running', resumed: true, trialsDone: s.trialsDone }
  }),
]
