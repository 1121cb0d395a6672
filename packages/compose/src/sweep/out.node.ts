/**
 * `kerneltune sweep --out FILE`: the sweep's JSON in a file, rewritten after every round and every
 * capacity search with the result so far (`partial: true`, `phase`), and once more at the end. A
 * caller that has to kill the sweep (a device lease running out) then still has what was measured.
 * Each write goes to a temporary file beside FILE that is renamed over it, so a reader (or a kill
 * in the middle of a write) never sees half a document.
 */
import { rename, rm, writeFile } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import process from 'node:process'
import { KerneltuneError } from '@kerneltune/core'

export interface OutFile {
  readonly path: string
  /** Replaces the file with `doc`; a failure after the first write is reported once on stderr, and the sweep goes on. */
  write(doc: unknown, final?: boolean): Promise<void>
}

async function replace(path: string, text: string): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`)
  try {
    await writeFile(tmp, text)
    await rename(tmp, path)
  } catch (e) {
    await rm(tmp, { force: true })
    throw e
  }
}

/** Opens --out: writes a first document saying nothing is measured yet, refusing (exit 2) a path that cannot be written. */
export async function openOutFile(io: { readonly cwd: string; readonly stderr: (text: string) => void }, file: string): Promise<OutFile> {
  const path = resolve(io.cwd, file)
  await replace(path, JSON.stringify({ ok: true, partial: true, phase: 'started', note: 'the sweep has started; nothing is measured yet' }, null, 2) + '\n').catch((e: Error) => {
    throw new KerneltuneError('INVALID_INPUT', `--out: cannot write ${path}: ${e.message}`)
  })
  let warned = false
  return {
    path,
    async write(doc, final = false) {
      try {
        await replace(path, JSON.stringify(doc, null, 2) + '\n')
      } catch (e) {
        if (warned && !final) return
        warned = true
        io.stderr(`--out: could not write ${path}${final ? ' (the final result)' : ''}: ${(e as Error).message}\n`)
      }
    },
  }
}
