import { packageConfig } from '@kerneltune/tooling/vitest-preset'

export default packageConfig()
