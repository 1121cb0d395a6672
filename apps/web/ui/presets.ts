/**
 * The choices the forms offer. Engines (with versions), measurement backends, hardware presets,
 * modes and gates come from the server (GET /options, built from its plugin registry and the
 * features package's presets), so a plugin added to the registry shows up here unchanged. Only the
 * example models are the page's own.
 */
import { useQuery } from '@tanstack/react-query'
import { api } from './api.ts'
import type { BackendOption, Options } from './api-types.gen.ts'

export const useOptions = () => useQuery({ queryKey: ['options'], queryFn: () => api<Options>('/options'), staleTime: Infinity })

/** What a backend's numbers are, said before a run starts: its label and the plugin's own description. */
export const backendNote = (b: BackendOption | undefined): string =>
  !b ? 'a plugin this server does not list.' : `${b.label}: ${b.description ?? 'its runs say how they measured.'}`

/** A select's options with its current value kept in them (a value from the URL, before the list loads). */
export const withCurrent = (options: readonly string[], current: string): readonly string[] =>
  !current || options.includes(current) ? options : [current, ...options]

export const MODELS = {
  'llama-3-8b': { name: 'llama-3-8b', paramsB: 8, quant: 'F16' },
  'llama-3-70b': { name: 'llama-3-70b', paramsB: 70, quant: 'F16' },
  'qwen2.5-0.5b': { name: 'qwen2.5-0.5b', paramsB: 0.5, quant: 'F16' },
} as const
export type ModelId = keyof typeof MODELS
