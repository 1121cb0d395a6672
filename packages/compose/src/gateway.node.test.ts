import type { Store } from '@kerneltune/store'
import { describe, expect, it } from 'vitest'
import { planGatewayArms } from './gateway.node.ts'

describe('planGatewayArms', () => {
  it('should rank a stored run\'s candidates: its winner, then by throughput, leaving out the baseline and what failed', async () => {
    const measured = (combo: Record<string, string>, tps: number, isBaseline = false) => ({ combo, status: 'measured', isBaseline, metrics: { throughputTps: tps } })
    // Only the two reads the plan makes of the store.
    const store = {
      runs: {
        get: async (_t: string, id: string) => (id === 'r1' ? { target: { engine: 'llamacpp' }, summary: { winner: { combo: { threads: '2' } } } } : id === 'v' ? { target: { engine: 'vllm' }, summary: null } : undefined),
        combos: async () => [measured({}, 50, true), measured({ threads: '1' }, 40), measured({ threads: '2' }, 60), measured({ parallel: '1' }, 45), { combo: { parallel: '2' }, status: 'failed', isBaseline: false, metrics: null }],
      },
    } as unknown as Store
    const o = { arms: 'recommended,top:3', endpoints: [], runId: 'r1', tenant: 'default', engine: 'llamacpp' }
    const r = await planGatewayArms(o, async () => store)
    expect(r.arms.map((a) => [a.id, a.kind === 'combo' ? a.combo : a.url])).toEqual([['recommended', { threads: '2' }], ['top2', { parallel: '1' }], ['top3', { threads: '1' }]])
    await expect(planGatewayArms({ ...o, runId: 'nope' }, async () => store)).rejects.toThrow(/no such run/)
    await expect(planGatewayArms({ ...o, runId: 'v' }, async () => store)).rejects.toThrow(/tuned vllm/)
    // With the vLLM engine the same run is the one to launch.
    expect((await planGatewayArms({ ...o, arms: 'recommended', runId: 'v', engine: 'vllm' }, async () => store)).arms.map((a) => a.id)).toEqual(['recommended'])
  })
})
