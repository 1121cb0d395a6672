/**
 * Runs the instant server as its own process (`--port N [--token-delay-ms D]`), so the launcher,
 * the session and the server backend can be tested end to end without a model. Test use only.
 */
import { startInstantServer } from './instant-server.node.ts'

const arg = (name: string) => {
  const i = process.argv.indexOf(name)
  return i >= 0 ? process.argv[i + 1] : undefined
}
const s = await startInstantServer({ port: Number(arg('--port') ?? 0), tokenDelayMs: Number(arg('--token-delay-ms') ?? 0) })
console.log(`instant server listening on ${s.baseUrl}`)
