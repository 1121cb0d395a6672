/**
 * The arms a gateway serves, from a list such as `defaults,recommended,top:2,{"threads":"1"}` and
 * running endpoints:
 *
 * - `defaults`: the engine's server as it starts with no setting changed (the fallback arm);
 * - `recommended`: the first of a stored run's candidates (its winner, else its best measured combination);
 * - `top:N`: the run's N first candidates, arms top1..topN;
 * - `{"threads":"1"}` or `NAME={"parallel":"1"}`: a combination, translated by the engine;
 * - `NAME=http://host:port` or an endpoint URL: a server that is already running.
 *
 * Commas inside a JSON object do not split the list. A stored run is read only through
 * `candidates`, so this stays free of the store (the composition root reads it).
 */
import { KerneltuneError, type Combo } from '@kerneltune/core'

export type ArmRequest =
  | { readonly id: string; readonly kind: 'combo'; readonly combo: Combo; readonly source: string }
  | { readonly id: string; readonly kind: 'endpoint'; readonly url: string }

const invalid = (message: string) => new KerneltuneError('INVALID_INPUT', message)

/** Splits at commas outside braces. */
export function splitArms(text: string): string[] {
  const out: string[] = []
  let depth = 0
  let cur = ''
  for (const ch of text) {
    if (ch === '{') depth++
    if (ch === '}') depth--
    if (ch === ',' && depth === 0) {
      out.push(cur.trim())
      cur = ''
    } else cur += ch
  }
  out.push(cur.trim())
  if (depth !== 0) throw invalid(`--arms has unbalanced braces: ${text}`)
  return out.filter((x) => x !== '')
}

/** The name an unnamed combination arm gets, and the key that tells two configurations apart. */
export const comboId = (c: Combo): string => Object.entries(c).map(([k, v]) => `${k}=${v}`).join(',') || 'defaults'

function parseCombo(json: string, token: string): Combo {
  let v: unknown
  try {
    v = JSON.parse(json)
  } catch {
    throw invalid(`arm ${token}: the combination is not JSON`)
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.values(v).every((x) => typeof x === 'string')) {
    throw invalid(`arm ${token}: a combination maps settings to string values, e.g. {"threads":"2","parallel":"1"}`)
  }
  return v as Combo
}

/** Combinations once each, the first occurrence kept. */
export function uniqueCombos(combos: readonly Combo[]): Combo[] {
  const seen = new Set<string>()
  return combos.filter((c) => !seen.has(comboId(c)) && (seen.add(comboId(c)), true))
}

export interface ArmContext {
  readonly runId?: string | undefined
  readonly endpoints: readonly string[]
  /** The stored run's combinations, best first (read once, only when an arm comes from the run). */
  readonly candidates: (runId: string) => Promise<readonly Combo[]>
}

/** The arms `text` and the endpoints name, each configuration once; notes say what was merged or cut short. */
export async function resolveArms(text: string | undefined, ctx: ArmContext): Promise<{ arms: ArmRequest[]; notes: string[] }> {
  const tokens = text === undefined ? (ctx.endpoints.length ? [] : ['defaults']) : splitArms(text)
  const arms: ArmRequest[] = []
  const notes: string[] = []
  let candidates: readonly Combo[] | undefined
  const fromRun = async (token: string) => {
    if (!ctx.runId) throw invalid(`arm ${token} comes from a stored run: give --run RUN_ID`)
    candidates ??= await ctx.candidates(ctx.runId)
    if (candidates.length === 0) throw invalid(`--run ${ctx.runId} has no measured combination to serve`)
    return candidates
  }
  for (const token of tokens) {
    let m: RegExpExecArray | null
    if (token === 'defaults') arms.push({ id: 'defaults', kind: 'combo', combo: {}, source: 'defaults' })
    else if (token === 'recommended') arms.push({ id: 'recommended', kind: 'combo', combo: (await fromRun(token))[0]!, source: `run ${ctx.runId}: recommended` })
    else if ((m = /^top:?([1-9]\d*)$/.exec(token))) {
      const top = (await fromRun(token)).slice(0, Number(m[1]))
      if (top.length < Number(m[1])) notes.push(`--run ${ctx.runId} has ${top.length} measured combination(s); ${token} serves those`)
      top.forEach((combo, i) => arms.push({ id: `top${i + 1}`, kind: 'combo', combo, source: `run ${ctx.runId}: #${i + 1}` }))
    } else if ((m = /^([\w.-]+)=(https?:\/\/\S+)$/.exec(token))) arms.push({ id: m[1]!, kind: 'endpoint', url: m[2]! })
    else if ((m = /^(?:([\w.-]+)=)?(\{.*\})$/s.exec(token))) {
      const combo = parseCombo(m[2]!, token)
      arms.push({ id: m[1] ?? comboId(combo), kind: 'combo', combo, source: 'given' })
    } else throw invalid(`--arms: ${JSON.stringify(token)} is not an arm; use defaults, recommended, top:N (with --run), a combination {"threads":"1"} or NAME={...}, or NAME=http://host:port`)
  }
  ctx.endpoints.forEach((url, i) => {
    if (!/^https?:\/\/[^/]+/.test(url)) throw invalid(`--endpoint must be an http(s) URL such as http://127.0.0.1:8080, got ${url}`)
    arms.push({ id: `endpoint${i + 1}`, kind: 'endpoint', url })
  })
  // One server per configuration: the same combination twice (recommended = defaults) is served once.
  const seen = new Map<string, string>()
  const unique = arms.filter((a) => {
    const key = a.kind === 'combo' ? `combo:${comboId(a.combo)}` : `url:${a.url}`
    const first = seen.get(key)
    if (first !== undefined) {
      notes.push(`arm ${a.id} is the same configuration as arm ${first}; it is served once, as ${first}`)
      return false
    }
    seen.set(key, a.id)
    return true
  })
  const ids = unique.map((a) => a.id)
  const dup = ids.find((id, i) => ids.indexOf(id) !== i)
  if (dup) throw invalid(`two arms are named ${dup}; name them apart (NAME={...})`)
  if (unique.length === 0) throw invalid('no arm to serve: give --arms or --endpoint')
  return { arms: unique, notes }
}
