/**
 * What each request of a load asks for: fixed or uniformly drawn prompt and output lengths, or
 * prompts from a JSONL dataset. Completions prompts of a fixed length are token-id arrays (the
 * OpenAI-compatible servers kerneltune launches accept them), so the server sees exactly the asked length; chat prompts
 * are text, whose token count only the server's `usage` knows.
 */
import { KerneltuneError, parseWith } from '@kerneltune/core'
import { z } from 'zod'
import { uniformInt, type Random } from './prng.ts'

export const SERVING_APIS = ['completions', 'chat'] as const
export type ServingApi = (typeof SERVING_APIS)[number]

export interface RequestSpec {
  /** Token ids (completions) or text. */
  readonly prompt: string | readonly number[]
  readonly outputTokens: number
}

const Length: z.ZodUnion<readonly [z.ZodNumber, z.ZodTuple<[z.ZodNumber, z.ZodNumber], null>]> = z.union([z.number().int().min(1), z.tuple([z.number().int().min(1), z.number().int().min(1)])])

// The zod type is spelled out (not inferred) so JSR can publish the package without slow types.
export const WorkloadSpecSchema: z.ZodUnion<readonly [
  z.ZodObject<{
    kind: z.ZodLiteral<'synthetic'>
    promptTokens: typeof Length
    outputTokens: typeof Length
    tokenIdRange: z.ZodOptional<z.ZodTuple<[z.ZodNumber, z.ZodNumber], null>>
  }, z.core.$strict>,
  z.ZodObject<{
    kind: z.ZodLiteral<'dataset'>
    entries: z.ZodArray<z.ZodObject<{
      prompt: z.ZodUnion<readonly [z.ZodString, z.ZodArray<z.ZodNumber>]>
      outputTokens: z.ZodOptional<z.ZodNumber>
    }>>
    outputTokens: z.ZodNumber
  }, z.core.$strict>,
]> = z.union([
  z.object({
    kind: z.literal('synthetic'),
    /** A fixed length, or [lo, hi] drawn uniformly per request. */
    promptTokens: Length,
    outputTokens: Length,
    /** Token ids are drawn from [lo, hi): keep inside the model's vocabulary. Default [10, 1000). */
    tokenIdRange: z.tuple([z.number().int().min(0), z.number().int().min(1)]).optional(),
  }).strict(),
  z.object({
    kind: z.literal('dataset'),
    entries: z.array(z.object({ prompt: z.union([z.string().min(1), z.array(z.number().int().min(0)).min(1)]), outputTokens: z.number().int().min(1).optional() })).min(1),
    /** Output length for entries that give none. */
    outputTokens: z.number().int().min(1),
  }).strict(),
])
export type WorkloadSpec = z.infer<typeof WorkloadSpecSchema>

const DatasetLine = z.object({
  prompt: z.union([z.string().min(1), z.array(z.number().int().min(0)).min(1)]),
  output_tokens: z.number().int().min(1).optional(),
  outputTokens: z.number().int().min(1).optional(),
})

/** Reads a JSONL dataset: one `{ "prompt": "..." | [ids], "output_tokens"?: n }` per line. */
export function parseDatasetJsonl(text: string, what = 'dataset'): { prompt: string | number[]; outputTokens?: number }[] {
  const out: { prompt: string | number[]; outputTokens?: number }[] = []
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue
    let v: unknown
    try {
      v = JSON.parse(line)
    } catch {
      throw new KerneltuneError('INVALID_FORMAT', `${what}, line ${i + 1}: not JSON; each line must be {"prompt": "...", "output_tokens": 64}`)
    }
    const e = parseWith(DatasetLine, v, `${what}, line ${i + 1}`)
    const n = e.outputTokens ?? e.output_tokens
    out.push({ prompt: e.prompt, ...(n === undefined ? {} : { outputTokens: n }) })
  }
  if (out.length === 0) throw new KerneltuneError('INVALID_INPUT', `${what} has no entries; give one JSON object per line`)
  return out
}

const draw = (random: Random, l: number | readonly [number, number]) => (typeof l === 'number' ? l : uniformInt(random, Math.min(l[0], l[1]), Math.max(l[0], l[1])))

/** The i-th request of a load (datasets cycle). Chat needs text, so token ids become words. */
export function requestSpec(spec: WorkloadSpec, api: ServingApi, i: number, random: Random): RequestSpec {
  if (spec.kind === 'dataset') {
    const e = spec.entries[i % spec.entries.length]!
    const prompt = api === 'chat' && typeof e.prompt !== 'string' ? e.prompt.map((t) => `w${t}`).join(' ') : e.prompt
    return { prompt, outputTokens: e.outputTokens ?? spec.outputTokens }
  }
  const p = draw(random, spec.promptTokens)
  const g = draw(random, spec.outputTokens)
  const [lo, hi] = spec.tokenIdRange ?? [10, 1000]
  const ids = Array.from({ length: p }, () => lo + Math.floor(random() * Math.max(1, hi - lo)))
  // Chat: short common words, roughly a token each in most vocabularies; usage gives the real count.
  return { prompt: api === 'chat' ? ids.map((t) => `w${t % 97}`).join(' ') : ids, outputTokens: g }
}
