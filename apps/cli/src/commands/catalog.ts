/** `kerneltune catalog list|preview|explain`: the kernel catalog, its legality rules and what a sweep covers. */
import { defineCommand } from '../cli/command.ts'
import { catalogExplain } from './catalog/explain.ts'
import { catalogList } from './catalog/list.ts'
import { catalogPreview } from './catalog/preview.ts'

export const catalogCommand = defineCommand({
  name: 'catalog',
  summary: 'The kernel catalog: dimensions, legality rules with sources, and a preview of what a sweep would cover.',
  subcommands: [catalogList, catalogPreview, catalogExplain],
})
