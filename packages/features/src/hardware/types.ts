import type { HardwareSpec } from '@kerneltune/core'

/** A hardware preset: a complete HardwareSpec with an id, the labels it is known by, and notes. */
export type HardwarePreset = HardwareSpec & {
  id: string
  /** Other spellings (benchmark tables, marketing names) that `findHardwarePreset` accepts. */
  aliases: readonly string[]
  /** What was derived rather than read off a datasheet, and any labelling assumption. */
  notes?: string
}
