/**
 * `kerneltune autotune`: Metal Marlin's mixed bit-width autotuner, on real WGSL kernels. It tunes
 * under Deno (the kernels need WebGPU, which Node lacks), writes the config in the upstream JSON
 * shape, and `autotune select` reads it back.
 */
import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { KerneltuneError } from '@kerneltune/core'
import { BIT_WIDTHS, QUICK_JOB as QUICK, autotuneJobFor, deviceConfigFileName } from '@kerneltune/metal-marlin-autotune'
import type { AutotuneJobResult } from '@kerneltune/metal-marlin-autotune/webgpu'
import { defineCommand } from '../cli/command.ts'
import { fmt, progressBar, table, type Progress } from '../cli/output.ts'
import { EXIT } from '../cli/run.ts'
import { runWebGpuJob } from '@kerneltune/gpu-kernels/webgpu-job'
import { registryCandidates, type CellRegistry } from '@kerneltune/kernel-lab/node'
import { selectCommand } from './autotune/select.ts'
import { REGISTRY_FLAGS } from './registry-target.ts'
import { withRegistry } from './registry.ts'

const ints = (flag: string, values: readonly string[] | undefined, min: number): number[] | undefined => {
  if (!values) return undefined
  return values.map((v) => {
    const n = Number(v)
    if (!Number.isInteger(n) || n < min) throw new KerneltuneError('INVALID_INPUT', `--${flag} expects whole numbers ≥ ${min}, got "${v}"`)
    return n
  })
}

/** The job script, through the package's `./deno-autotune` export (a .ts file in the workspace). */
function jobScript(): string {
  try {
    return fileURLToPath(import.meta.resolve('@kerneltune/metal-marlin-autotune/deno-autotune'))
  } catch {
    return fileURLToPath(new URL('../../../../packages/metal-marlin-autotune/src/adapters/deno-autotune.ts', import.meta.url))
  }
}

