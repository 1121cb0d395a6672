/** A server dispatching to Redis for the distributed tests; prints `{"url": …}` once listening. */
import process from 'node:process'
import { defaultRegistry, serve } from '../node.ts'

const env = process.env
const s = await serve({ port: 0, databaseUrl: env.KT_DB!, redisUrl: env.KT_REDIS!, redisPrefix: env.KT_PREFIX!, registry: defaultRegistry(), log: () => {} })
process.stdout.write(JSON.stringify({ url: s.url }) + '\n')
process.once('SIGTERM', () => void s.close().then(() => process.exit(0)))
