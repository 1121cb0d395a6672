/**
 * What every server entry (Node, Bun, Deno) shares: where the store lives, how it is opened, and
 * the plugins served by default. Uses only node: modules that Bun and Deno also provide.
 */
import { mkdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import process from 'node:process'
import { createRegistry, type AnyPlugin, type Registry } from '@kerneltune/core'
import { openStore, isPostgresUrl, type Store } from '@kerneltune/store'
import { analyticalBackend, type AnalyticalBackendOptions } from '@kerneltune/backends'
import { searchStrategies } from '@kerneltune/tuner'
import { gpuKernelsBackend, llamacppRunBackend, llamacppRunEngine } from '@kerneltune/backends/node'
import { onnxEngine } from '@kerneltune/engines-onnx'
import { tgiEngine } from '@kerneltune/engines-tgi'
import { tritonEngine } from '@kerneltune/engines-triton'
import { trtllmEngine } from '@kerneltune/engines-trtllm'
import { vllmEngine } from '@kerneltune/engines-vllm'

/** $KERNELTUNE_DATABASE_URL, else $XDG_DATA_HOME/kerneltune/kerneltune.db (~/.local/share/…). */
export function defaultDatabaseUrl(env: Readonly<Record<string, string | undefined>> = process.env): string {
  if (env.KERNELTUNE_DATABASE_URL) return env.KERNELTUNE_DATABASE_URL
  const data = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share')
  return join(data, 'kerneltune', 'kerneltune.db')
}

/** Opens a store, creating the folder of a SQLite file first. */
export async function openStoreAt(url: string): Promise<Store> {
  if (!isPostgresUrl(url) && url !== ':memory:' && !/^(libsql|https?|wss?):/.test(url)) mkdirSync(dirname(url.replace(/^file:/, '')), { recursive: true })
  return openStore(url)
}

/** Engines, measurement backends and search strategies the server offers by default. */
export function defaultRegistry(options: { analytical?: AnalyticalBackendOptions; extra?: readonly AnyPlugin[] } = {}): Registry {
  return createRegistry([
    vllmEngine(), tgiEngine(), trtllmEngine(), tritonEngine(), onnxEngine(), llamacppRunEngine(),
    analyticalBackend(options.analytical), gpuKernelsBackend(), llamacppRunBackend(), ...searchStrategies(),
    ...(options.extra ?? []),
  ])
}

