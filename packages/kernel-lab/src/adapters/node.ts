/**
 * @module @kerneltune/kernel-lab/node
 * The Node side of the kernel lab: the Deno-subprocess sandbox runner.
 *
 * @example
 * ```ts
 * import { runInSandbox } from '@kerneltune/kernel-lab/node'
 * const report = await runInSandbox('export default (ctx) => ctx.input * 2', { input: 21 })
 * // report.outcome === 'ok', report.result === 42
 * ```
 */
export { runInSandbox, findDenoBinary } from './deno-sandbox.node.ts'
export type { SandboxRunOptions } from './deno-sandbox.node.ts'
export { verifyInSandbox } from './verify.node.ts'
export { registryCandidates, type CellRegistry, type TunedCell } from './cell-candidates.node.ts'
export type { VerifyOptions, VerificationReport } from './verify.node.ts'
