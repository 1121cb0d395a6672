/// <reference types="@webgpu/types" />
/**
 * Device access. `openGpu` takes any `GPU` object (navigator.gpu in Deno and browsers, or one a
 * host passes in), so the package itself never imports a runtime module.
 */
import { KerneltuneError } from '@kerneltune/core'
import type { DeviceLimits } from './types.ts'

export interface GpuContext {
  device: GPUDevice
  adapterInfo: { vendor: string; architecture: string; device: string; description: string }
  hasTimestamps: boolean
  hasF16: boolean
  limits: DeviceLimits
}

/** The WebGPU entry point of this runtime, if it has one. */
export function runtimeGpu(): GPU | undefined {
  const nav = (globalThis as { navigator?: { gpu?: GPU } }).navigator
  return nav?.gpu
}

/** Opens the default adapter (of `gpu`, default navigator.gpu; null means none) (high-performance preference) with timestamp queries and f16 when offered. */
export async function openGpu(gpu: GPU | null | undefined = runtimeGpu()): Promise<GpuContext> {
  if (!gpu) {
    throw new KerneltuneError('DEVICE_UNAVAILABLE', 'this runtime has no WebGPU (navigator.gpu): run under Deno (deno run -A) or a browser; on a machine without a GPU install Mesa\'s CPU Vulkan driver (apt-get install -y mesa-vulkan-drivers)')
  }
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' })
  if (!adapter) {
    throw new KerneltuneError('DEVICE_UNAVAILABLE', 'WebGPU found no adapter: install a Vulkan driver (on a CPU-only Debian machine: apt-get install -y mesa-vulkan-drivers libvulkan1)')
  }
  const wanted: GPUFeatureName[] = []
  const hasTimestamps = adapter.features.has('timestamp-query')
  const hasF16 = adapter.features.has('shader-f16')
  if (hasTimestamps) wanted.push('timestamp-query')
  if (hasF16) wanted.push('shader-f16')
  const a = adapter.limits
  // Ask for the adapter's own limits (the device otherwise gets WebGPU's minimums).
  const device = await adapter.requestDevice({
    requiredFeatures: wanted,
    requiredLimits: {
      maxComputeInvocationsPerWorkgroup: a.maxComputeInvocationsPerWorkgroup,
      maxComputeWorkgroupSizeX: a.maxComputeWorkgroupSizeX,
      maxComputeWorkgroupSizeY: a.maxComputeWorkgroupSizeY,
      maxComputeWorkgroupStorageSize: a.maxComputeWorkgroupStorageSize,
      maxStorageBufferBindingSize: a.maxStorageBufferBindingSize,
      maxBufferSize: a.maxBufferSize,
    },
  })
  const info = adapter.info ?? ({} as GPUAdapterInfo)
  const d = device.limits
  return {
    device,
    adapterInfo: {
      vendor: String(info.vendor ?? ''),
      architecture: String(info.architecture ?? ''),
      device: String(info.device ?? ''),
      description: String(info.description ?? ''),
    },
    hasTimestamps,
    hasF16,
    limits: {
      maxComputeInvocationsPerWorkgroup: d.maxComputeInvocationsPerWorkgroup,
      maxComputeWorkgroupSizeX: d.maxComputeWorkgroupSizeX,
      maxComputeWorkgroupStorageSize: d.maxComputeWorkgroupStorageSize,
      maxComputeWorkgroupsPerDimension: d.maxComputeWorkgroupsPerDimension,
      maxStorageBufferBindingSize: d.maxStorageBufferBindingSize,
      hasF16,
      // Subgroups are reported, but no kernel uses them yet.
      hasSubgroups: adapter.features.has('subgroups' as GPUFeatureName),
    },
  }
}

/** What has to be released before a device is destroyed (buffers held in caches keyed by it). */
const releasers = new WeakMap<GPUDevice, (() => void)[]>()
const closed = new WeakSet<GPUDevice>()

