/**
 * `kerneltune hardware list|detect|show NAME`: the hardware preset table with its sources, this
 * machine's CPU/RAM/NUMA/NVIDIA GPUs, and one preset in full.
 */
import { VENDORS } from '@kerneltune/core'
import { HARDWARE_PRESETS, findHardwarePreset, listHardwarePresets } from '@kerneltune/features'
import { detectHardware } from '@kerneltune/features/node'
import { usageError } from '../cli/args.ts'
import { defineCommand } from '../cli/command.ts'
import { fmt, keyValues, table } from '../cli/output.ts'

const list = defineCommand({
  name: 'list',
  summary: 'List the hardware presets (bandwidth, dense FP16 TFLOPS, SMs, L2, memory).',
  flags: [{ name: 'vendor', type: 'string', choices: VENDORS, description: 'Only this vendor.' }] as const,
  jsonOutput: 'HardwarePreset[]: { id, name, vendor, kind, memBwGbs, fp16Tflops, smCount?, l2CacheMb?, memoryGb?, computeCapability?, architecture?, unifiedMemory, backend? (usual backend: cuda, metal, vulkan, rocm, sycl, cpu), sources: string[], aliases: string[], notes? }',
  examples: ['kerneltune hardware list', 'kerneltune hardware list --vendor apple --json'],
  run(ctx) {
    const presets = listHardwarePresets(ctx.flags.vendor)
    if (ctx.json) return void ctx.printJson(presets)
    ctx.io.stdout(table(
      presets.map((p) => [p.id, p.name, fmt(p.memBwGbs), fmt(p.fp16Tflops), p.smCount ?? '', p.l2CacheMb ?? '', p.memoryGb ?? '', p.backend ?? '']),
      ['id', 'name', 'GB/s', 'TFLOPS', 'SMs/CUs', 'L2 MB', 'mem GB', 'backend'],
    ))
    ctx.io.stdout(`\n${presets.length} presets. Sources and notes: kerneltune hardware show ID\n`)
  },
})

const show = defineCommand({
  name: 'show',
  summary: 'Show one hardware preset with its sources (accepts ids and labels such as "RTX 4090").',
  positionals: ['NAME'],
  jsonOutput: 'HardwarePreset (see `hardware list --help`)',
  examples: ['kerneltune hardware show h100-sxm', 'kerneltune hardware show "Nvidia A100 GPU" --json'],
  run(ctx) {
    const name = ctx.positionals.join(' ')
    if (!name) throw usageError(`hardware show needs a NAME; accepted values: ${HARDWARE_PRESETS.map((p) => p.id).join(', ')}`)
    const p = findHardwarePreset(name)
    if (!p) throw usageError(`"${name}" is not a known hardware preset; accepted values: ${HARDWARE_PRESETS.map((h) => h.id).join(', ')}`)
    if (ctx.json) return void ctx.printJson(p)
    ctx.io.stdout(keyValues([
      ['id', p.id], ['name', p.name], ['vendor / kind', `${p.vendor} / ${p.kind}`], ['usual backend', p.backend ?? 'none'], ['architecture', p.architecture ?? ''],
      ['memory bandwidth', `${fmt(p.memBwGbs)} GB/s`], ['dense FP16/BF16', `${fmt(p.fp16Tflops)} TFLOPS`],
      ['SMs / CUs / cores', p.smCount ?? 'not published'], ['last-level cache', p.l2CacheMb !== undefined ? `${p.l2CacheMb} MB` : 'not published'],
      ['memory', p.memoryGb !== undefined ? `${p.memoryGb} GB${p.unifiedMemory ? ' (unified)' : ''}` : ''],
      ['compute capability', p.computeCapability ?? ''], ['aliases', p.aliases.join(', ')],
    ]))
    ctx.io.stdout('\nSources:\n' + p.sources.map((s) => `  - ${s}\n`).join(''))
    if (p.notes) ctx.io.stdout(`Notes: ${p.notes}\n`)
  },
})

const detect = defineCommand({
  name: 'detect',
  summary: "Detect this machine: CPU model, cores, threads, RAM, NUMA nodes, and NVIDIA GPUs via nvidia-smi.",
  description: 'A missing nvidia-smi is reported, not an error. GPUs whose names match a preset show its id.',
  jsonOutput: '{ cpu: { model, arch, platform, cores, threads, mhz?, ramGb, numaNodes, simd: { avx2, avx512f, fma, neon, amx } }, gpus: [{ index, name, memoryMb?, driver?, computeCapability?, preset? }], nvidiaSmi: "ok" | "absent" | "failed: ..." }',
  examples: ['kerneltune hardware detect', 'kerneltune hardware detect --json'],
  async run(ctx) {
    const d = await detectHardware()
    if (ctx.json) return void ctx.printJson(d)
    const simd = Object.entries(d.cpu.simd).filter(([, on]) => on).map(([k]) => k).join(' ') || 'none detected'
    ctx.io.stdout(keyValues([
      ['cpu', d.cpu.model], ['arch / platform', `${d.cpu.arch} / ${d.cpu.platform}`],
      ['cores / threads', `${d.cpu.cores} / ${d.cpu.threads}`], ['clock', d.cpu.mhz ? `${fmt(d.cpu.mhz, 0)} MHz` : 'unknown'],
      ['RAM', `${fmt(d.cpu.ramGb)} GiB`], ['NUMA nodes', d.cpu.numaNodes], ['SIMD', simd], ['nvidia-smi', d.nvidiaSmi],
    ]))
    if (d.gpus.length) {
      ctx.io.stdout('\n' + table(d.gpus.map((g) => [g.index, g.name, g.memoryMb ?? '', g.computeCapability ?? '', g.driver ?? '', g.preset ?? '(no preset)']), ['#', 'GPU', 'MiB', 'cc', 'driver', 'preset']))
    } else {
      ctx.io.stdout('\nNo NVIDIA GPU found.\n')
    }
  },
})

export const hardwareCommand = defineCommand({
  name: 'hardware',
  summary: 'Hardware presets (with sources) and detection of this machine.',
  subcommands: [list, detect, show],
})
