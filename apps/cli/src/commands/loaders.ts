/**
 * How to load each top-level command's module, in the order `kerneltune --help` lists them.
 * A dynamic import each: the module loads when its command runs (or when the manifest is built).
 */
import type { Command } from '../cli/command.ts'

// Grouped as a user meets them: the whole job, then predict, search, apply, measure, serve.
export const COMMAND_LOADERS: Readonly<Record<string, () => Promise<Command>>> = {
  // the whole job
  demo: async () => (await import('./demo.ts')).demoCommand,
  // predict
  hardware: async () => (await import('./hardware.ts')).hardwareCommand,
  features: async () => (await import('./features.ts')).featuresCommand,
  roofline: async () => (await import('./roofline.ts')).rooflineCommand,
  predict: async () => (await import('./predict.ts')).predictCommand,
  recommend: async () => (await import('./recommend.ts')).recommendCommand,
  train: async () => (await import('./train.ts')).trainCommand,
  calibrate: async () => (await import('./calibrate.ts')).calibrateCommand,
  // search
  catalog: async () => (await import('./catalog.ts')).catalogCommand,
  sweep: async () => (await import('./sweep.ts')).sweepCommand,
  run: async () => (await import('./run.ts')).runCommand,
  tune: async () => (await import('./tune.ts')).tuneCommand,
  search: async () => (await import('./search.ts')).searchCommand,
  // apply
  translate: async () => (await import('./translate.ts')).translateCommand,
  // measure
  model: async () => (await import('./model.ts')).modelCommand,
  measure: async () => (await import('./measure.ts')).measureCommand,
  bench: async () => (await import('./bench.ts')).benchCommand,
  kernels: async () => (await import('./kernels.ts')).kernelsCommand,
  autotune: async () => (await import('./autotune.ts')).autotuneCommand,
  sandbox: async () => (await import('./sandbox.ts')).sandboxCommand,
  generate: async () => (await import('./generate.ts')).generateCommand,
  registry: async () => (await import('./registry.ts')).registryCommand,
  // serve
  serve: async () => (await import('./serve.ts')).serveCommand,
  worker: async () => (await import('./worker.ts')).workerCommand,
  token: async () => (await import('./token.ts')).tokenCommand,
  bandit: async () => (await import('./bandit.ts')).banditCommand,
  gateway: async () => (await import('./gateway.ts')).gatewayCommand,
}
