// The suite tests the page as the sources are now: build it once before the files run. In a child
// process with NODE_ENV=production: vitest sets NODE_ENV=test, which would bundle React's
// development build (twice the size), and the server then serves that to everyone after the suite.
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'

export default function setup(): void {
  const vite = createRequire(import.meta.url).resolve('vite/package.json').replace(/package\.json$/, 'bin/vite.js')
  execFileSync(process.execPath, [vite, 'build', '--logLevel', 'error'], { cwd: new URL('..', import.meta.url), env: { ...process.env, NODE_ENV: 'production' }, stdio: 'inherit' })
}
