/**
 * Which device measures a run, in the terms the distributed queues use (distributed/names.ts):
 * a device is named by its name or by the 16-hex fingerprint a worker prints, and two names are
 * the same device when their ids are equal. The in-process queue measures on this machine only,
 * so a run that requires another device is refused before it starts (issue 23 item 20).
 */
import { isModelFileBackend, KerneltuneError, type MeasurementBackend, type Registry } from '@kerneltune/core'
import { backendForRun, deviceFingerprint, findBackend } from '@kerneltune/tuner'

/** A device's id: the fingerprint a worker printed, or the fingerprint of its name. */
export const deviceId = (device: string): string => (/^[0-9a-f]{16}$/.test(device) ? device : deviceFingerprint(device))

async function named(b: MeasurementBackend): Promise<string | undefined> {
  try {
    return b.device ? await b.device() : undefined
  } catch {
    return undefined // not on this machine
  }
}

/**
 * The device this process would measure the run on, as a worker would announce it: the run's
 * backend's device, else the first real backend's that names one (worker.ts resolveDevice).
 */
async function localDevice(registry: Registry, backend: MeasurementBackend): Promise<string | undefined> {
  const own = await named(backend)
  if (own) return own
  for (const b of registry.list('measurement-backend')) {
    if (b.simulated || !b.device) continue
    const d = await named(b)
    if (d) return d
  }
  return undefined
}

export interface DeviceRequest { readonly backend: string; readonly modelPath?: string | undefined; readonly requireDevice?: string | undefined }

/**
 * Refuses (DEVICE_UNAVAILABLE, naming both devices and the ways out) a run whose requireDevice is
 * not this machine's device. A backend the registry does not know is left to createRun to name.
 */
export async function requireLocalDevice(registry: Registry, request: DeviceRequest): Promise<void> {
  const want = request.requireDevice
  if (!want) return
  const plugin = findBackend(registry, request.backend)
  if (!plugin || (isModelFileBackend(plugin) && !request.modelPath)) return
  const backend = backendForRun(registry, { backend: plugin.name, target: { modelPath: request.modelPath } })
  const have = await localDevice(registry, backend)
  if (have !== undefined && deviceId(have) === deviceId(want)) return
  const here = have === undefined ? 'no backend of this server names a device it measures on' : `this server measures on "${have}" (id ${deviceId(have)})`
  throw new KerneltuneError('DEVICE_UNAVAILABLE', `the run requires device "${want}" (id ${deviceId(want)}), but ${here}, and without --redis it dispatches to no other machine; send the run to a server on that device, start this server with --redis so that a kerneltune worker on that device measures it, or leave out requireDevice`)
}
