import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { writeResult, type DeviceIdentity, type KitContext } from './kit-context.ts'
import { kitPlan } from './kit-plan.ts'
import { checkoutState, runArgv } from './kit-provenance.ts'

describe('what every GPU kit file says of how it was made (issue 34)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kerneltune-provenance-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('should keep run.sh\'s command line and the driver\'s argv verbatim, with the settings that change the run', () => {
    const a = runArgv(['/w/node', '/k/kit.mjs', '--mode', 'cuda'], {
      KT_KIT_RUN_ARGV: 'bench/gpu/run.sh ', KT_KIT_STEPS: 'models', OUT: '/tmp/o', HOME: '/root', KT_KIT_BUDGET_S: '540', PATH: '/bin',
    })
    expect(a).toEqual({ runSh: 'bench/gpu/run.sh', kit: ['/w/node', '/k/kit.mjs', '--mode', 'cuda'], settings: { KT_KIT_BUDGET_S: '540', KT_KIT_STEPS: 'models', OUT: '/tmp/o' } })
    expect(runArgv([], {}).runSh).toBeNull()
  })

  it('should say what was dirty in the checkout, not only that it was', () => {
    const repo = join(dir, 'repo')
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...args], { cwd: repo, encoding: 'utf8' })
    execFileSync('git', ['init', '-q', repo])
    writeFileSync(join(repo, 'a.txt'), 'one\n')
    git('add', 'a.txt')
    git('commit', '-qm', 'one')
    const clean = checkoutState(repo)
    expect(clean.commit).toBe(git('rev-parse', 'HEAD').trim())
    expect(clean).toMatchObject({ dirty: false, dirtyFiles: [] })
    writeFileSync(join(repo, 'a.txt'), 'two\n')
    writeFileSync(join(repo, 'b.txt'), 'new\n')
    expect(checkoutState(repo)).toMatchObject({ dirty: true, dirtyFiles: [' M a.txt', '?? b.txt'] })
    expect(checkoutState(tmpdir()).commit).toBe('unknown')
  })

  it('should name the device and the exact argv in every file it writes', () => {
    const device: DeviceIdentity = {
      mode: 'cuda', gpu: { name: 'NVIDIA H200', driver: '580.159.04', memoryMiB: 143771, computeCap: '9.0' }, cuda: 'toolkit 13.0.88',
      cpu: { model: 'Intel(R) Xeon(R) Processor', cores: 16, threads: 16 },
      llamaCpp: { tag: 'v0.5.0', commit: 'de3ff815ea7d559ee917f063901b8986f038abc6', version: 'version: 0.5.0-dev (build 0, commit de3ff815ea7d559ee917f063901b8986f038abc6)' },
      kerneltune: { commit: 'fdb1d17', dirty: true, dirtyFiles: [' M bench/gpu/kit-plan.ts'] }, node: 'v20.20.2',
    }
    const argv = runArgv(['/w/node', '/k/kit.mjs'], { KT_KIT_RUN_ARGV: 'bench/gpu/run.sh' })
    const ctx = { plan: kitPlan('cuda'), outDir: dir, device, argv, skipped: [] } as unknown as KitContext
    writeResult(ctx, 'x.json', { step: 'x' })
    const doc = JSON.parse(readFileSync(join(dir, 'x.json'), 'utf8'))
    expect(doc.device.gpu.name).toBe('NVIDIA H200')
    expect(doc.device.kerneltune).toEqual({ commit: 'fdb1d17', dirty: true, dirtyFiles: [' M bench/gpu/kit-plan.ts'] })
    expect(doc.argv).toEqual({ runSh: 'bench/gpu/run.sh', kit: ['/w/node', '/k/kit.mjs'], settings: {} })
    expect(doc.step).toBe('x')
  })
})
