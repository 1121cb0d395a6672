/**
 * What the catalog subcommands share: --hardware resolved through @kerneltune/features presets,
 * and the engine flags. The catalog with its engines comes from compose's openCatalog.
 */
import { kerneltuneError, type HardwareSpec } from '@kerneltune/core'
import { requireHardwarePreset } from '@kerneltune/features'
import type { FlagSpec } from '../../cli/args.ts'
import { ENGINE_NAMES } from '@kerneltune/compose'

export const TARGET_FLAGS = [
  { name: 'hardware', type: 'string', valueName: 'NAME', description: 'Hardware preset id or name (e.g. h100-sxm, a100-sxm-80gb, l4, mi300x); see @kerneltune/features presets.' },
  { name: 'engine', type: 'string', default: 'vllm', choices: ENGINE_NAMES, description: 'Engine plugin name (the built-in engines, as compose registers them).' },
  { name: 'version', type: 'string', valueName: 'V', description: "Engine release the refusals and version-ranged rules are checked for (default: the engine's default, its newest)." },
] as const satisfies readonly FlagSpec[]

export function resolveHardware(name: string | undefined): HardwareSpec {
  if (!name) throw kerneltuneError('INVALID_INPUT', '--hardware is required (a preset id such as h100-sxm)')
  return requireHardwarePreset(name)
}
