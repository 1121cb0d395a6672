/**
 * The GPU kit end to end on the CPU, as CI runs it (issue 28): pack-device.sh packs within the
 * 64 MiB a device call carries, the bundled CLI runs on the packed Node away from the repository,
 * and bench/gpu/run.sh --cpu builds llama-server and llama-bench from the packed sources (the
 * build is kept between runs; .ci/run makes it ahead of the tests) and writes every step's JSON.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'

const ROOT = resolve(import.meta.dirname, '../..')
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0
const nodeLlamaCpp = existsSync(join(ROOT, 'packages/engines-llamacpp/node_modules/node-llama-cpp'))
const ready = has('cmake') && has('g++') && has('git') && has('xz') && nodeLlamaCpp

describe.skipIf(requireOrSkip(ready, 'the GPU kit needs cmake, g++, git, xz and the workspace install (node-llama-cpp ships the llama.cpp sources)'))('the GPU kit on the CPU', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kerneltune-kit-'))
  const kit = join(dir, 'kit')
  const out = join(dir, 'out')
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('packs the CLI, Node and llama.cpp within 64 MiB, and the bundled CLI runs on the packed Node alone', () => {
    execFileSync('bash', [join(ROOT, 'tooling/scripts/pack-device.sh'), kit], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], timeout: 600_000 })
    const files = readdirSync(kit).sort()
    expect(files).toEqual(['MANIFEST.json', 'kerneltune.mjs', 'kit.mjs', 'llama.cpp.tar.xz', 'node.xz', 'node_modules'])
    const total = Number(execFileSync('du', ['-sb', kit], { encoding: 'utf8' }).split('\t')[0])
    expect(total).toBeLessThanOrEqual(64 * 1024 * 1024)
    const manifest = JSON.parse(readFileSync(join(kit, 'MANIFEST.json'), 'utf8'))
    expect(manifest.llamaCpp.commit).toMatch(/^[0-9a-f]{40}$/)
    expect(manifest.files['node.xz'].bytes).toBe(statSync(join(kit, 'node.xz')).size)

    // Away from the repository (no node_modules to fall back on), with the Node that was packed.
    const away = join(dir, 'away')
    execFileSync('mkdir', ['-p', away])
    execFileSync('sh', ['-c', `xz -dc '${join(kit, 'node.xz')}' > '${join(away, 'node')}' && chmod +x '${join(away, 'node')}'`])
    const run = (...args: string[]) => spawnSync(join(away, 'node'), [join(kit, 'kerneltune.mjs'), ...args], { cwd: away, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: away } })
    const v = run('--version')
    expect(v.status, v.stderr).toBe(0)
    expect(v.stdout).toMatch(/^kerneltune \d+\.\d+\.\d+/)
    const t = run('translate', '--engine', 'vllm', '--combo', '{"attention_backend":"flashinfer"}', '--json')
    expect(t.status, t.stderr).toBe(0)
    expect(JSON.parse(t.stdout).argv.join(' ')).toMatch(/vllm serve/)
  }, 600_000)

  it('runs every step of bench/gpu/run.sh on the CPU and writes each step\'s JSON with the device named', () => {
    const r = spawnSync('bash', [join(ROOT, 'bench/gpu/run.sh'), '--cpu'], {
      cwd: ROOT, encoding: 'utf8', timeout: 1_800_000,
      env: { ...process.env, KIT: kit, OUT: out, KT_KIT_BUDGET_S: '900' },
    })
    expect(r.status, `${r.stderr.slice(-3000)}`).toBe(0)
    const files = readdirSync(out).sort()
    // A device call returns at most 8 files from $OUT.
    expect(files.length).toBeLessThanOrEqual(8)
    expect(files).toEqual(expect.arrayContaining(['bench-serve.json', 'build-info.json', 'env.json', 'kit.log', 'predict-vs-measure.json', 'serving-sweep.json', 'summary.md']))
    const read = (f: string) => JSON.parse(readFileSync(join(out, f), 'utf8'))
    const env = read('env.json')
    expect(env.device.mode).toBe('cpu')
    expect(env.device.llamaCpp.commit).toMatch(/^[0-9a-f]{40}$/)
    expect(env.device.llamaCpp.version).toMatch(/version:/)
    // Issue 34: the binaries name the commit they were built from (not "commit unknown"), the
    // checkout says what was dirty, and every file carries the exact command lines.
    expect(env.device.llamaCpp.version).toContain(env.device.llamaCpp.commit)
    expect(Array.isArray(env.device.kerneltune.dirtyFiles)).toBe(true)
    expect(env.device.kerneltune.dirty).toBe(env.device.kerneltune.dirtyFiles.length > 0)
    for (const f of ['env.json', 'predict-vs-measure.json', 'bench-serve.json', 'serving-sweep.json']) {
      const doc = read(f)
      expect(doc.argv.runSh, f).toMatch(/bench\/gpu\/run\.sh --cpu$/)
      expect(doc.argv.kit, f).toEqual(expect.arrayContaining(['--mode', 'cpu']))
      expect(doc.argv.settings, f).toMatchObject({ KIT: kit, OUT: out, KT_KIT_BUDGET_S: '900' })
    }
    const pvm = read('predict-vs-measure.json')
    const q4 = pvm.models.filter((m: { model: { quant: string } }) => m.model.quant === 'Q4_0')
    expect(q4.length).toBeGreaterThan(0)
    expect(pvm.predictedBy).toEqual([expect.stringMatching(/^pretrained-physics v\d+\.\d+\.\d+ \(packages\/regressor\/scripts\/train-pretrained\.ts, seed \d+\)$/)])
    for (const m of q4) {
      expect(m.llamaBenchArgv[0]).toMatch(/\/llama-bench$/)
      expect(m.llamaBenchArgv.slice(1, 3)).toEqual(['-m', expect.stringMatching(new RegExp(`/models/${m.model.id}\\.gguf$`))])
      expect(m.error, JSON.stringify(m)).toBeUndefined()
      expect(m.decode.measured.tps).toBeGreaterThan(0)
      expect(m.prefill.measured.tps).toBeGreaterThan(0)
      expect(m.decode.predicted.tps).toBeGreaterThan(0)
      expect(m.decode.predicted.high).toBeGreaterThan(m.decode.predicted.low)
    }
    const serve = read('bench-serve.json')
    expect(serve.levels.map((l: { concurrency: number }) => l.concurrency)).toEqual([1, 2])
    for (const l of serve.levels) {
      expect(l.result.outputTokensPerSecond).toBeGreaterThan(0)
      expect(l.command.slice(2, 4)).toEqual(['bench', 'serve'])
      // The server's real build: the commit it was built from, and its slots as it reported them.
      expect(l.result.server.version).toContain(env.device.llamaCpp.commit.slice(0, 12))
      expect(l.result.server.slots).toBeGreaterThan(0)
      expect(l.result.device).toMatch(/^CPU: /)
    }
    const sweep = read('serving-sweep.json')
    expect([0, 3]).toContain(sweep.exitCode)
    expect(sweep.result.combos.length).toBeGreaterThan(0)
    expect(sweep.device.cpu.cores).toBeGreaterThan(0)
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toMatch(/\| tiny-q4_0 \| [\d.]+ \|/)
  }, 1_800_000)
})
