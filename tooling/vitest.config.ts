import { packageConfig } from './vitest-preset.mjs'

// The tooling's own tests: the test shim (fast-check seed, skip helper) and the scripts' parsers,
// and the benchmarks' pure helpers (bench/ is no package of its own, so its tests run here).
export default packageConfig({ include: ['test-shim/**/*.test.ts', 'scripts/**/*.test.mjs', '../bench/support/**/*.test.ts', '../bench/gpu/**/*.test.ts', '../bench/gpu-kernels-kit/**/*.test.ts'] })
