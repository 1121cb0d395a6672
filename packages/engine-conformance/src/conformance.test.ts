import { describe, expect, it } from 'vitest'
import type { ServingCapability } from '@kerneltune/core'
import { servingCommandProblems, servingEvidenceProblems, servingProblems } from './serving.ts'
import type { Translation } from '@kerneltune/core'
import { argvProblems, coreCombos, inventoryFromJson, inventoryProblems, productOf, resultProblems } from './index.ts'

const ok = (over: Partial<Translation> = {}): Translation => ({ ok: true, engine: 'e', version: '1', argv: ['srv'], env: {}, files: {}, notes: [], ...over })

describe('coreCombos', () => {
  it('should walk the full product of the six core dimensions once each', () => {
    const combos = coreCombos()
    expect(combos.length).toBe(6 * 3 * 4 * 4 * 3 * 3)
    expect(new Set(combos.map((c) => JSON.stringify(c))).size).toBe(combos.length)
    expect(productOf({ a: ['1', '2'], b: ['x'] })).toEqual([{ a: '1', b: 'x' }, { a: '2', b: 'x' }])
  })
})

describe('resultProblems', () => {
  const engine = { name: 'e' }
  it('should accept a well-formed translation and refusal', () => {
    expect(resultProblems(engine, { a: 'x' }, '1', ok())).toEqual([])
    expect(resultProblems(engine, { a: 'x' }, '1', { ok: false, engine: 'e', version: '1', dimension: 'a', value: 'x', reason: 'cannot do that here' })).toEqual([])
  })

  it('should report refusals that name the wrong dimension or value, or give no reason', () => {
    const base = { ok: false, engine: 'e', version: '1', reason: 'cannot do that here' }
    expect(resultProblems(engine, { a: 'x' }, '1', { ...base, dimension: 'b', value: 'x' })[0]).toMatch(/not a key/)
    expect(resultProblems(engine, { a: 'x' }, '1', { ...base, dimension: 'a', value: 'y' })[0]).toMatch(/names value y/)
    expect(resultProblems(engine, { a: 'x' }, '1', { ...base, dimension: 'a', value: 'x', reason: '' })[0]).toMatch(/reason/)
  })

  it('should report non-string argv, env and files, a wrong engine or version, and an empty translation', () => {
    expect(resultProblems(engine, {}, '1', ok({ argv: [1 as unknown as string] }))[0]).toMatch(/argv/)
    expect(resultProblems(engine, {}, '1', ok({ env: { A: 1 as unknown as string } }))[0]).toMatch(/env/)
    expect(resultProblems(engine, {}, '2', ok())[0]).toMatch(/version/)
    expect(resultProblems({ name: 'f' }, {}, '1', ok())[0]).toMatch(/engine/)
    expect(resultProblems(engine, {}, '1', ok({ argv: [] }))[0]).toMatch(/command line or at least one file/)
    expect(resultProblems(engine, {}, '1', 'nope')[0]).toMatch(/not an object/)
  })
})

describe('inventoryFromJson and inventoryProblems', () => {
  const inv = inventoryFromJson({
    flags: {
      '--dtype': { type: 'choice', choices: ['float16', 'bfloat16'], aliases: ['-d'] },
      '--eager': { type: 'bool', bool_style: 'BooleanOptionalAction' },
      '--sizes': { type: 'int', list: true, nargs: '+' },
      '--graphs': { type: 'int', list: true, delimiter: ',' },
      '--config': { type: 'json' },
    },
    env: { BACKEND: { choices: ['A', 'B'] }, DISABLED: { type: 'comma-list', examples: ['K1', 'K2'] } },
  })

  it('should accept flags, aliases, --no- forms, lists and values from the inventory', () => {
    expect(argvProblems(['srv', 'serve', 'm', '--dtype', 'float16', '-d', 'bfloat16', '--no-eager', '--sizes', '1', '2', '--graphs', '1,2', '--config={"a":1}'], inv)).toEqual([])
    expect(inventoryProblems(ok({ env: { BACKEND: 'A', DISABLED: 'K1,K2' } }), inv)).toEqual([])
  })

  it('should report unknown flags, bad values, missing values and stray words', () => {
    expect(argvProblems(['srv', '--nope'], inv)).toEqual(['flag --nope is not in the inventory'])
    expect(argvProblems(['srv', '--dtype', 'fp8'], inv)[0]).toMatch(/not one of/)
    expect(argvProblems(['srv', '--eager', 'yes'], inv)).toEqual(['argv word "yes" follows no flag that takes it'])
    expect(argvProblems(['srv', '--sizes', 'x'], inv)[0]).toMatch(/not an integer/)
    expect(argvProblems(['srv', '--graphs', '1,x'], inv)[0]).toMatch(/not an integer/)
    expect(argvProblems(['srv', '--config', '{'], inv)[0]).toMatch(/not valid JSON/)
    expect(argvProblems(['srv', '--dtype'], inv)[0]).toMatch(/needs a value/)
  })

  it('should report unknown environment variables and values, and run the extra check', () => {
    expect(inventoryProblems(ok({ env: { NOPE: '1' } }), inv)).toEqual(['environment variable NOPE is not in the inventory'])
    expect(inventoryProblems(ok({ env: { BACKEND: 'C', DISABLED: 'K3' } }), inv)).toHaveLength(2)
    const checked = inventoryFromJson({}, (t) => (Object.keys(t.files).length ? ['file'] : []))
    expect(inventoryProblems(ok({ files: { a: 'b' } }), checked)).toEqual(['file'])
  })
})

