/**
 * A release's inventory in the conformance suite's shape. ONNX Runtime takes no command line, so
 * the check reads the two option files: session option keys and levels, the provider, and every
 * provider option key against that release's list (boolean options as "0"/"1").
 */
import type { EngineInventory, Translation } from '@kerneltune/core'
import { PROVIDERS, SDPA_KERNEL, type OrtProvider, type OrtRelease } from './releases.ts'

const SESSION_FILE = 'session_options.json'
const PROVIDER_FILE = 'provider_options.json'
const BOOLEAN_OPTIONS = new Set(['enable_cuda_graph', 'trt_fp16_enable', 'trt_bf16_enable', 'trt_cuda_graph_enable'])

/** A non-zero integer whose every bit is an AttentionBackend member of the release. */
function sdpaMaskOk(value: string, release: OrtRelease): boolean {
  if (!/^[1-9]\d*$/.test(value)) return false
  const known = release.sdpaKernels.reduce((mask, k) => mask | SDPA_KERNEL[k], 0)
  return (Number(value) & ~known) === 0
}

export function ortInventory(release: OrtRelease): EngineInventory {
  const byName = Object.fromEntries(Object.entries(PROVIDERS).map(([k, v]) => [v, k as OrtProvider]))
  const check = (t: Translation): string[] => {
    const problems: string[] = []
    for (const file of Object.keys(t.files)) if (file !== SESSION_FILE && file !== PROVIDER_FILE) problems.push(`unexpected file ${file}`)
    const session = JSON.parse(t.files[SESSION_FILE] ?? '{}') as Record<string, string>
    for (const [key, value] of Object.entries(session)) {
      if (key !== 'graph_optimization_level') problems.push(`session option ${key} is not in the ${release.checked} inventory`)
      else if (!release.optimizationLevels.includes(value)) problems.push(`graph_optimization_level ${value} is not in the ${release.checked} inventory`)
    }
    const { providers, provider_options: options } = JSON.parse(t.files[PROVIDER_FILE] ?? '{"providers":[],"provider_options":[]}') as { providers: string[]; provider_options: Record<string, string>[] }
    providers.forEach((provider, i) => {
      const ep = byName[provider]
      if (!ep) return void problems.push(`provider ${provider} is not in the inventory`)
      for (const [key, value] of Object.entries(options[i] ?? {})) {
        if (!release.providerOptions[ep].includes(key)) problems.push(`${provider} option ${key} is not in the ${release.checked} inventory`)
        else if (BOOLEAN_OPTIONS.has(key) && value !== '0' && value !== '1') problems.push(`${key}=${value} is not "0" or "1"`)
        else if (key === 'sdpa_kernel' && !sdpaMaskOk(value, release)) problems.push(`sdpa_kernel=${value} is not a mask of the ${release.checked} kernels (${release.sdpaKernels.map((k) => `${k}=${SDPA_KERNEL[k]}`).join(', ')})`)
      }
    })
    return problems
  }
  const env = Object.fromEntries(release.attentionEnv.map((name) => [name, { choices: ['0', '1'] }]))
  return { flags: {}, env, evidence: release.evidence, check }
}
