/** demo.ts's import of the sweep's --json decision fields (now @kerneltune/compose's). */
export { decisionJson } from '@kerneltune/compose/node'
