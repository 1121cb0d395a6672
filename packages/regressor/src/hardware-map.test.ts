import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { getHardwarePreset } from '@kerneltune/features'
import { presetBackends, probeQuery, verdictOf, type MapRow } from '../scripts/hardware-map.ts'
import { pretrainedModel } from './pretrained.ts'
import { hardwareClass } from './physics-terms.ts'

const report = readFileSync(fileURLToPath(new URL('../assets/accuracy.md', import.meta.url)), 'utf8')
/** The rows of the report's hardware table, by class and backend (a class and backend can have two). */
const tableRows = report.split('\n').filter((l) => /^\| (nvidia|amd|apple|intel)-[a-z]+ \| [a-z]+ \|/.test(l))

describe('which hardware the model knows (issue 38: derived, not written by hand)', () => {
  it('should probe a preset on its usual backend and, for NVIDIA, AMD and Intel GPUs, on Vulkan', () => {
    expect(presetBackends(getHardwarePreset('rx-7900-xtx')!)).toEqual(['rocm', 'vulkan'])
    expect(presetBackends(getHardwarePreset('m2-ultra')!)).toEqual(['metal'])
    expect(presetBackends(getHardwarePreset('arc-pro-b70')!)).toEqual(['sycl', 'vulkan'])
    expect(presetBackends(getHardwarePreset('gaudi2')!)).toEqual([])
  })

  it('should say per phase what a query extrapolates over', () => {
    expect(verdictOf({ decode: [], prefill: [] })).toBe('inside the data')
    expect(verdictOf({ decode: ['class:amd-gpu'], prefill: ['class:amd-gpu'] })).toBe('extrapolates: `class:amd-gpu`')
    expect(verdictOf({ decode: ['class:amd-hbm'], prefill: [] })).toBe('decode extrapolates: `class:amd-hbm`; prefill inside the data')
  })

  it.each([['rx-7900-xtx', 'vulkan'], ['rx-7900-xtx', 'rocm'], ['rtx-4090', 'cuda'], ['mi300x', 'rocm'], ['m4-max', 'metal']])('should list %s on %s with what predict says it extrapolates over', (id, backend) => {
    const model = pretrainedModel()
    const p = getHardwarePreset(id)!
    const unseen = { decode: [...(model.predict(probeQuery(p, backend, 'decode')).extrapolation ?? [])].sort(), prefill: [...(model.predict(probeQuery(p, backend, 'prefill')).extrapolation ?? [])].sort() } satisfies MapRow['unseen']
    const line = tableRows.find((l) => l.startsWith(`| ${hardwareClass(probeQuery(p, backend, 'decode'))} | ${backend} |`) && l.split(' | ')[4]!.split(', ').includes(id))
    expect(line).toBeDefined()
    expect(line!.endsWith(`| ${verdictOf(unseen)} |`)).toBe(true)
  })

  it('should name a Radeon an extrapolation, since no Radeon row is in the data', () => {
    const radeon = tableRows.filter((l) => l.startsWith('| amd-gpu |'))
    expect(radeon.length).toBeGreaterThan(0)
    for (const l of radeon) expect(l).toMatch(/\| – \| – \| .* \| extrapolates: .*`class:amd-gpu`/)
  })
})
