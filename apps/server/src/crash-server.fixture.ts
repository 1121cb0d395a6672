/**
 * A server for the crash test: the default plugins, but the analytical backend waits 40 ms per
 * repetition so that a tune session is still running when the test kills the process. Prints
 * `{"url": …}` on stdout once listening.
 */
import process from 'node:process'
import { defaultRegistry, serve } from './node.ts'

const s = await serve({ port: 0, databaseUrl: process.env.KERNELTUNE_DATABASE_URL!, registry: defaultRegistry({ analytical: { delayMs: 40 } }), log: () => {} })
process.stdout.write(JSON.stringify({ url: s.url }) + '\n')
