/**
 * The pretrained model shipped with the package (assets/pretrained.json), produced by
 * scripts/train-pretrained.ts from public llama.cpp measurements. Loaded through a JSON import so
 * it works without file access on Node, Bun, Deno and in bundlers.
 */
import asset from '../assets/pretrained.json' with { type: 'json' }
import { LearnedModel } from './learned.ts'

let cached: LearnedModel | undefined

/** The pretrained ridge model (validated on first use, then cached). */
export function pretrainedModel(): LearnedModel {
  cached ??= LearnedModel.fromJSON(asset)
  return cached
}

/** The asset's provenance: files and rows used, script version, seed, leave-one-hardware-out scores. */
export function pretrainedInfo(): Record<string, unknown> {
  return pretrainedModel().json.meta
}
