/**
 * Where the llama-server binary is: $KERNELTUNE_LLAMA_SERVER (CI sets it), else the build cache
 * that tooling/scripts/build-llama-server.sh fills
 * (~/.cache/kerneltune/llama-server/<tag>-<commit>-<cpu signature>/bin), preferring a build for
 * this processor and the llama.cpp release the engine plugin targets, else `llama-server` on PATH.
 */
import { createHash } from 'node:crypto'
import { accessSync, constants, existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { homedir, machine } from 'node:os'
import { delimiter, join } from 'node:path'
import { KerneltuneError } from '@kerneltune/core'
import { LLAMACPP_VERSION } from '../facts.ts'
import { BUILD_HINT, LLAMA_SERVER_ENV } from '../serving.ts'

const executable = (p: string) => {
  try {
    accessSync(p, constants.X_OK)
    return statSync(p).isFile()
  } catch {
    return false
  }
}

export function llamaServerCacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.KERNELTUNE_CACHE_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kerneltune'), 'llama-server')
}

/**
 * The build script's key suffix for this processor: the first 8 hex digits of the SHA-256 of
 * `<uname -m> <sorted unique cpuinfo flags, each followed by a space>`. A native build runs only
 * on a processor with the same features, so a build with another suffix is a last resort.
 */
export function cpuSignature(cpuinfo?: string, arch: string = machine()): string {
  let text = cpuinfo
  if (text === undefined) {
    try {
      text = readFileSync('/proc/cpuinfo', 'utf8')
    } catch {
      text = ''
    }
  }
  const line = text.split('\n').find((l) => /^(flags|Features)\s*:/.test(l))
  const flags = [...new Set((line?.split(':')[1] ?? '').split(' ').filter(Boolean))].sort()
  const joined = flags.map((f) => `${f} `).join('')
  return createHash('sha256').update(`${arch} ${joined}`).digest('hex').slice(0, 8)
}

export interface FoundBinary {
  readonly path: string
  readonly source: 'env' | 'cache' | 'path'
}

/** The binary, or undefined; `preferVersion` is a llama.cpp tag such as v0.5.0. */
export function findLlamaServer(preferVersion?: string, env: NodeJS.ProcessEnv = process.env): FoundBinary | undefined {
  const fromEnv = env[LLAMA_SERVER_ENV]
  if (fromEnv) {
    if (!executable(fromEnv)) throw new KerneltuneError('NOT_FOUND', `${LLAMA_SERVER_ENV}=${fromEnv} is not an executable file; fix the variable or unset it, then ${BUILD_HINT}`)
    return { path: fromEnv, source: 'env' }
  }
  const root = llamaServerCacheRoot(env)
  if (existsSync(root)) {
    const sig = cpuSignature()
    const builds = readdirSync(root)
      .filter((d) => !d.startsWith('.') && executable(join(root, d, 'bin', 'llama-server')))
      .map((d) => ({ d, thisCpu: d.endsWith(`-${sig}`), preferred: preferVersion !== undefined && d.startsWith(`${preferVersion}-`), mtime: statSync(join(root, d)).mtimeMs }))
      .sort((a, b) => Number(b.thisCpu) - Number(a.thisCpu) || Number(b.preferred) - Number(a.preferred) || b.mtime - a.mtime)
    if (builds[0]) return { path: join(root, builds[0].d, 'bin', 'llama-server'), source: 'cache' }
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && executable(join(dir, 'llama-server'))) return { path: join(dir, 'llama-server'), source: 'path' }
  }
  return undefined
}

/** Like findLlamaServer, but says how to get one when there is none. */
export function requireLlamaServer(preferVersion?: string, env: NodeJS.ProcessEnv = process.env): FoundBinary {
  const found = findLlamaServer(preferVersion, env)
  if (!found) throw new KerneltuneError('ENGINE_NOT_INSTALLED', `no llama-server binary: ${LLAMA_SERVER_ENV} is unset, ${llamaServerCacheRoot(env)} has no build and PATH has none; ${BUILD_HINT}`)
  return found
}

/**
 * The serving capability's own lookup (ServingBinary.locate): the build cache only, for this
 * processor and the targeted release first. The variable and PATH are the launcher's.
 */
export function locateLlamaServer(env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  const found = findLlamaServer(LLAMACPP_VERSION, { ...env, [LLAMA_SERVER_ENV]: undefined, PATH: '' })
  return found?.path
}