export const autotuneCommand = defineCommand({
  name: 'autotune',
  summary: 'Tune mixed bit-width kernel configs on real WGSL kernels and write a lookup table (Metal Marlin style).',
  description:
    'For every bit width, batch size and hidden size, times each candidate config (tiles, simdgroups, variant) on the matching WGSL kernel from @kerneltune/gpu-kernels after checking its result against a CPU reference. The fastest is then re-timed against the cell\'s default config in fresh, randomly ordered paired rounds (--confirm-rounds); the lookup table keeps it only when the fresh 95% interval of its speed-up lies above 1, else it keeps the default (the selection speed-up alone is biased upward). Configs that cannot run or give a wrong answer are logged and skipped. Runs under Deno (WebGPU); on a machine without a GPU, Mesa lavapipe serves. Without --output the file is named after the device: autotune_mixed_bpw_<device>.json.',
  flags: [
    { name: 'quick', type: 'boolean', description: `Small run: batches ${QUICK.batchSizes}, hidden ${QUICK.hiddenSizes}, bits ${QUICK.bits}, warmup ${QUICK.warmup}, ${QUICK.iterations} iterations, the guide's variant per batch.` },
    { name: 'batch-sizes', type: 'list', description: 'Batch sizes (default 1,4,8,16).', valueName: 'LIST' },
    { name: 'hidden', type: 'list', description: 'Hidden sizes, multiples of 32 (default 2048,4096).', valueName: 'LIST' },
    { name: 'bits', type: 'list', description: 'Bit widths to tune (default 4,8; 2 and 3 have no kernel on this backend and are skipped).', choices: BIT_WIDTHS.map(String) },
    { name: 'mixed', type: 'boolean', description: 'Also tune the combined bit tuple of --bits (a mixed layer: one expert per width, latencies added).' },
    { name: 'variants', type: 'string', description: 'guide: only the guide\'s variant per batch (decode 1, prefill 2–16, base 17–32, large_batch 33+); all: decode, prefill, base (+ large_batch above 32). Default all, guide with --quick.', choices: ['guide', 'all'] },
    { name: 'iterations', type: 'integer', description: 'Timed iterations per config (default 20).', min: 1 },
    { name: 'warmup', type: 'integer', description: 'Warm-up runs per config (default 5).', min: 0 },
    { name: 'confirm-rounds', type: 'integer', description: `Paired rounds re-timing each cell's winner and default afresh, in random order (default 20, ${QUICK.confirmRounds} with --quick; 0: off). The table keeps the winner only when the fresh 95% interval of the speed-up lies above 1; the selection speed-up is biased upward (winner's curse).`, min: 0 },
    { name: 'intermediate-multiplier', type: 'integer', description: 'Output features = multiplier × hidden, as upstream.', min: 1, default: 4 },
    { name: 'output', alias: 'o', type: 'string', description: 'Where to write the tuned config JSON.', valueName: 'FILE' },
    { name: 'registry-kernels', type: 'boolean', description: 'Also measure the approved registry kernel of each cell\'s kernel family (in the sandbox, verified at the cell\'s problem) against the cell\'s best config; proposed and deprecated ones are listed as excluded. The registry is the embedded store (--db, --as) or a server (--server --token).' },
    ...REGISTRY_FLAGS,
  ],
  subcommands: [selectCommand],
  examples: [
    'kerneltune autotune --quick --output autotune.json',
    'kerneltune autotune --batch-sizes 1,4,8,16 --hidden 2048,4096 --bits 4,8 --iterations 20 --warmup 5 --output autotune.json',
    'kerneltune autotune select --config autotune.json --batch 6 --hidden 4096 --bits 2,4',
  ],
  jsonOutput:
    '{ ok, output, device_name, seconds, timing: "timestamp"|"wall", cells: [{ bits, batch, hidden, tried, failed, best: { config_id, kernel_name, latency_ms, throughput_gbps, kernel: { kind, format, params, max_abs_error, gflops, samples } } | null, default: { config_id, success, latency_ms } | null, selection_speedup (biased upward) | null, confirmation: { method, rounds, speedup, low, high, level, verdict: faster|no-reliable-win|slower, baselineMedianMs, candidateMedianMs, baselineMs, candidateMs, firstInRound } | null, kept: tuned|default|null, registry?: { family, selected: { id, name, verified, latency_ms, median_ms, faster_than_best, error? } | null, excluded: [{ id, name, status, why }] } }], skipped: [{ config_id, bits, batch, hidden, error }], statistics }',
  async run(ctx) {
    const f = ctx.flags
    const job = autotuneJobFor({
      quick: f.quick, bits: ints('bits', f.bits, 2), batchSizes: ints('batch-sizes', f.batchSizes, 1), hiddenSizes: ints('hidden', f.hidden, 32), warmup: f.warmup, iterations: f.iterations,
      variants: f.variants, mixed: f.mixed, intermediateMultiplier: f.intermediateMultiplier, confirmRounds: f.confirmRounds,
    })
    const badHidden = job.hiddenSizes.find((h) => h % 32 !== 0)
    if (badHidden !== undefined) throw new KerneltuneError('INVALID_INPUT', `--hidden ${badHidden} is not a multiple of 32 (the quantisation block)`)
    let bar: Progress | undefined
    const done = await runWebGpuJob<AutotuneJobResult>({
      script: jobScript(),
      job,
      onProgress: (p) => {
        if (!bar) {
          if (!ctx.json) ctx.io.stderr(`tuning on ${p.note ?? 'WebGPU'}: ${p.total} configs\n`)
          bar = progressBar(ctx.io, 'autotune', p.total)
        }
        bar.update(p.done, p.done > 0 ? p.note : '')
      },
      // Skipped configs are logged, never fatal; the interactive bar would garble them.
      onLog: (line) => {
        if (!ctx.json && !ctx.io.interactive) ctx.io.stderr(`${line}\n`)
      },
    })
    bar?.done()
    const { timing, skipped } = done
    const output = resolve(ctx.io.cwd, f.output ?? deviceConfigFileName(done.device_name))
    writeFileSync(output, JSON.stringify(done.config, null, 2) + '\n')
    const tuned = done.cells.filter((c) => c.best).length
    let registry: (CellRegistry | null)[] = []
    if (f.registryKernels) {
      const entries = await withRegistry(f, ctx.io.env, (t) => t.list())
      registry = await registryCandidates(done.cells, entries, { warmup: job.warmup, iterations: job.iterations, intermediateMultiplier: job.intermediateMultiplier ?? 4 })
    }
    const cells = done.cells.map((c, i) => (registry[i] ? { ...c, registry: registry[i] } : c))
    if (ctx.json) {
      ctx.printJson({ ok: tuned > 0, output, device_name: done.device_name, seconds: done.seconds, timing, cells, skipped, statistics: done.statistics })
    } else {
      const rows = done.cells.map((c) => [
        c.bits.join(','), c.batch, c.hidden,
        c.best ? c.best.config_id : '(none succeeded)',
        c.best?.kernel ? `${c.best.kernel.kind} ${Object.entries(c.best.kernel.params).map(([k, v]) => `${k}=${v}`).join(' ')}` : '',
        c.best ? fmt(c.best.latency_ms, 3) : '', c.best ? fmt(c.best.throughput_gbps, 2) : '', c.tried, c.failed,
        c.selection_speedup !== null ? `${fmt(c.selection_speedup, 2)}x` : '',
        c.confirmation ? `${fmt(c.confirmation.speedup, 2)}x [${fmt(c.confirmation.low, 2)}, ${fmt(c.confirmation.high, 2)}]` : c.kept === 'default' ? 'default won' : '',
        c.kept ?? '',
      ])
      ctx.io.stdout(table(rows, ['bits', 'batch', 'hidden', 'best config', 'kernel', 'mean ms', 'GB/s', 'tried', 'skipped', 'vs default, selection (biased)', 'confirmed [95% CI]', 'kept']))
      const unconfirmed = done.cells.filter((c) => c.confirmation && c.kept === 'default').length
      if (job.confirmRounds) ctx.io.stdout(`confirmed speed-ups: ${job.confirmRounds} fresh interleaved rounds of winner vs default (geometric mean of per-round ratios, 95% paired t interval on log ratios).${unconfirmed ? ` ${unconfirmed} cell(s) showed no reliable win: the table keeps their default.` : ''}\n`)
      for (const [i, r] of registry.entries()) {
        const c = done.cells[i]!
        if (r) ctx.io.stdout(`registry ${r.family} bits ${c.bits.join(',')} batch ${c.batch} hidden ${c.hidden}: ${r.selected ? `${r.selected.name} (${r.selected.id}) ${r.selected.verified ? `${fmt(r.selected.latency_ms!, 3)} ms mean in the sandbox (wall), ${r.selected.faster_than_best ? 'faster' : 'not faster'} than the best config` : `not correct here: ${r.selected.error}`}` : 'no approved kernel'}${r.excluded.length ? `; excluded: ${r.excluded.map((e) => `${e.name} (${e.why})`).join(', ')}` : ''}\n`)
      }
      ctx.io.stdout(`\n${tuned}/${done.cells.length} cells tuned on ${done.device_name} in ${fmt(done.seconds, 1)} s (${timing} timing, every timed config verified against the CPU reference); ${skipped.length} configs skipped.\nwrote ${output}\n`)
    }
    if (tuned === 0) return EXIT.FAILURE
    return EXIT.OK
  },
})
