/**
 * Test fixture (run as its own process by launcher.node.test.ts): launches the server given as
 * JSON argv in process.argv[2] (then 'pdeathsig' or 'no-pdeathsig', and the health path), prints `{"pid": N}` once it is ready, then waits to be killed.
 * It stands for a kerneltune process that dies (SIGKILL) while its server runs.
 */
import { launchServer } from './launcher.node.ts'

const argv = JSON.parse(process.argv[2] ?? '[]') as string[]
const pdeathsig = process.argv[3] !== 'no-pdeathsig'
const server = await launchServer({ argv, pdeathsig, healthPath: process.argv[4] ?? '/' })
process.stdout.write(`${JSON.stringify({ pid: server.pid, port: server.port })}\n`)
setInterval(() => {}, 1 << 30)
