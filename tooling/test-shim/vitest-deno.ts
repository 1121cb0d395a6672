/**
 * A small stand-in for the `vitest` module under Deno, which cannot load vitest itself.
 * Test files keep importing from 'vitest'; Deno's import map (tooling/test-shim/deno.json)
 * points that name here. Suites and tests run on `node:test` (which Deno implements) and
 * assertions use Jest's `expect`, whose matchers vitest mirrors. Bun needs no shim: it maps
 * 'vitest' to bun:test by itself.
 *
 * Supported: describe/it/test (+ .skip, .only, .todo, .skipIf, .runIf, .each), beforeAll,
 * afterAll, beforeEach, afterEach, expect. Not supported: `vi` (mocks and timers), which library
 * tests avoid so that they run unchanged on every runtime.
 */
import * as nodeTest from 'node:test'
import { expect } from 'expect'
// The same fixed fast-check seed as under vitest and Bun (KERNELTUNE_FC_SEED overrides it).
import './fast-check-setup.ts'

export { expect }

type Fn = () => unknown
type TestFn = (name: string, fn?: Fn, timeout?: number) => void

function format(name: string, args: unknown[]): string {
  let i = 0
  let out = name.replace(/%[sdifjo%]/g, (m) => {
    if (m === '%%') return '%'
    const v = args[i++]
    return m === '%j' || m === '%o' ? JSON.stringify(v) : String(v)
  })
  const first = args[0]
  if (args.length === 1 && first !== null && typeof first === 'object') {
    out = out.replace(/\$([A-Za-z_][\w.]*)/g, (_, key: string) => {
      const v = (first as Record<string, unknown>)[key]
      return typeof v === 'object' ? JSON.stringify(v) : String(v)
    })
  }
  return out
}

/**
 * A test body of `it.each`: called with a row's values. Declared as a method so that a body with
 * typed parameters (`(input, expected) => …`) is accepted, as vitest's own `each` accepts it.
 */
type EachBody = { body(...args: unknown[]): unknown }['body']

function withEach(base: TestFn) {
  return <T>(table: readonly T[]) =>
    (name: string, fn: EachBody) => {
      for (const row of table) {
        const args = Array.isArray(row) ? row : [row]
        base(format(name, args), () => fn(...args))
      }
    }
}

function wrapTest(run: (name: string, opts: object, fn?: Fn) => unknown): TestFn {
  return (name, fn, timeout) => {
    void run(name, timeout ? { timeout } : {}, fn ? async () => { await fn() } : undefined)
  }
}

function makeTest(run: typeof nodeTest.it) {
  const base = wrapTest((n, o, f) => run(n, o, f))
  const skip = wrapTest((n, o, f) => run(n, { ...o, skip: true }, f))
  const only = wrapTest((n, o, f) => run(n, { ...o, only: true }, f))
  const todo = (name: string) => void run(name, { todo: true })
  return Object.assign(base, {
    skip,
    only,
    todo,
    skipIf: (cond: unknown) => (cond ? skip : base),
    runIf: (cond: unknown) => (cond ? base : skip),
    each: withEach(base),
  })
}

function makeDescribe() {
  const run = nodeTest.describe
  const base = (name: string, fn: Fn) => void run(name, () => { fn() })
  const skip = (name: string, fn: Fn) => void run(name, { skip: true }, () => { fn() })
  return Object.assign(base, {
    skip,
    only: (name: string, fn: Fn) => void run(name, { only: true }, () => { fn() }),
    skipIf: (cond: unknown) => (cond ? skip : base),
    runIf: (cond: unknown) => (cond ? base : skip),
    each: withEach(base as TestFn),
  })
}

export const it = makeTest(nodeTest.it)
export const test = it
export const describe = makeDescribe()
export const beforeAll = (fn: Fn) => nodeTest.before(async () => { await fn() })
export const afterAll = (fn: Fn) => nodeTest.after(async () => { await fn() })
export const beforeEach = (fn: Fn) => nodeTest.beforeEach(async () => { await fn() })
export const afterEach = (fn: Fn) => nodeTest.afterEach(async () => { await fn() })

export const vi = new Proxy({}, {
  get() {
    throw new Error('vi (mocks, timers) is not available under Deno: library tests must not use it')
  },
})