/** Registers a release step for `device`, run by `closeGpu` before the device is destroyed. */
export function onCloseGpu(device: GPUDevice, release: () => void): void {
  const list = releasers.get(device)
  if (list) list.push(release)
  else releasers.set(device, [release])
}

/**
 * Waits for the device's queue to drain, releases what is cached on it (buffers first), then destroys
 * it. Destroying the device alone left cached buffers to the garbage collector, which freed them later
 * against a destroyed device: one Deno run under CI aborted with glibc heap corruption
 * ("malloc_consolidate(): invalid chunk size") after the autotune test had destroyed its device and
 * the next test file was running. A device left open is dropped when Deno disposes of the test
 * module's runtime (every module gets its own, with its own Vulkan instance), in whatever order its heap
 * is torn down; with work still queued, wgpu-core waits for it there and panics ("We timed out while
 * waiting on the last successful submission"). So the queue is drained first. A second call does nothing.
 */
export async function closeGpu(gpu: GpuContext): Promise<void> {
  const { device } = gpu
  if (closed.has(device)) return
  closed.add(device)
  const list = releasers.get(device) ?? []
  releasers.delete(device)
  // A lost device may never settle onSubmittedWorkDone; its `lost` promise says nothing runs on it.
  await Promise.race([device.queue.onSubmittedWorkDone(), device.lost]).catch(() => undefined)
  for (const release of list) release()
  device.destroy()
}

/** A human name for the device: the description, or vendor/architecture/device ids. */
export function deviceName(gpu: GpuContext): string {
  const i = gpu.adapterInfo
  return i.description || [i.vendor, i.architecture, i.device].filter(Boolean).join(' ') || 'unknown WebGPU device'
}

export function makeBuffer(device: GPUDevice, data: ArrayBufferView, usage: number): GPUBuffer {
  // WebGPU needs sizes in multiples of 4; storage bindings must not be empty.
  const size = Math.max(16, Math.ceil(data.byteLength / 4) * 4)
  const buffer = device.createBuffer({ size, usage: usage | GPUBufferUsage.COPY_DST, mappedAtCreation: true })
  new Uint8Array(buffer.getMappedRange()).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength))
  buffer.unmap()
  return buffer
}

/** Copies a GPU buffer back to the CPU. */
export async function readBuffer(device: GPUDevice, src: GPUBuffer, bytes: number): Promise<ArrayBuffer> {
  const staging = device.createBuffer({ size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST })
  const enc = device.createCommandEncoder()
  enc.copyBufferToBuffer(src, 0, staging, 0, bytes)
  device.queue.submit([enc.finish()])
  try {
    await staging.mapAsync(GPUMapMode.READ)
    const out = staging.getMappedRange().slice(0)
    staging.unmap()
    return out
  } finally {
    // Also when mapAsync fails (a lost device): the staging buffer is not left to the garbage collector.
    staging.destroy()
  }
}

/** Creates a compute pipeline, turning validation and compilation errors into a message. */
export async function createPipeline(device: GPUDevice, code: string, entryPoint: string): Promise<GPUComputePipeline> {
  device.pushErrorScope('validation')
  const module = device.createShaderModule({ code })
  let pipeline: GPUComputePipeline | undefined
  let failure: string | undefined
  try {
    pipeline = await device.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint } })
  } catch (err) {
    failure = err instanceof Error ? err.message : String(err)
  }
  const scoped = await device.popErrorScope()
  if (scoped || failure || !pipeline) {
    let detail = scoped?.message ?? failure ?? 'no pipeline'
    const info = await module.getCompilationInfo?.().catch(() => undefined)
    const msgs = info?.messages.filter((m) => m.type === 'error').map((m) => `${m.lineNum}:${m.linePos} ${m.message}`)
    if (msgs?.length) detail += `; ${msgs.join('; ')}`
    throw new Error(`shader did not compile: ${detail}`)
  }
  return pipeline
}
