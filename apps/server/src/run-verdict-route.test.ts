/**
 * A run's one verdict over HTTP (issue 34 item 11): GET /runs/:id carries the verdict the run
 * stored, in the shape the API documents, and for a summary stored before runs kept one, the same
 * verdict derived on read from the stored summary and the gate's verdict on its winner.
 */
import { describe, expect, it } from 'vitest'
import { API_BASE } from './app.ts'
import { VerdictResponse } from './responses.ts'
import { SMALL_RUN, testApp } from './test-helpers.ts'

describe('the run detail\'s verdict', () => {
  it('should return the stored verdict, and derive the same one for a summary stored without it', async () => {
    const t = await testApp()
    const created = (await (await t.call('POST', `${API_BASE}/runs`, { body: SMALL_RUN })).json()) as { id: string }
    await t.queue.idle()
    const read = async () => ((await (await t.call('GET', `${API_BASE}/runs/${created.id}`)).json()) as { summary: { verdict: { kind: string; headline: string } } & Record<string, unknown> }).summary
    const stored = await read()
    expect(VerdictResponse.strict().safeParse(stored.verdict).error).toBeUndefined()
    expect(stored.verdict.headline.length).toBeGreaterThan(0)
    // What a run finished before this change stored: the same summary without a verdict.
    const { verdict: _v, ...old } = stored
    const run = await t.store.runs.require(null, created.id)
    await t.store.runs.finish(created.id, run.status, old, new Map())
    expect(((await t.store.runs.require(null, created.id)).summary as Record<string, unknown>).verdict).toBeUndefined()
    expect((await read()).verdict).toEqual(stored.verdict)
  })
})
