/**
 * @module @kerneltune/compose/node
 * The whole composition: every engine and measurement backend registered once, the store opened
 * and the catalog built. The server's entries (Node, Bun, Deno) and the CLI's commands that
 * measure or keep state compose through here, so an engine or a backend is added once and both
 * apps see the same set.
 *
 * @example
 * ```ts
 * import { compose } from '@kerneltune/compose/node'
 * const { store, registry, catalog, close } = await compose({ databaseUrl: ':memory:' })
 * await close()
 * ```
 */
export * from './index.ts'
export { backendPlugins, compose, defaultDatabaseUrl, defaultRegistry, enginePlugins, openStoreAt, servingEngine, type BackendOptions, type ComposeOptions, type Composition } from './compose.node.ts'
export * from './sweep/index.node.ts'
export { gatewayStatusJson, planGatewayArms, startGatewayDeployment, type GatewayDeployment, type GatewayDeploymentOptions, type GatewayStatusJson } from './gateway.node.ts'
export { buildRunRequest, llamacppRestrict, type RunRequestFields } from './run-request.node.ts'
export { parseQuantFlag, resolveTargetHardware, resolveTargetWorkload, UNSET_DECODE_CONTEXT_ASSUMPTION, workloadAssumptions, type ResolvedHardware, type TargetFields } from './target.ts'
export { checkedGgufHeader, readGgufFileHeader, readJsonFile, requireGgufFile, resolveTargetModel, type ResolvedModel } from './target.node.ts'
export { routeClient, routePath, storeTarget, type KernelsStreamEvents, type RouteClient, type RouteClientOptions, type RouteRequest, type StoreTarget } from './api-client.ts'
export { objectivesFromFields, writeRecordLines } from './objectives.node.ts'
export { embeddedRegistry, type NewEntry, type RegistryTarget } from './registry.node.ts'
export { runRows, type RunSummaryView, type RunView } from './run-view.ts'
