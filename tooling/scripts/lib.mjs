// Helpers shared by the project scripts: workspace discovery and running commands with their
// output both shown and captured (so the test summary can count what each runner reported).
import { spawn } from 'node:child_process'
import { readdirSync, readFileSync, existsSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const BIN = join(ROOT, 'node_modules', '.bin')

/** A workspace member's package.json. */
export function readPackage(dir) {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
}

/** Workspace packages under packages/ with their package.json. */
export function libraryPackages() {
  const dir = join(ROOT, 'packages')
  return readdirSync(dir)
    .filter((d) => existsSync(join(dir, d, 'package.json')))
    .map((d) => ({ dir: join(dir, d), rel: `packages/${d}`, pkg: readPackage(join(dir, d)) }))
}

/** True under CI=true (or CI=1): parts that CI provides must then be there, not skipped. */
export function inCi() {
  const v = process.env.CI?.toLowerCase()
  return v === 'true' || v === '1'
}

/** Runs a command, streaming its output, and resolves with its exit code and captured text. */
export function run(cmd, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, PATH: `${BIN}:${process.env.PATH}`, TURBO_TELEMETRY_DISABLED: '1', FORCE_COLOR: '0', NO_COLOR: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let text = ''
    const onData = (stream) => (chunk) => {
      text += chunk.toString()
      if (!options.quiet) stream.write(chunk)
    }
    child.stdout.on('data', onData(process.stdout))
    child.stderr.on('data', onData(process.stderr))
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), signal, text }))
  })
}

// eslint-disable-next-line no-control-regex
export const stripAnsi = (s) => s.replace(/\u001b\[[0-9;]*m/g, '')
