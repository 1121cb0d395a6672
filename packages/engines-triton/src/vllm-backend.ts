/**
 * The vllm backend's side of a Triton translation. model.json is passed whole to vLLM as
 * `AsyncEngineArgs(**json)` (vllm_backend @ 8de0c148 src/model.py L217-227), so its keys are vLLM
 * EngineArgs names of the vLLM release inside the container. That release is
 * `context.options.vllmVersion`, by default the vLLM engine's own default; both the release and
 * its inventory come from the engine that provides the vllm backend (found in the registry).
 */
import type { EngineInventory, Translation } from '@kerneltune/core'

/**
 * model.json keys against the vLLM release's flags (`enforce_eager` ↔ `--enforce-eager`), nested
 * config keys against its config keys, and the environment against its variables.
 */
export function vllmBackendInventory(version: string, vllm: EngineInventory | undefined): EngineInventory | undefined {
  if (!vllm) return undefined
  const check = (t: Translation): string[] => {
    const problems: string[] = []
    for (const [file, text] of Object.entries(t.files)) {
      if (!file.endsWith('model.json')) continue
      const args = JSON.parse(text) as Record<string, unknown>
      for (const [key, value] of Object.entries(args)) {
        if (key === 'model') continue
        const flag = `--${key.replace(/_/g, '-')}`
        const entry = vllm.flags[flag]
        if (!entry) problems.push(`${file}: ${key} is not a vLLM ${version} engine argument this inventory holds`)
        else if (entry.choices && !entry.choices.map(String).includes(String(value))) problems.push(`${file}: ${key}=${String(value)} is not accepted by vLLM ${version}`)
        else if (typeof value === 'object' && value !== null) {
          const keys = vllm.configKeys?.[flag] ?? []
          const paths = Object.entries(value).flatMap(([k, v]) => [k, ...(typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.keys(v).map((n) => `${k}.${n}`) : [])])
          for (const path of paths) if (!keys.includes(path)) problems.push(`${file}: ${key}.${path} is not in vLLM ${version}'s inventory`)
        }
      }
    }
    return problems
  }
  return { flags: { '--model-repository': { type: 'str' } }, env: vllm.env, evidence: [...(vllm.evidence ?? []), 'vllm_backend @ 8de0c148 src/model.py L217-227: AsyncEngineArgs(**self.vllm_engine_config)'], check }
}
