/**
 * Model directories on Node: a requested model path is resolved to its real path (symlinks and
 * `..` followed) and must lie inside a directory the operator allowed, be a regular file, and start
 * with the GGUF magic. The refusal for a path outside is the same whether or not the file exists,
 * and no message quotes bytes read from a file.
 */
import { open, realpath, stat } from 'node:fs/promises'
import { dirname, isAbsolute, resolve, sep } from 'node:path'
import { KerneltuneError } from '@kerneltune/core'
import { MODEL_DIR_HINT, noModelPaths, type ModelPaths } from './model-paths.ts'

/**
 * Node's refusals of a path it cannot even look up (issue 34 item 26: they were 500s): a NUL byte
 * (ERR_INVALID_ARG_VALUE) or a name or path longer than the file system allows (ENAMETOOLONG).
 * The answer quotes nothing of the path: it may be a megabyte long, or hide text past its NUL.
 */
const UNUSABLE: Record<string, string> = {
  ERR_INVALID_ARG_VALUE: 'contains a NUL byte, which no file name can',
  ERR_INVALID_ARG_TYPE: 'is not a usable file name',
  ENAMETOOLONG: 'has a file name or path longer than this file system allows (255 bytes a name on most)',
}
const unusable = (code: string) => new KerneltuneError('INVALID_INPUT', `the modelPath ${UNUSABLE[code]}; name a GGUF file under the model directories`, { details: { errors: [`body.modelPath: ${UNUSABLE[code]}`] } })

const inside = (path: string, dirs: readonly string[]) => dirs.some((d) => path === d || path.startsWith(d.endsWith(sep) ? d : d + sep))
const errno = (e: unknown) => (e as NodeJS.ErrnoException).code

/** The real path of `path`, or of its nearest existing ancestor (exact: false) when it does not exist. */
async function nearestReal(path: string): Promise<{ real: string; exact: boolean }> {
  for (let p = path; ; p = dirname(p)) {
    try {
      return { real: await realpath(p), exact: p === path }
    } catch (e) {
      if (errno(e) !== 'ENOENT' && errno(e) !== 'ENOTDIR') throw e
      if (dirname(p) === p) return { real: p, exact: false }
    }
  }
}

/** Allowed model directories; each must exist and be a directory (checked once, at start). */
export async function modelDirectories(dirs: readonly string[]): Promise<ModelPaths> {
  if (dirs.length === 0) return noModelPaths
  const real: string[] = []
  for (const d of dirs) {
    const r = await realpath(resolve(d)).catch(() => undefined)
    if (!r || !(await stat(r)).isDirectory()) throw new KerneltuneError('INVALID_INPUT', `--model-dir ${d} is not a directory; give an existing directory holding the GGUF files requests may name`)
    real.push(r)
  }
  const shown = real.join(', ')
  const outside = (path: string) => new KerneltuneError('FORBIDDEN', `modelPath ${JSON.stringify(path)} is outside the model directories this server allows (${shown}); put the file under one of them, or ${MODEL_DIR_HINT}`, { details: { errors: ['body.modelPath: outside the allowed model directories'] } })

  /** The real path of the GGUF `path` names inside the directories, or the typed refusal. */
  async function find(path: string): Promise<string> {
    // A relative path names a file under an allowed directory: the first one where it exists.
    const candidates = isAbsolute(path) ? [resolve(path)] : real.map((d) => resolve(d, path))
    let missing = false
    for (const c of candidates) {
      // Lexically outside (`..` included): refused before the file system is asked anything.
      if (!inside(c, real)) continue
      const { real: r, exact } = await nearestReal(c)
      if (!inside(r, real)) continue
      if (!exact) {
        missing = true
        continue
      }
      if (!(await stat(r)).isFile()) throw new KerneltuneError('INVALID_INPUT', `modelPath ${JSON.stringify(path)} is not a regular file; name a GGUF file`, { details: { errors: ['body.modelPath: not a regular file'] } })
      const fh = await open(r, 'r')
      try {
        const head = Buffer.alloc(4)
        const { bytesRead } = await fh.read(head, 0, 4, 0)
        // The message says what was expected, never what was found.
        if (bytesRead < 4 || head.toString('latin1') !== 'GGUF') throw new KerneltuneError('INVALID_INPUT', `modelPath ${JSON.stringify(path)} is not a GGUF file (it does not start with the GGUF magic); name a .gguf model file`, { details: { errors: ['body.modelPath: not a GGUF file'] } })
      } finally {
        await fh.close()
      }
      return r
    }
    if (missing) throw new KerneltuneError('NOT_FOUND', `modelPath ${JSON.stringify(path)}: no such file under the model directories (${shown})`, { details: { errors: ['body.modelPath: no such file'] } })
    throw outside(path)
  }

  return {
    dirs: real,
    async resolve(path) {
      if (path.includes('\0')) throw unusable('ERR_INVALID_ARG_VALUE')
      try {
        return await find(path)
      } catch (e) {
        const code = errno(e)
        if (code !== undefined && code in UNUSABLE) throw unusable(code)
        throw e
      }
    },
  }
}
