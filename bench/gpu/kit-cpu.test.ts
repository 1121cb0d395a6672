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
    // Issue 35 item 3: the build comes back as one file a later lease can carry instead of building.
    const build = read('build-info.json')
    expect(build.export.file).toMatch(/^prebuilt-cpu-[0-9a-f]{8}-[0-9a-f]{12}\.tar\.xz$/)
    expect(statSync(join(out, build.export.file)).size).toBe(build.export.bytes)
    expect(build.export.bytes).toBeLessThanOrEqual(16 * 1024 * 1024)
    expect(build.logTail.length).toBeGreaterThan(0)
  }, 1_800_000)

  it('packs a build\'s export into the next kit, whose run then builds nothing and names what it used', () => {
    const exported = readdirSync(out).find((f) => f.startsWith('prebuilt-'))!
    const kit2 = join(dir, 'kit2')
    execFileSync('bash', [join(ROOT, 'tooling/scripts/pack-device.sh'), '--prebuilt', join(out, exported), kit2], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], timeout: 600_000 })
    const manifest = JSON.parse(readFileSync(join(kit2, 'MANIFEST.json'), 'utf8'))
    expect(manifest.prebuilt.file).toBe(exported)
    expect(manifest.prebuilt.builtBy.llamaCppCommit).toBe(manifest.llamaCpp.commit)
    expect(manifest.files[exported].bytes).toBe(statSync(join(kit2, exported)).size)
    // A fresh work folder: with no build there to reuse, only the prebuilt binaries can avoid one.
    const work = join(dir, 'work2')
    const out2 = join(dir, 'out2')
    const r = spawnSync('bash', [join(ROOT, 'bench/gpu/run.sh'), '--cpu'], {
      cwd: ROOT, encoding: 'utf8', timeout: 300_000,
      env: { ...process.env, KIT: kit2, OUT: out2, KT_KIT_WORK: work, KT_KIT_BUILD_ONLY: '1' },
    })
    expect(r.status, r.stderr.slice(-3000)).toBe(0)
    // Build-only prints the folder the measurements would run from: the unpacked binaries.
    const binDir = r.stdout.trim()
    expect(binDir).toBe(join(work, 'prebuilt', 'bin'))
    expect(r.stderr).toContain(`using the prebuilt binaries ${exported}: no build`)
    expect(readdirSync(work)).not.toContain('src')
    expect(readdirSync(work).some((f) => f.startsWith('build-'))).toBe(false)
    const info = JSON.parse(readFileSync(join(out2, 'build-info.json'), 'utf8'))
    expect(info).toMatchObject({ buildSeconds: 0, prebuilt: { file: exported, builtBy: { llamaCppCommit: manifest.llamaCpp.commit, mode: 'cpu' } } })
    expect(info.export).toBeUndefined()
    const version = spawnSync(join(binDir, 'llama-server'), ['--version'], { encoding: 'utf8' })
    expect(version.stdout + version.stderr).toContain(manifest.llamaCpp.commit)
  }, 600_000)

  it('refuses an export of another llama.cpp commit, and a kit with neither sources nor usable binaries', () => {
    const fake = join(dir, 'fake')
    execFileSync('mkdir', ['-p', join(fake, 'bin')])
    execFileSync('sh', ['-c', `printf '{"key":"cpu-x-000000000000","llamaCppCommit":"${'0'.repeat(40)}"}' > '${join(fake, 'prebuilt.json')}' && tar -C '${fake}' -cf - prebuilt.json bin | xz > '${join(dir, 'prebuilt-fake.tar.xz')}'`])
    const p = spawnSync('bash', [join(ROOT, 'tooling/scripts/pack-device.sh'), '--prebuilt', join(dir, 'prebuilt-fake.tar.xz'), join(dir, 'kit3')], { cwd: ROOT, encoding: 'utf8', timeout: 600_000 })
    expect(p.status).toBe(2)
    expect(p.stderr).toMatch(/was built from llama\.cpp 0{40}, not [0-9a-f]{40}/)
    expect(existsSync(join(dir, 'kit3', 'MANIFEST.json'))).toBe(false)

    const bare = join(dir, 'kit-bare')
    execFileSync('cp', ['-r', kit, bare])
    rmSync(join(bare, 'llama.cpp.tar.xz'))
    const r = spawnSync('bash', [join(ROOT, 'bench/gpu/run.sh'), '--cpu'], {
      cwd: ROOT, encoding: 'utf8', timeout: 120_000,
      env: { ...process.env, KIT: bare, OUT: join(dir, 'out3'), KT_KIT_WORK: join(dir, 'work3'), KT_KIT_STEPS: 'none', KT_KIT_PREBUILT: join(dir, 'prebuilt-fake.tar.xz') },
    })
    expect(r.status).toBe(4)
    expect(r.stderr).toMatch(/not using prebuilt-fake\.tar\.xz: it was built for another commit/)
    expect(r.stderr).toMatch(/no llama\.cpp sources and no usable prebuilt binaries/)
  }, 600_000)
})
