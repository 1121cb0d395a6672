/**
 * The gateway in front of two real llama-servers (the "done when"). Outside CI a missing
 * binary skips with the reason; under CI=true it fails.
 *
 * The two arms differ in a way that no load on a shared machine can hide: the same synthetic
 * architecture at 1M parameters (the fast arm) and at 400M (the arm named defaults, the fallback),
 * each on one thread, judged by one objective, TPOT ≤ 11 ms, between them: on this 2-core machine
 * at a load average of 19, bench serve measured TPOT p99 2.3 ms for 1M and p50 53 ms for 400M
 * (about 5× below and above the limit); through the gateway, in three runs of this test at load
 * 16–17, the fast arm's slowest request had 0.8, 4.1 and 7.1 ms and the slow arm's fastest 218,
 * 138 and 129 ms. Every fast request met the objective (reward ≥ 0.5) and every slow one missed it
 * (reward 0: one objective, no headroom). Load only slows the slow arm further (400M reads 422 MB
 * a token: over 11 ms on one core at any memory bandwidth below 38 GB/s); to fail, the check needs
 * load to push over 40% of the fast arm's requests past 11 ms a token (below).
 *
 * One thread per arm, a real llama-server setting (--threads 1): with llama.cpp's own choice
 * (every core) its threads spin at barriers, and on a loaded machine they wait for each other's
 * time slices. Measured here at load 15: 1M's TPOT 9.4 ms on two threads against 0.17 ms on one,
 * 40M's 287 ms against 8.6 ms. That, not the models, is what load moved in the runs where the
 * check failed (11 of 16, 9 of 16).
 *
 * The check (shift-check.ts: at least 12 of the last 16 decisions on the fast arm after 14 rounds
 * of 4) fails for no router seed of 50,000 when the fast arm earns 0.5 or more and the slow one 0
 * (router.test.ts runs the router through this protocol): its false-failure rate under the
 * router's policy is below 6e-5; with the fast arm's mean reward down to 0.3 (40% of its requests
 * missing), 6 seeds in 10,000. For arms that earn the same it fails on 97% of seeds. The three
 * runs above had 16 of 16.
 * The defaults are the slow one on purpose: traffic must move away from the fallback for the
 * shift to show.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LLAMACPP_VERSION, llamacppServerEngine } from '@kerneltune/engines-llamacpp'
import { synthLlama } from '@kerneltune/gguf'
import { writeGgufFile } from '@kerneltune/gguf/node'
import { parseSlo } from '@kerneltune/serving'
import { BUILD_HINT, findLlamaServer } from '@kerneltune/engines-llamacpp/node'
import { processAlive } from '@kerneltune/serving/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SHIFT_CHECK } from '../shift-check.ts'
import { startGateway, type Decision, type Gateway } from './gateway.node.ts'
import { completeStream, completion, post, waitUntil, type RawAnswer } from './test-client.node.ts'
import { processesNaming } from '@kerneltune/tooling/test-processes'

const found = findLlamaServer(LLAMACPP_VERSION)
const skip = !found && process.env.CI !== 'true'
if (skip) console.warn(`kerneltune-skip: gateway on llama-server: no binary; ${BUILD_HINT}`)

const dir = mkdtempSync(join(tmpdir(), 'kt-gateway-'))
const small = join(dir, 'small.gguf')
const large = join(dir, 'large.gguf')
afterAll(() => rmSync(dir, { recursive: true, force: true }))


describe.skipIf(skip)('gateway in front of two llama-servers', () => {
  let g: Gateway
  const decisions: Decision[] = []
  const upstream = new Map<number, Buffer[]>()
  const answers: RawAnswer[] = []
  const batch = async (tag: string, n: number) => {
    const got = await Promise.all(Array.from({ length: n }, (_, i) => post(g.url, '/v1/completions', completion(`${tag} ${i} once upon a time`, 12))))
    answers.push(...got)
    return got
  }

  beforeAll(async () => {
    if (!found) throw new Error(`CI=true and no llama-server binary: ${BUILD_HINT}`)
    await writeGgufFile(small, synthLlama({ params: 1e6, vocabSize: 320, quant: 'Q8_0', seed: 5 }).file)
    // Tiled: llama.cpp's kernels read every byte whatever the values, at the speed of a random file (written in seconds).
    await writeGgufFile(large, synthLlama({ params: 400e6, vocabSize: 320, quant: 'Q8_0', seed: 5, fill: 'tiled' }).file)
    const engine = llamacppServerEngine({ binary: found.path })
    const target = (model: string) => ({ kind: 'engine' as const, engine, binary: found.path, model })
    const oneThread = { threads: '1' }
    g = await startGateway({
      arms: [{ id: 'defaults', target: target(large), combo: oneThread }, { id: 'fast', target: target(small), combo: oneThread }],
      fallback: 'defaults',
      // One objective between the arms, about 5× from each (see the header).
      objectives: parseSlo('tpot_p99_ms=11'),
      seed: 3,
      onDecision: (d) => decisions.push(d),
      onUpstreamChunk: (id, _arm, c) => void (upstream.get(id) ?? upstream.set(id, []).get(id)!).push(Buffer.from(c)),
    })
  }, 300_000)

  afterAll(async () => {
    await g?.stop()
  })

  it('should answer concurrent streamed requests completely with the arm\'s bytes unchanged, and shift traffic to the better arm', async () => {
    for (let round = 0; round < SHIFT_CHECK.rounds; round++) await batch(`r${round}`, SHIFT_CHECK.concurrency)
    for (const a of answers) {
      expect(a.status).toBe(200)
      expect(completeStream(a.body)).toBe(true)
      expect(a.body.equals(Buffer.concat(upstream.get(a.requestId!)!))).toBe(true)
    }
    expect(new Set(answers.map((a) => a.arm))).toEqual(new Set(['defaults', 'fast']))
    // The premise of the false-failure rate (header): no slow request met the objective, and the
    // fast arm's requests earned 0.3 or more on average (the computation's margin: 6 failing seeds
    // in 10,000 at 0.3; 0 at 0.5). Either failing says load moved the arms 5×, not the router erred.
    const ofArm = (arm: string) => decisions.filter((d) => d.arm === arm)
    if (process.env.KT_TEST_DEBUG) console.log(JSON.stringify({ late: decisions.slice(-SHIFT_CHECK.window).filter((d) => d.arm === 'fast').length, arms: ['fast', 'defaults'].map((a) => [a, ofArm(a).length, ofArm(a).filter((d) => d.met).length, Math.max(...ofArm(a).map((d) => d.tpotMs ?? 0)), Math.min(...ofArm(a).map((d) => d.tpotMs ?? Infinity))]) }))
    expect(ofArm('defaults').filter((d) => d.met).map((d) => d.tpotMs)).toEqual([])
    expect(ofArm('fast').reduce((a, d) => a + d.reward, 0) / ofArm('fast').length).toBeGreaterThanOrEqual(0.3)
    // The shift: at least 12 of the last 16 decisions to the fast arm (false-failure rate under 6e-5, header).
    const late = decisions.slice(-SHIFT_CHECK.window)
    expect(late.filter((d) => d.arm === 'fast').length).toBeGreaterThanOrEqual(SHIFT_CHECK.atLeast)
    const s = g.status()
    const fast = s.arms.find((a) => a.arm === 'fast')!
    const slow = s.arms.find((a) => a.arm === 'defaults')!
    expect(fast.meanTpotMs!).toBeLessThan(slow.meanTpotMs!)
    expect(fast.posterior.mean).toBeGreaterThan(slow.posterior.mean)
  }, 300_000)

  it('should lose no request when the busy arm\'s server is killed, and relaunch it', async () => {
    const before = g.arm('fast')
    expect(before.inFlight).toBe(0)
    process.kill(before.pid!, 'SIGKILL')
    // Sent at once: requests picked for the dead arm before its exit is noticed are retried.
    const got = [...(await batch('k0', 4)), ...(await batch('k1', 4))]
    expect(got.map((a) => a.status)).toEqual(Array(8).fill(200))
    expect(got.every((a) => completeStream(a.body) && a.body.equals(Buffer.concat(upstream.get(a.requestId!)!)))).toBe(true)
    await waitUntil(() => g.arm('fast').up, 120_000, 'the relaunch')
    const after = g.arm('fast')
    expect(after.launches).toBe(2)
    expect(after.pid).not.toBe(before.pid)
    expect(processAlive(before.pid!)).toBe(false)
    const more = await batch('k2', 4)
    expect(more.every((a) => a.status === 200 && completeStream(a.body))).toBe(true)
    expect(g.status().totals.failed).toBe(0)
  }, 300_000)

  it('should stop every server on stop and leave no process behind', async () => {
    const pids = g.status().arms.map((a) => a.server.pid!)
    const final = await g.stop()
    expect(final.totals.failed).toBe(0)
    for (const p of pids) expect(processAlive(p)).toBe(false)
    expect([...processesNaming(small), ...processesNaming(large)]).toEqual([])
  }, 120_000)
})
