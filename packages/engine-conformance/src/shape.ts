/**
 * Checks that a translate result is well-formed: a Translation with string argv, env and files,
 * or a Refusal that names a dimension of the combination, its value and a reason. Returns the
 * problems instead of throwing, so the suite can report them all at once.
 */
import type { Combo, EnginePlugin } from '@kerneltune/core'

const isStringRecord = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string')

/** Problems with one result of `engine.translate(combo, { version })`; empty when well-formed. */
export function resultProblems(engine: Pick<EnginePlugin, 'name'>, combo: Combo, version: string, result: unknown): string[] {
  const where = `${JSON.stringify(combo)} @ ${version}`
  if (typeof result !== 'object' || result === null) return [`${where}: result is not an object`]
  const r = result as Record<string, unknown>
  const problems: string[] = []
  if (r.engine !== engine.name) problems.push(`${where}: engine is ${String(r.engine)}, expected ${engine.name}`)
  if (r.version !== version) problems.push(`${where}: version is ${String(r.version)}, expected ${version}`)
  if (r.ok === true) {
    if (!Array.isArray(r.argv) || !r.argv.every((a) => typeof a === 'string')) problems.push(`${where}: argv must be an array of strings`)
    if (!isStringRecord(r.env)) problems.push(`${where}: env must map names to string values`)
    if (!isStringRecord(r.files)) problems.push(`${where}: files must map names to string contents`)
    if (!Array.isArray(r.notes) || !r.notes.every((n) => typeof n === 'string')) problems.push(`${where}: notes must be an array of strings`)
    if (Array.isArray(r.argv) && isStringRecord(r.files) && r.argv.length === 0 && Object.keys(r.files as object).length === 0) {
      problems.push(`${where}: a translation must give a command line or at least one file`)
    }
  } else if (r.ok === false) {
    const dim = r.dimension
    if (typeof dim !== 'string' || !(dim in combo)) {
      problems.push(`${where}: refusal names dimension ${String(dim)}, which is not a key of the combination`)
    } else if (r.value !== combo[dim]) {
      problems.push(`${where}: refusal names value ${String(r.value)} for ${dim}, but the combination has ${combo[dim]}`)
    }
    if (typeof r.reason !== 'string' || r.reason.trim().length < 10) problems.push(`${where}: refusal needs a reason of a few words`)
  } else {
    problems.push(`${where}: ok must be true or false`)
  }
  return problems
}
