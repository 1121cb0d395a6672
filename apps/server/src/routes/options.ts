/**
 * The choices a run request can name here: the registry's engines (with their versions) and
 * measurement backends (with what their numbers are), the hardware presets, modes and gates. The
 * dashboard's Runner and History read them, so that an engine or backend added to the registry
 * shows up there without a change to the dashboard.
 */
import { HardwareSpecSchema, QualityGateMethodSchema, RunModeSchema } from '@kerneltune/core'
import { HARDWARE_PRESETS } from '@kerneltune/features'
import { route, type Route } from '../http.ts'
import { OptionsResponse } from '../responses.ts'
import { measuredBy } from './runs.ts'

// The presets carry sources, aliases and notes for people; a run request takes the spec.
const HARDWARE = HARDWARE_PRESETS.map((p) => HardwareSpecSchema.parse(p))

export const optionRoutes: Route[] = [
  route({ method: 'get', path: '/options', summary: 'Engines (with versions), measurement backends (simulated, proxy or measured), hardware presets, modes and quality gates a run can name', role: 'viewer', response: OptionsResponse }, async ({ deps }) => ({
    engines: deps.registry.list('engine').map((e) => ({ name: e.name, displayName: e.displayName, defaultVersion: e.defaultVersion, versions: [...e.supportedVersions()] })),
    backends: deps.registry.list('measurement-backend').map((b) => {
      const { simulated, proxy } = measuredBy(deps.registry, b.name)!
      return { name: b.name, simulated, proxy, label: simulated ? 'simulated' : proxy ? 'proxy' : 'measured', description: b.description ?? null }
    }),
    hardware: HARDWARE,
    modes: RunModeSchema.options,
    gates: QualityGateMethodSchema.options,
  })),
]
