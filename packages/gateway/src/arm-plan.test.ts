import type { Combo } from '@kerneltune/core'
import { describe, expect, it } from 'vitest'
import { resolveArms, splitArms } from './arm-plan.ts'

describe('arm plan', () => {
  it('should split --arms at commas outside JSON objects', () => {
    expect(splitArms('defaults, fast={"threads":"1","parallel":"1"},{"parallel":"2"}')).toEqual(['defaults', 'fast={"threads":"1","parallel":"1"}', '{"parallel":"2"}'])
    expect(() => splitArms('defaults,{"threads":"1"')).toThrow(/unbalanced braces/)
  })

  it('should take recommended and top:N from the run\'s candidates, serve a configuration once, and add endpoint arms', async () => {
    let reads = 0
    const candidates = async (runId: string): Promise<Combo[]> => (reads++, runId === 'r1' ? [{ threads: '2' }, { parallel: '1' }, { threads: '1' }] : [])
    const ctx = { runId: 'r1', endpoints: ['http://127.0.0.1:9'], candidates }
    const r = await resolveArms('defaults,recommended,top:3,slow={"threads":"1"}', ctx)
    expect(r.arms.map((a) => [a.id, a.kind === 'combo' ? a.combo : a.url])).toEqual([
      ['defaults', {}], ['recommended', { threads: '2' }], ['top2', { parallel: '1' }], ['top3', { threads: '1' }], ['endpoint1', 'http://127.0.0.1:9'],
    ])
    expect(r.notes).toEqual(['arm top1 is the same configuration as arm recommended; it is served once, as recommended', 'arm slow is the same configuration as arm top3; it is served once, as top3'])
    // The run is read once however many arms come from it.
    expect(reads).toBe(1)
    await expect(resolveArms('recommended', { ...ctx, runId: 'empty' })).rejects.toThrow(/no measured combination/)
    await expect(resolveArms('recommended', { ...ctx, runId: undefined })).rejects.toThrow(/give --run RUN_ID/)
    expect((await resolveArms('top:5', ctx)).notes).toEqual(['--run r1 has 3 measured combination(s); top:5 serves those'])
  })

  it.each([
    ['{"threads":1}', /maps settings to string values/],
    ['a=http://127.0.0.1:9,a=http://127.0.0.1:10', /two arms are named a/],
    ['fastest', /is not an arm/],
  ])('should refuse %s as INVALID_INPUT', async (text, why) => {
    await expect(resolveArms(text, { endpoints: [], candidates: async () => [] })).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(why) })
  })
})
