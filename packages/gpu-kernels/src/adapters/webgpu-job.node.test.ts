import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { denoRunnerScript, runWebGpuJob } from './webgpu-job.node.ts'

describe('runWebGpuJob', () => {
  it('should find the job script beside it', () => {
    expect(denoRunnerScript()).toMatch(/deno-runner\.(ts|js)$/)
    expect(existsSync(denoRunnerScript())).toBe(true)
  })

  it('should fail with DEVICE_UNAVAILABLE when deno cannot be started', async () => {
    await expect(runWebGpuJob({ script: denoRunnerScript(), job: { type: 'info' }, deno: '/nonexistent/deno', mode: 'deno' })).rejects.toMatchObject({ code: 'DEVICE_UNAVAILABLE' })
  })
})
