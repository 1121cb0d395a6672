/** `kerneltune kernels list|verify|bench`: the WGSL kernels of @kerneltune/gpu-kernels. */
import { defineCommand } from '../cli/command.ts'
import { kernelsBench } from './kernels/bench.ts'
import { kernelsList } from './kernels/list.ts'
import { kernelsVerify } from './kernels/verify.ts'

export const kernelsCommand = defineCommand({
  name: 'kernels',
  summary: 'WGSL kernels for quantised matrix products: list their parameter spaces, verify them, benchmark them.',
  subcommands: [kernelsList, kernelsVerify, kernelsBench],
})
