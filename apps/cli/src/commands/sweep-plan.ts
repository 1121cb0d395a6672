/** What demo.ts plans and prints its sweep with, from @kerneltune/compose (the sweep's planning and reports moved there, issue 36). */
import { renderSweep as render, type SweepDecision } from '@kerneltune/compose/node'
import type { SweepResult } from '@kerneltune/experiment'
import { fmt, table } from '../cli/output.ts'

export { decisionJson, planSweep, SWEEP_DEFAULTS, type SweepPlan } from '@kerneltune/compose/node'
export const renderSweep = (r: SweepResult, decision?: string): string => render({ table, fmt }, r, decision)
export type { SweepDecision }
