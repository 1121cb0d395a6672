import { describe, expect, it } from 'vitest'
import { cpuDevice, deviceFromNvidiaSmi } from './serving-session.node.ts'

describe('deviceFromNvidiaSmi (issue 34: a results file names the GPU the server ran on)', () => {
  const cpu = 'CPU: Intel(R) Xeon(R) Processor (16 logical cores)'

  it('should name the GPU first and the host CPU after it', () => {
    expect(deviceFromNvidiaSmi('NVIDIA H100 80GB HBM3, 580.159.04, 81559 MiB\n', cpu))
      .toBe('GPU: NVIDIA H100 80GB HBM3 (driver 580.159.04, 81559 MiB); host CPU: Intel(R) Xeon(R) Processor (16 logical cores)')
  })

  it('should list every GPU nvidia-smi answers for', () => {
    expect(deviceFromNvidiaSmi('NVIDIA H200, 580.159.04, 143771 MiB\nNVIDIA H200, 580.159.04, 143771 MiB\n', cpu))
      .toBe(`GPU: NVIDIA H200 (driver 580.159.04, 143771 MiB), NVIDIA H200 (driver 580.159.04, 143771 MiB); host ${cpu}`)
  })

  it('should name the CPU alone where no GPU answered', () => {
    expect(deviceFromNvidiaSmi(undefined, cpu)).toBe(cpu)
    expect(deviceFromNvidiaSmi('\n', cpu)).toBe(cpu)
  })

  it('should describe this machine\'s CPU by its model and logical cores', () => {
    expect(cpuDevice()).toMatch(/^CPU: .+ \(\d+ logical cores\)$/)
  })
})
