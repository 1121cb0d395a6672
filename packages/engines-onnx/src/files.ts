/** The two files an ONNX Runtime translation writes, for every execution provider. */
import type { Translation } from '@kerneltune/core'

export const SESSION_FILE = 'session_options.json'
export const PROVIDER_FILE = 'provider_options.json'

/** The session options (when any) and the provider list with its options, as the translation's files. */
export function ortFiles(session: Readonly<Record<string, unknown>>, provider: string, providerOptions: Readonly<Record<string, unknown>>): Record<string, string> {
  const files: Record<string, string> = {}
  if (Object.keys(session).length > 0) files[SESSION_FILE] = JSON.stringify(session, null, 2) + '\n'
  files[PROVIDER_FILE] = JSON.stringify({ providers: [provider], provider_options: [providerOptions] }, null, 2) + '\n'
  return files
}

/** A translation of ONNX Runtime, a library: no command line or environment, the two files and the notes. */
export function ortTranslation(engine: string, version: string, files: Record<string, string>, notes: readonly string[]): Translation {
  return { ok: true, engine, version, argv: [], env: {}, files, notes: [...notes] }
}
