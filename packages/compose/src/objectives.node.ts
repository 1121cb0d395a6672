/**
 * Latency objectives and the objective as a person gives them (`--slo`, `--objective`), read with
 * @kerneltune/serving's one parser, and the per-request records (`--records`) written as JSON
 * lines. A bad value is INVALID_INPUT naming its flag and listing the accepted names.
 */
import { writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { isKerneltuneError, KerneltuneError } from '@kerneltune/core'
import { OBJECTIVE_NAMES, parseSlo, recordLines, resolveObjectives, SLO_NAMES, type Objectives, type RecordLine } from '@kerneltune/serving'

/** A parse error of a flag's value, as INVALID_INPUT that names the flag. */
function asUsage<T>(flag: string, parse: () => T): T {
  try {
    return parse()
  } catch (e) {
    if (isKerneltuneError(e) && e.code === 'INVALID_INPUT') throw new KerneltuneError('INVALID_INPUT', `${flag}: ${e.message}`, { details: { accepted: { slo: SLO_NAMES, objective: OBJECTIVE_NAMES } } })
    throw e
  }
}

/** The objectives `slo` and `objective` state; undefined when neither is given. */
export function objectivesFromFields(f: { readonly slo?: string | undefined; readonly objective?: string | undefined }): Objectives | undefined {
  if (f.slo === undefined && f.objective === undefined) return undefined
  // Each flag parsed on its own first, so an error names the flag it is about.
  if (f.slo !== undefined) asUsage('--slo', () => parseSlo(f.slo!))
  if (f.objective === 'goodput' && f.slo === undefined) throw new KerneltuneError('INVALID_INPUT', '--objective goodput counts the requests that meet the latency objectives: state them with --slo, e.g. --slo ttft_p99_ms=500,tpot_p99_ms=50')
  return asUsage('--objective', () => resolveObjectives(f))
}

/** Writes the records: one JSON line per request, to `file` (relative to `cwd`); returns the path written. */
export async function writeRecordLines(cwd: string, file: string, lines: readonly RecordLine[]): Promise<string> {
  const path = resolve(cwd, file)
  await writeFile(path, recordLines(lines)).catch((e: Error) => {
    throw new KerneltuneError('INVALID_INPUT', `--records: cannot write ${path}: ${e.message}`)
  })
  return path
}