describe('servingProblems and servingCommandProblems', () => {
  const good: ServingCapability = {
    binary: { program: 'srv', installHint: 'pip install srv==1' },
    listenArgs: ['--port', '{port}'],
    readiness: { path: '/health' },
    version: { path: '/version', read: () => undefined },
    metrics: { names: { promptTokens: 'srv:prompt_tokens_total', generatedTokens: 'srv:generation_tokens_total' }, lacks: { requestsRunning: 'no gauge', requestsWaiting: 'no gauge', kvCacheUsage: 'no gauge' } },
    logs: { refused: [/error: /] },
    evidence: ['readiness: org/srv@v1:srv/server.py:10', 'version: org/srv@v1:srv/server.py:20', 'metrics: org/srv@v1:srv/metrics.py:5'],
  }
  const t = { ok: true as const, engine: 'srv', version: '1', argv: ['srv', 'serve', 'm', '--x', '1'], env: { A: '1' }, files: {}, notes: [] }

  it('should accept a capability with evidence, a full metric map and the translation as its launch', () => {
    expect(servingProblems(good)).toEqual([])
    expect(servingCommandProblems(good, t)).toEqual([])
  })

  it('should report missing evidence, an uncovered counter, a pattern that matches everything and a launch that is not the translation', () => {
    const bad: ServingCapability = { ...good, evidence: ['readiness: somewhere'], metrics: { names: { promptTokens: 'srv:p' } }, logs: { crashed: [/.*/] }, command: (x, b) => ({ argv: [b, ...x.argv.slice(2)], env: x.env, files: x.files }) }
    const p = servingProblems(bad)
    expect(p).toEqual(expect.arrayContaining([
      expect.stringMatching(/evidence for readiness names no upstream file/),
      expect.stringMatching(/no evidence for version/),
      expect.stringMatching(/metric generatedTokens: neither/),
      expect.stringMatching(/logs.crashed: .* matches an empty line/),
    ]))
    expect(servingCommandProblems(bad, t)).toEqual([expect.stringMatching(/does not carry the translation's/)])
  })

  it('should tie each route and mapped metric to evidence at the release, or to a plain "not verified"', () => {
    const cited: ServingCapability = { ...good, evidence: ['readiness: org/srv@v1:srv/server.py L10 "GET /health"', 'version: not verified at v1; org/srv@abc123:srv/server.py "GET /version"', 'metrics: org/srv@v1:srv/metrics.py L5 "srv:prompt_tokens_total", "srv:generation_tokens_total"'] }
    expect(servingEvidenceProblems(cited, 'v1')).toEqual([])
    // The original fixture cites v1 but names neither route nor metric.
    expect(servingEvidenceProblems(good, 'v1')).toEqual([
      'the evidence for readiness does not name /health',
      'the evidence for version does not name /version',
      'the evidence for metrics does not name srv:prompt_tokens_total',
      'the evidence for metrics does not name srv:generation_tokens_total',
    ])
    expect(servingEvidenceProblems(cited, 'v2')).toHaveLength(3)
  })
})
