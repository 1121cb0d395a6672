/**
 * The kernels kit end to end on Mesa's lavapipe, as CI runs it (issue 40): pack-kernels-kit.sh
 * packs the bundled script, the pinned Deno and the Vulkan loader .debs within the 64 MiB a device
 * call carries, and run.sh --quick runs the same script a GPU lease runs, with the loader taken
 * from the kit's .debs (KT_KIT_LOADERS=private), then the results file is checked against its
 * schema: the correctness suite passed, every format's GEMV and GEMM has a tuned and a default
 * figure with its fraction of the probes' ceilings, and the Q4_0 GEMV profile is there.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import { WEIGHT_FORMATS } from '@kerneltune/gpu-kernels'
import { ResultsSchema } from './schema.ts'
import { TABLE_COLUMNS } from './report.ts'

const ROOT = resolve(import.meta.dirname, '../..')
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0
const lavapipe = ['/usr/share/vulkan/icd.d', '/etc/vulkan/icd.d'].some((d) => existsSync(d) && readdirSync(d).some((f) => f.startsWith('lvp_icd')))
const ready = has('xz') && has('git') && has('dpkg') && has('apt-get') && lavapipe && existsSync(join(ROOT, 'node_modules/deno/deno'))
const DEBS = ['libegl1', 'libgl1', 'libgles2', 'libglvnd0', 'libglx0', 'libopengl0', 'libvulkan1']

describe.skipIf(requireOrSkip(ready, 'the kernels kit needs xz, git, dpkg, apt-get (to fetch the loader .debs once), Mesa lavapipe (apt-get install -y mesa-vulkan-drivers libvulkan1) and the workspace install (Deno)'))('the kernels kit on lavapipe', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kerneltune-kernels-kit-'))
  const kit = join(dir, 'kit')
  const out = join(dir, 'out')
  const work = join(dir, 'work')
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('packs the bundled script, the pinned Deno and the Vulkan loader .debs within 64 MiB', () => {
    execFileSync('bash', [join(ROOT, 'tooling/scripts/pack-kernels-kit.sh'), kit], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], timeout: 300_000 })
    expect(readdirSync(kit).sort()).toEqual(['MANIFEST.json', 'debs', 'deno.xz', 'kit.mjs'])
    const total = Number(execFileSync('du', ['-sb', kit], { encoding: 'utf8' }).split('\t')[0])
    expect(total).toBeLessThanOrEqual(64 * 1024 * 1024)
    const manifest = JSON.parse(readFileSync(join(kit, 'MANIFEST.json'), 'utf8'))
    const pinned = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies.deno
    expect(manifest.deno.version).toBe(pinned)
    expect(manifest.files['deno.xz'].bytes).toBe(statSync(join(kit, 'deno.xz')).size)
    // Each .deb is a real package of the name the recipe asks for, for the device's architecture.
    const debs = readdirSync(join(kit, 'debs')).sort()
    expect(debs.map((f) => f.split('_')[0])).toEqual(DEBS)
    for (const f of debs) {
      const fields = execFileSync('dpkg-deb', ['-f', join(kit, 'debs', f), 'Package', 'Architecture'], { encoding: 'utf8' })
      expect(fields).toContain(`Package: ${f.split('_')[0]}`)
      expect(fields).toContain('Architecture: amd64')
    }
    expect(manifest.vulkanLoaderDebs).toEqual(debs)
  }, 300_000)

  it('runs the script on lavapipe with the kit\'s own loader and writes results that parse, with the correctness suite passed', () => {
    const r = spawnSync('bash', [join(ROOT, 'bench/gpu-kernels-kit/run.sh'), '--quick'], {
      cwd: ROOT, encoding: 'utf8', timeout: 300_000,
      env: { ...process.env, KIT: kit, OUT: out, KT_KIT_WORK: work, KT_KIT_LOADERS: 'private', KT_KIT_BUDGET_S: '240' },
    })
    expect(r.status, `${r.stdout.slice(-2000)}\n${r.stderr.slice(-3000)}`).toBe(0)
    // A device call returns at most 8 files from $OUT.
    expect(readdirSync(out).sort()).toEqual(['kit.log', 'results.json', 'results.md'])
    const res = ResultsSchema.parse(JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')))
    expect(res.adapter.cpuAdapter).toBe(true)
    expect(res.adapter.name).toMatch(/llvmpipe/)
    // The shapes were scaled, and the output says so.
    expect(res.scaled?.factor).toBe(8)
    expect(readFileSync(join(out, 'results.md'), 'utf8')).toContain('**scaled shapes**')
    // The loader that ran is the one unpacked from the kit, and lavapipe was the driver.
    expect(res.host.vulkan.loaderSource).toBe('kit-private')
    expect(res.host.vulkan.loader).toMatch(/^libvulkan\.so\.1\.\d+\.\d+$/)
    expect(res.adapter.mapped.backend).toBe('vulkan')
    expect(res.adapter.mapped.loader?.startsWith(join(work, 'gl'))).toBe(true)
    expect(res.adapter.mapped.drivers.some((d) => d.endsWith('libvulkan_lvp.so'))).toBe(true)
    expect(res.host.driver).toMatch(/^Mesa /)
    expect(res.host.kit.deno).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies.deno)

    expect(res.correctness.passed).toBe(true)
    expect(res.correctness.families.length).toBe(10)
    expect(res.correctness.correct).toBe(res.correctness.tried)
    expect(res.copy!.gbps).toBeGreaterThan(0)
    expect(res.fma!.gflops).toBeGreaterThan(0)
    for (const kind of ['gemv', 'gemm'] as const) {
      const rows = res.kernels.filter((k) => k.kind === kind)
      expect(new Set(rows.map((k) => k.format))).toEqual(new Set(WEIGHT_FORMATS))
      for (const k of rows) {
        expect(k.fractionOf).toBe(kind === 'gemv' ? 'copy' : 'fma')
        expect(k.fullSize).not.toBeNull()
        expect(k.tuned, JSON.stringify(k)).not.toBeNull()
        expect(k.default, JSON.stringify(k)).not.toBeNull()
        expect(k.correct).toBe(k.tried)
        // Cold weights: the timed runs rotated over copies of at least coldBytes together.
        expect(k.tuned!.weightCopies).toBeGreaterThan(1)
        const ceiling = kind === 'gemv' ? res.copy!.gbps : res.fma!.gflops
        expect(k.tuned!.fraction).toBeCloseTo((kind === 'gemv' ? k.tuned!.gbps : k.tuned!.tflops * 1e3) / ceiling, 10)
        // Winner re-timed against the default, unless the default itself won selection.
        if (k.tuned!.configKey === k.default!.configKey) expect(k.confirmation).toBeNull()
        else expect(k.confirmation?.rounds).toBe(res.settings.confirmRounds)
      }
    }
    expect(res.profile.map((p) => p.kernel)).toEqual(['gemv q4_0'])
    const md = readFileSync(join(out, 'results.md'), 'utf8')
    expect(md).toContain(`| ${TABLE_COLUMNS.join(' | ')} |`)
    expect(md).toMatch(/^- profile gemv q4_0 1x1792x512: /m)
    expect(readFileSync(join(out, 'kit.log'), 'utf8')).toContain('correctness gemm q3_0')
  }, 300_000)

  it('says what is missing when the kit was not packed', () => {
    const r = spawnSync('bash', [join(ROOT, 'bench/gpu-kernels-kit/run.sh')], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, KIT: join(dir, 'nothing'), OUT: join(dir, 'out2') } })
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/deno\.xz is missing|MANIFEST\.json is missing/)
  })
})
