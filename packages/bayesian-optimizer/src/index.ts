/**
 * @module @kerneltune/bayesian-optimizer
 * Bayesian optimisation (Gaussian process with a Matérn 5/2 kernel, expected improvement or UCB),
 * a tree-structured Parzen estimator and random search over constrained discrete spaces, behind
 * one ask/tell interface whose state serialises to JSON and resumes exactly. Also replays measured
 * brute-force search spaces (CSV) as the objective.
 *
 * @example
 * ```ts
 * import { createSearch } from '@kerneltune/bayesian-optimizer'
 * const search = createSearch({
 *   strategy: 'bo',
 *   seed: 1,
 *   budget: { evaluations: 30 },
 *   space: {
 *     params: [
 *       { name: 'tile', type: 'ordinal', values: [16, 32, 64, 128] },
 *       { name: 'warps', type: 'ordinal', values: [1, 2, 4, 8] },
 *       { name: 'layout', type: 'categorical', values: ['row', 'col'] },
 *     ],
 *     isValid: (c) => Number(c.tile) / Number(c.warps) >= 8,
 *   },
 * })
 * while (!search.done()) {
 *   for (const config of search.ask(2)) {
 *     const ms = Math.abs(Math.log2(Number(config.tile)) - 6) + Number(config.warps) / 4 + (config.layout === 'row' ? 0 : 0.5)
 *     search.tell({ config, value: ms })
 *   }
 * }
 * console.log(search.best())
 * ```
 */
export { createSearch, restoreSearch, SearchStateSchema, STRATEGIES, type CreateSearchOptions, type Search, type SearchState, type StrategyName } from './searcher.ts'
export { bayesianOptimizationStrategy, randomSearchStrategy, tpeStrategy } from './plugins.ts'
export { parseReplayCsv, replaySearch, type ReplayOptions, type ReplayResult, type ReplayRow, type ReplayTable, type TraceEntry } from './replay.ts'
export { createSpace, type Indices, type Space, type SpaceOptions } from './space.ts'
export { buildGp, defaultHyper, fitHyper, type GpHyper, type GpModel } from './gp.ts'
export { expectedImprovement, normalCdf, normalPdf, upperConfidenceBound } from './acquisition.ts'
export { createRng, hashSeed, type Rng } from './random.ts'
export type { BoOptions } from './bo.ts'
export type { TpeOptions } from './tpe.ts'
