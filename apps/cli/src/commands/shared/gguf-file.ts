/** The checks of a GGUF given with --gguf before anything loads it; compose holds them (target.node.ts). */
export { checkedGgufHeader, readGgufFileHeader } from '@kerneltune/compose/node'
