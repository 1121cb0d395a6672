/** `kerneltune bench serve` and `bench capacity`: measurements of engines as servers under load. */
import { defineCommand } from '../cli/command.ts'
import { benchCapacity } from './bench/capacity.ts'
import { benchServe } from './bench/serve.ts'

export const benchCommand = defineCommand({
  name: 'bench',
  summary: 'Measure an engine as a server under concurrent load (TTFT, TPOT, ITL, latency, throughput), and its capacity under latency objectives.',
  subcommands: [benchServe, benchCapacity],
})
