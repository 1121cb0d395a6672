// The suite run on a minimal engine that contributes a catalog extension, so the extension
// checks (skipped for the first-party engines, which have none) run too.
import { applyControls, KerneltuneError, type Combo, type EnginePlugin, type TranslateResult } from '@kerneltune/core'
import { productOf } from './combos.ts'
import { testEngine } from './test-engine.ts'

const DIMS: Record<string, readonly string[]> = { cuda_graph: ['off', 'per-shape', 'dynamic'], threads: ['1', '2'] }

function tinyEngine(): EnginePlugin {
  return {
    name: 'tiny',
    kind: 'engine',
    apiVersion: 1,
    displayName: 'Tiny',
    defaultVersion: '1',
    supportedVersions: () => ['1'],
    controls: ['cuda_graph'],
    catalogExtension: {
      dimensions: [{ id: 'threads', title: 'Threads', description: 'CPU threads.', values: [{ id: '1', description: 'one' }, { id: '2', description: 'two' }], defaultValue: '1' }],
      rules: [{ id: 'tiny/no-graphs-on-one-thread', kind: 'prune', reason: 'example', source: 'this test', dimensions: ['threads', 'cuda_graph'], violates: (c: Combo) => c.threads === '1' && c.cuda_graph !== 'off' }],
    },
    async translate(combo, context = {}): Promise<TranslateResult> {
      const version = context.version ?? '1'
      if (version !== '1') throw new KerneltuneError('INVALID_INPUT', 'tiny supports version 1', { plugin: 'tiny' })
      const argv = ['tiny']
      for (const [k, v] of Object.entries(combo)) {
        if (typeof v !== 'string') throw new KerneltuneError('INVALID_INPUT', `${k} must be a string`, { plugin: 'tiny' })
      }
      const controlled = applyControls('tiny', 'Tiny', version, combo, ['cuda_graph'])
      if (!controlled.ok) return controlled
      for (const [k, v] of Object.entries(controlled.combo)) {
        if (!DIMS[k]?.includes(v)) return { ok: false, engine: 'tiny', version, dimension: k, value: v, reason: `tiny cannot express ${k}=${v}` }
        argv.push(`--${k}`, v)
      }
      return { ok: true, engine: 'tiny', version, argv, env: {}, files: {}, notes: [...controlled.notes] }
    },
  }
}

testEngine({
  engine: tinyEngine,
  combos: productOf(DIMS),
  inventory: () => ({ flags: { '--cuda_graph': { choices: DIMS.cuda_graph! }, '--threads': { type: 'int' } }, env: {} }),
})
