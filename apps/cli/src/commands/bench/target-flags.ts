/**
 * The flags that name the server a serving command measures: a model to launch with the engine's
 * server, a running `--endpoint`, or a `--launch` template, and the settings to launch with. One
 * list for `bench serve` and `bench capacity`, with the two flags that store the run.
 */
import { SERVING_ENGINE_NAMES } from '@kerneltune/compose'

export const SERVER_TARGET_FLAGS = [
  { name: 'engine', type: 'string', description: 'Engine whose server is launched (any with a serving capability), or whose version probe and metric names a running server is read with.', choices: SERVING_ENGINE_NAMES, default: 'llamacpp' },
  { name: 'gguf', type: 'string', description: 'The GGUF model file to serve.', valueName: 'FILE' },
  { name: 'endpoint', type: 'string', description: 'Measure a server that is already running at this URL instead of launching one.', valueName: 'URL' },
  { name: 'launch', type: 'string', description: "Launch this shell command instead; {port} is replaced by a free port, {args} by the translated --combo flags.", valueName: 'CMD' },
  { name: 'combo', type: 'string', description: 'The engine\'s settings to launch with, as JSON: {"threads":"2","parallel":"2"}.', valueName: 'JSON' },
] as const

export const STORE_FLAGS = [
  { name: 'db', type: 'string', description: 'Store the run in this database (SQLite path or postgres:// URL) instead of the embedded store.', valueName: 'URL' },
  { name: 'no-store', type: 'boolean', description: 'Do not store the measurement as a run (by default it is, in the embedded store or --db: kerneltune run show RUN_ID).' },
] as const

/** Says on stderr why a measurement was not stored as a run (a server that does not say its model's size). */
export const notStoredNote = (stored: object | undefined, command: string) => (stored && 'notStored' in stored ? `bench ${command}: not stored as a run: ${String(stored.notStored)}\n` : '')

/** The stored run's line under the human output. */
export const storedLine = (stored: object | undefined) => (stored && 'runId' in stored ? `stored as run ${String(stored.runId)} (kerneltune run show ${String(stored.runId)})\n` : '')
