/** `kerneltune autotune select`: reads a tuned config and answers one selection, with provenance. */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { KerneltuneError } from '@kerneltune/core'
import { BIT_WIDTHS, configId, MixedBpwAutoTuner } from '@kerneltune/metal-marlin-autotune'
import { defineCommand } from '../../cli/command.ts'
import { keyValues } from '../../cli/output.ts'
import { EXIT } from '../../cli/run.ts'

export const selectCommand = defineCommand({
  name: 'select',
  summary: 'Pick the kernel config for a batch, hidden size and bit widths from a tuned config file.',
  description:
    'Selection order as Metal Marlin: exact (batch, hidden, bits), else the nearest batch and then the nearest hidden size (one candidate), else the default for the narrowest bit width. The answer says which step found it and how far the key was. Accepts files in the upstream shape, with "2,4" or "(2, 4)" bit keys.',
  flags: [
    { name: 'config', type: 'string', description: 'Tuned config JSON (from kerneltune autotune, or Metal Marlin export_config).', valueName: 'FILE' },
    { name: 'batch', type: 'integer', description: 'Batch size.', min: 1 },
    { name: 'hidden', type: 'integer', description: 'Hidden size.', min: 1 },
    { name: 'bits', type: 'list', description: 'Bit widths of the layer.', choices: BIT_WIDTHS.map(String), default: ['4'] },
    { name: 'fallback', type: 'boolean', description: 'Fall back to the default config when the table has nothing (--no-fallback to exit 3 instead).', default: true },
  ],
  examples: ['kerneltune autotune select --config autotune.json --batch 6 --hidden 4096 --bits 2,4', 'kerneltune autotune select --config autotune.json --batch 1 --hidden 512 --bits 4 --json'],
  jsonOutput: '{ selection: { method: "exact"|"nearest_batch"|"nearest_hidden"|"default", key: {batch,hidden,bits}|null, distance: {batch,hidden}|null, config_id, config: KernelConfig } | null, request: {batch,hidden,bits} }',
  run(ctx) {
    const { config: file, batch, hidden } = ctx.flags
    if (!file || batch === undefined || hidden === undefined) {
      throw new KerneltuneError('INVALID_INPUT', 'select needs --config FILE, --batch N and --hidden N')
    }
    const path = resolve(ctx.io.cwd, file)
    let text: string
    try {
      text = readFileSync(path, 'utf8')
    } catch (err) {
      throw new KerneltuneError('NOT_FOUND', `cannot read ${path}: ${(err as Error).message}; create one with kerneltune autotune --quick --output ${file}`)
    }
    const tuner = MixedBpwAutoTuner.loadConfig(text, { configPath: path })
    const bits = (ctx.flags.bits ?? ['4']).map(Number)
    const s = tuner.selectKernel(batch, hidden, bits, ctx.flags.fallback ?? true)
    const request = { batch, hidden, bits }
    if (ctx.json) {
      ctx.printJson({ selection: s && { method: s.method, key: s.key, distance: s.distance, config_id: configId(s.config), config: s.config }, request })
    } else if (!s) {
      ctx.io.stdout(`no table entry for batch ${batch}, hidden ${hidden}, bits ${bits.join(',')} (fallback off)\n`)
    } else {
      ctx.io.stdout(keyValues([
        ['method', s.method],
        ['from key', s.key ? `batch ${s.key.batch}, hidden ${s.key.hidden}, bits ${s.key.bits}` : '(default for the narrowest bit width)'],
        ['distance', s.distance ? `batch ${s.distance.batch}, hidden ${s.distance.hidden}` : '-'],
        ['kernel', s.config.kernel_name],
        ['config', configId(s.config)],
        ['tiles', `${s.config.tile_size_m}x${s.config.tile_size_n}`],
        ['simdgroups', `${s.config.num_simdgroups} (${8 * s.config.num_simdgroups} WGSL threads)`],
        ['fp32 acc', s.config.use_fp32_acc],
      ]))
    }
    return s ? EXIT.OK : EXIT.CHECK_FAILED
  },
})
