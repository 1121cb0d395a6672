/**
 * Where an engine's server program is, from its serving capability: the variable that names it
 * (CI and tests set one), else the engine's own lookup (a build cache), else the program on PATH.
 * Not found is ENGINE_NOT_INSTALLED with the engine's install hint, so every command that launches
 * a server says the same thing the same way.
 */
import { accessSync, constants, statSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { KerneltuneError, type ServingCapability } from '@kerneltune/core'

type Env = Readonly<Record<string, string | undefined>>

const executable = (p: string) => {
  try {
    accessSync(p, constants.X_OK)
    return statSync(p).isFile()
  } catch {
    return false
  }
}

export interface FoundServerBinary {
  readonly path: string
  readonly source: 'env' | 'engine' | 'path'
}

/** The engine's server binary, or undefined; a variable naming something that is not executable is an error. */
export function findServerBinary(engine: string, serving: ServingCapability, env: Env = process.env): FoundServerBinary | undefined {
  const b = serving.binary
  const named = b.envVar ? env[b.envVar] : undefined
  if (named) {
    if (!executable(named)) throw new KerneltuneError('ENGINE_NOT_INSTALLED', `${b.envVar}=${named} is not an executable file; fix the variable or unset it. ${b.installHint}`, { plugin: engine, details: { engine, envVar: b.envVar, path: named } })
    return { path: named, source: 'env' }
  }
  const own = b.locate?.(env)
  if (own && executable(own)) return { path: own, source: 'engine' }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && executable(join(dir, b.program))) return { path: join(dir, b.program), source: 'path' }
  }
  return undefined
}

/** Like findServerBinary, but says how to install the engine when there is none. */
export function requireServerBinary(engine: string, serving: ServingCapability, env: Env = process.env): FoundServerBinary {
  const found = findServerBinary(engine, serving, env)
  if (found) return found
  const b = serving.binary
  throw new KerneltuneError('ENGINE_NOT_INSTALLED', `${engine} is not installed here: no ${b.program} on PATH${b.envVar ? ` and ${b.envVar} is unset` : ''}. ${b.installHint}`, {
    plugin: engine,
    details: { engine, program: b.program, ...(b.envVar ? { envVar: b.envVar } : {}), installHint: b.installHint },
  })
}
