/**
 * WebGPU soak (issue 34): the Deno WebGPU suites run RUNS times in a row under CPU load, to show
 * that their teardown no longer corrupts the heap at process exit. A CI run once printed
 * `ok | 20 passed` for packages/gpu-kernels and then died with glibc's
 * `malloc_consolidate(): unaligned fastbin chunk detected`; six runs of the suite alone did not
 * crash, so one clean run proves nothing. Each run is `deno test` on the three WebGPU test files,
 * started as CI starts it (the test shim's config), on the real deno binary so that a death by a
 * signal is seen as that signal and not as the npm wrapper's exit 1.
 *
 * A run fails when deno exits non-zero or by a signal, or when its output has a panic or a glibc
 * heap message, even after `ok`. LOAD busy-looping processes (default 2: as many as CI's cores)
 * compete with it for the CPU throughout. HEAP_CHECK=1 (the default where glibc has it) preloads
 * glibc's malloc debugging library with MALLOC_CHECK_=3 and MALLOC_PERTURB_, so that a use of
 * freed memory aborts instead of passing by luck. Results are written after every run.
 *
 *   pnpm bench webgpu-soak                      (RUNS=30 PARALLEL=1 LOAD=2 HEAP_CHECK=1)
 * Writes bench/results/webgpu-soak.json: date, argv, machine, Deno, Mesa and adapter, settings,
 * and per run the exit code, signal, seconds, the test summary line and the output's tail.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, totalmem } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const OUT = join(ROOT, 'bench/results/webgpu-soak.json')
const int = (name: string, fallback: number, min: number): number => {
  const v = Number(process.env[name] ?? fallback)
  if (!(Number.isInteger(v) && v >= min)) throw new Error(`${name} must be a whole number >= ${min}, got ${process.env[name]}`)
  return v
}
const RUNS = int('RUNS', 30, 1)
const LOAD = int('LOAD', 2, 0)
const TIMEOUT_S = int('TIMEOUT_S', 900, 10)
// Runs at a time: each is load for the others too, and on a busy 2-core machine 30 runs one
// after another take over an hour and a half.
const PARALLEL = int('PARALLEL', 1, 1)
const MALLOC_DEBUG = '/usr/lib/x86_64-linux-gnu/libc_malloc_debug.so.0'
const HEAP_CHECK = (process.env.HEAP_CHECK ?? (existsSync(MALLOC_DEBUG) ? '1' : '0')) === '1'
const SUITES = [
  'packages/gpu-kernels/src/gpu-low-bit.test.ts',
  'packages/gpu-kernels/src/gpu.test.ts',
  'packages/metal-marlin-autotune/src/adapters/webgpu.test.ts',
]
const DENO_ARGS = ['test', '-A', '--no-check', '--config', 'tooling/test-shim/deno.json', ...SUITES]
// The npm package's binary itself: its bin.cjs wrapper turns a signal into exit code 1.
const DENO = [join(ROOT, 'node_modules/deno/deno'), join(ROOT, 'node_modules/.bin/deno')].find(existsSync)
if (!DENO) throw new Error('deno is not installed (node_modules/deno/deno is missing): run pnpm install')
// eslint-disable-next-line no-control-regex
const plain = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '')
// What a native crash leaves in the output even when the exit status hides it.
const CRASH = /malloc|free\(\)|double free|corrupt|fastbin|panicked|Segmentation|Aborted|SIGSEGV|SIGABRT/

function tryRun(cmd: string, args: string[]): string | null {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 60_000 }).trim()
  } catch {
    return null
  }
}

const ADAPTER_JS = 'const a = await navigator.gpu.requestAdapter(); console.log(JSON.stringify(a ? { ...["vendor","architecture","device","description"].reduce((o, k) => ({ ...o, [k]: a.info[k] }), {}), features: [...a.features].sort() } : null))'
const adapterText = tryRun(DENO, ['eval', ADAPTER_JS])
const machine = {
  cpu: cpus()[0]?.model ?? 'unknown',
  logicalCores: cpus().length,
  memGiB: Math.round(totalmem() / 2 ** 30),
  kernel: tryRun('uname', ['-sr']),
}
const versions = {
  deno: tryRun(DENO, ['--version'])?.split('\n')[0] ?? null,
  mesaVulkanDrivers: tryRun('dpkg-query', ['-W', '-f=${Version}', 'mesa-vulkan-drivers']),
  libvulkan1: tryRun('dpkg-query', ['-W', '-f=${Version}', 'libvulkan1']),
  glibc: tryRun('ldd', ['--version'])?.split('\n')[0] ?? null,
}
const commit = tryRun('git', ['-C', ROOT, 'rev-parse', 'HEAD'])
const dirty = (tryRun('git', ['-C', ROOT, 'status', '--porcelain', '--untracked-files=no']) ?? '') !== ''

interface Run {
  run: number
  exitCode: number | null
  signal: string | null
  seconds: number
  summary: string | null
  crashText: string | null
  passed: boolean
  tail: string
}

function once(i: number): Promise<Run> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' }
    if (HEAP_CHECK) Object.assign(env, { LD_PRELOAD: MALLOC_DEBUG, MALLOC_CHECK_: '3', MALLOC_PERTURB_: '165' })
    const t0 = performance.now()
    const child = spawn(DENO!, DENO_ARGS, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let text = ''
    child.stdout.on('data', (c) => (text += c))
    child.stderr.on('data', (c) => (text += c))
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_S * 1000)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      const out = plain(text)
      const summary = out.split('\n').filter((l) => /^(ok|FAILED) \| /.test(l)).at(-1)?.trim() ?? null
      const crashLine = out.split('\n').find((l) => CRASH.test(l) && !/ \.\.\. ok/.test(l))?.trim() ?? null
      resolve({
        run: i,
        exitCode: code,
        signal,
        seconds: Math.round(performance.now() - t0) / 1000,
        summary,
        crashText: crashLine,
        passed: code === 0 && signal === null && crashLine === null && summary?.startsWith('ok |') === true,
        tail: out.slice(-1500),
      })
    })
  })
}

// Load: LOAD busy loops, each its own process, ended by pid when the soak ends (or is interrupted).
const load: ChildProcess[] = []
for (let i = 0; i < LOAD; i++) load.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }))
const stopLoad = () => { for (const p of load) p.kill('SIGKILL') }
process.on('exit', stopLoad)
process.on('SIGINT', () => process.exit(130))
process.on('SIGTERM', () => process.exit(143))

const started = new Date().toISOString()
const runs: Run[] = []
function write(done: boolean): void {
  mkdirSync(dirname(OUT), { recursive: true })
  const failed = runs.filter((r) => !r.passed)
  writeFileSync(OUT, JSON.stringify({
    what: 'the Deno WebGPU suites run repeatedly under CPU load; a run fails on a non-zero exit, a signal, or a panic/heap message in its output',
    started,
    finished: done ? new Date().toISOString() : null,
    argv: process.argv,
    command: [DENO, ...DENO_ARGS],
    commit,
    dirtyTree: dirty,
    machine,
    versions,
    adapter: adapterText ? JSON.parse(adapterText) : null,
    settings: { runs: RUNS, parallel: PARALLEL, loadProcesses: LOAD, heapCheck: HEAP_CHECK ? { LD_PRELOAD: MALLOC_DEBUG, MALLOC_CHECK_: '3', MALLOC_PERTURB_: '165' } : false, timeoutS: TIMEOUT_S },
    loadAverageAtEnd: loadavg(),
    summary: { completed: runs.length, passed: runs.length - failed.length, failed: failed.length, signals: failed.filter((r) => r.signal).map((r) => `${r.run}: ${r.signal}`) },
    runs,
  }, null, 2) + '\n')
}

console.log(`webgpu-soak: ${RUNS} runs of ${SUITES.length} WebGPU suites, ${PARALLEL} at a time, ${LOAD} load processes, heap check ${HEAP_CHECK ? 'on' : 'off'}; adapter ${adapterText ?? 'none'}`)
let next = 1
async function worker(): Promise<void> {
  while (next <= RUNS) {
    const i = next++
    const r = await once(i)
    runs.push(r)
    runs.sort((a, b) => a.run - b.run)
    write(false)
    console.log(`run ${i}/${RUNS}: ${r.passed ? 'ok' : 'FAILED'} exit ${r.exitCode ?? '-'} signal ${r.signal ?? '-'} ${r.seconds.toFixed(0)} s | ${r.summary ?? 'no summary'}${r.crashText ? ` | ${r.crashText}` : ''}`)
  }
}
await Promise.all(Array.from({ length: PARALLEL }, worker))
write(true)
stopLoad()
const bad = runs.filter((r) => !r.passed).length
console.log(`webgpu-soak: ${RUNS - bad} of ${RUNS} runs passed`)
process.exit(bad ? 1 : 0)
