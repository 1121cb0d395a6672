import { describe, expect, it } from 'vitest'
import { keptServers, parallelLaunches, serverSweepSettings, storedServingSettings } from './server-run-settings.node.ts'

const GiB = 2 ** 30

describe('serverSweepSettings', () => {
  it('should launch one server at a time on a CPU and, on a GPU, as many as the host cores within the kept servers', () => {
    expect(parallelLaunches(8, 'cpu', 16)).toBe(1)
    expect(parallelLaunches(8, 'gpu', 16)).toBe(8)
    expect(parallelLaunches(8, 'gpu', 4)).toBe(4)
  })

  it('should keep as many servers as half the free memory holds, at least one and at most one per arm', () => {
    expect(keptServers(5, GiB, 100 * GiB)).toBe(5)
    expect(keptServers(5, GiB - 256 * 2 ** 20, 4 * GiB)).toBe(2)
    expect(keptServers(5, 10 * GiB, GiB)).toBe(1)
  })

  it('should store a pre-launched interleaved sweep: its request count, kept servers, launches and the engine\'s warm-up skipped', () => {
    const s = serverSweepSettings({ design: 'interleaved', arms: 4, modelBytes: GiB, hardwareKind: 'cpu', prelaunch: true, warmups: 1, requests: 8, free: 100 * GiB })
    expect(s).toEqual({ serving: { requests: 8, keepServers: 4, parallelLaunches: 1, skipEngineWarmup: true }, revisitWarmups: 0, prelaunch: true })
    // Fewer kept than arms: a revisit may find its server stopped, and warms it again.
    expect(serverSweepSettings({ design: 'interleaved', arms: 4, modelBytes: GiB, hardwareKind: 'cpu', prelaunch: false, warmups: 2, requests: 3, free: 5 * GiB }))
      .toEqual({ serving: { requests: 3, keepServers: 2, serialWarmups: true }, revisitWarmups: 2, prelaunch: false })
    // Sequential never returns to a combination: the current one's server spans its chunks.
    expect(serverSweepSettings({ design: 'sequential', arms: 4, modelBytes: GiB, hardwareKind: 'gpu', prelaunch: true, warmups: 1, requests: 8 }).serving).toEqual({ requests: 8, keepServers: 1, serialWarmups: true })
  })

  it('should read the stored settings back and refuse ones it cannot read', () => {
    expect(storedServingSettings(undefined)).toEqual({})
    expect(storedServingSettings({ serving: { requests: 8, keepServers: 2 } })).toEqual({ requests: 8, keepServers: 2 })
    expect(() => storedServingSettings({ serving: { requests: 0 } })).toThrow(/serving settings/)
  })
})
