import { packageConfig } from './vitest-preset.mjs'

// The tooling's own tests: the test shim (fast-check seed, skip helper) and the scripts' parsers.
export default packageConfig({ include: ['test-shim/**/*.test.ts', 'scripts/**/*.test.mjs'] })
