/**
 * The files a command reads and writes through its flags: a read failure is a usage error that
 * names the flag (exit 2), and a written file never appears half-written.
 */
import { readFile, rename, rm, writeFile } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import process from 'node:process'
import { usageError } from './args.ts'
import type { Io } from './command.ts'

/** The text of `file` (relative to the working directory) that `--<flag>` named. */
export async function readFlagFile(io: Io, file: string, flag: string): Promise<string> {
  try {
    return await readFile(resolve(io.cwd, file), 'utf8')
  } catch (err) {
    throw usageError(`--${flag}: cannot read "${file}": ${(err as Error).message}`)
  }
}

/** Writes next to the target and renames over it, so a reader never sees a half-written file. */
export async function writeFileAtomic(io: Io, file: string, text: string, flag: string): Promise<string> {
  const target = resolve(io.cwd, file)
  const tmp = join(dirname(target), `.${basename(target)}.${process.pid}.${Date.now()}.tmp`)
  try {
    await writeFile(tmp, text)
    await rename(tmp, target)
  } catch (err) {
    await rm(tmp, { force: true })
    throw usageError(`--${flag}: cannot write "${file}": ${(err as Error).message}`)
  }
  return target
}
