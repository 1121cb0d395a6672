/**
 * kerneltune sandbox run FILE: runs a plain ES module (default export `(ctx) => result`) in the
 * Deno sandbox of @kerneltune/kernel-lab (no network, environment, other files, subprocesses or
 * FFI; a memory cap and a wall-clock limit) and reports its result or what was denied.
 * Exit 0 when the module returned, 3 when the sandbox stopped it (denied, timeout, memory,
 * crash, or it threw), 2 for a missing file or bad flags.
 */
import { existsSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { KerneltuneError } from '@kerneltune/core'
import { runInSandbox } from '@kerneltune/kernel-lab/node'
import { defineCommand } from '../cli/command.ts'
import { keyValues } from '../cli/output.ts'
import { usageError } from '../cli/args.ts'
import { EXIT } from '../cli/run.ts'

function readJsonFile(path: string, what: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'))
  } catch (e) {
    throw new KerneltuneError('INVALID_INPUT', `${what} ${path} is not readable JSON (${e instanceof Error ? e.message : String(e)}); pass a JSON file`)
  }
}

const runSub = defineCommand({
  name: 'run',
  summary: 'Run a module in the sandbox and report its result or what was denied',
  positionals: ['FILE'],
  flags: [
    { name: 'input', type: 'string', description: 'JSON file handed to the module as ctx.input', valueName: 'PATH' },
    { name: 'timeout-ms', type: 'integer', description: 'Wall-clock limit, start-up included', default: 20000, min: 100, max: 600000 },
    { name: 'memory-mb', type: 'integer', description: 'Memory cap (V8 heap; native allocations are capped at 4x plus 512 MB)', default: 512, min: 32, max: 16384 },
    { name: 'webgpu', type: 'boolean', description: 'Expose WebGPU as ctx.gpu', default: false },
  ] as const,
  jsonOutput: '{ outcome: ok|threw|denied|timeout|memory|crashed|invalid-module, ok, result?, error?: { name, message }, denied?, wallMs, exitCode, signal, limits, permissions, stderrTail }',
  examples: ['kerneltune sandbox run candidate.js', 'kerneltune sandbox run kernel.js --webgpu --timeout-ms 60000 --json'],
  async run(ctx) {
    const file = ctx.positionals[0]
    if (!file || ctx.positionals.length > 1) throw usageError('sandbox run takes exactly one FILE: the module to run')
    const path = resolve(ctx.io.cwd, file)
    if (!existsSync(path)) throw usageError(`no such file: ${path}`)
    const input = ctx.flags.input ? readJsonFile(resolve(ctx.io.cwd, ctx.flags.input), '--input') : null
    if (!ctx.json) ctx.io.stderr(`sandbox: running ${file} (limit ${ctx.flags.timeoutMs} ms, ${ctx.flags.memoryMb} MB)\n`)
    const report = await runInSandbox(readFileSync(path, 'utf8'), {
      input,
      limits: { timeoutMs: ctx.flags.timeoutMs, memoryMb: ctx.flags.memoryMb, webgpu: ctx.flags.webgpu },
    })
    if (ctx.json) ctx.printJson(report)
    else {
      ctx.io.stdout(keyValues([
        ['outcome', report.outcome],
        ...(report.denied ? [['denied', `${report.denied} access`] as [string, string]] : []),
        ...(report.ok ? [['result', JSON.stringify(report.result).slice(0, 2000)] as [string, string]] : []),
        ...(report.error ? [['error', `${report.error.name}: ${report.error.message}`] as [string, string]] : []),
        ['wall time', `${Math.round(report.wallMs)} ms`],
        ['permissions', report.permissions.join(' ')],
      ]))
    }
    return report.ok ? EXIT.OK : EXIT.CHECK_FAILED
  },
})

export const sandboxCommand = defineCommand({
  name: 'sandbox',
  summary: 'Run untrusted kernel modules in the Deno sandbox',
  subcommands: [runSub],
})
