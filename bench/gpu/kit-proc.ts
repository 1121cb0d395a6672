/**
 * Child processes for the GPU kit: the bundled CLI, llama-bench, nvidia-smi. Every call has a
 * deadline (the device lease is short, and a hung process must not eat the rest of it) and keeps
 * the tail of stderr, so a failed step reports the tool's own words.
 */
import { spawn } from 'node:child_process'
import { appendFileSync } from 'node:fs'

export interface ProcResult {
  readonly code: number | null
  readonly signal: string | null
  readonly stdout: string
  readonly stderrTail: string
  readonly seconds: number
  readonly timedOut: boolean
}

export interface ProcOptions {
  readonly timeoutMs: number
  readonly env?: Readonly<Record<string, string>>
  /** Forwarded line by line (progress bars of the CLI), besides being kept. */
  readonly onStderr?: (line: string) => void
}

export function runProc(cmd: string, args: readonly string[], o: ProcOptions): Promise<ProcResult> {
  const t0 = Date.now()
  return new Promise((resolve) => {
    let stdout = ''
    let stderr = ''
    let timedOut = false
    const child = spawn(cmd, args, { env: { ...process.env, ...o.env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    // A process group of its own, so a timeout also stops what the command launched (llama-server).
    const kill = (sig: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, sig)
      } catch {
        /* already gone */
      }
    }
    const timer = setTimeout(() => {
      timedOut = true
      kill('SIGTERM')
      setTimeout(() => kill('SIGKILL'), 5000).unref()
    }, o.timeoutMs)
    child.stdout.on('data', (d: Buffer) => void (stdout += d.toString()))
    let pending = ''
    child.stderr.on('data', (d: Buffer) => {
      const text = d.toString()
      stderr = (stderr + text).slice(-8000)
      if (!o.onStderr) return
      pending += text
      const lines = pending.split(/\r?\n|\r/)
      pending = lines.pop() ?? ''
      for (const l of lines) if (l.trim()) o.onStderr(l)
    })
    const done = (code: number | null, signal: string | null) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderrTail: stderr.slice(-4000), seconds: (Date.now() - t0) / 1000, timedOut })
    }
    child.on('error', (e) => {
      stderr += `\n${e.message}`
      done(null, null)
    })
    child.on('close', (code, signal) => done(code, signal))
  })
}

/** The first JSON value on stdout (the CLI prints one object with --json; llama-bench an array). */
export function parseJsonOut(r: ProcResult): unknown {
  const text = r.stdout.trim()
  const start = text.search(/[[{]/)
  if (start < 0) return undefined
  try {
    return JSON.parse(text.slice(start))
  } catch {
    return undefined
  }
}

/** A log that goes to stderr and to a file under $OUT, so a killed run still leaves its story. */
export function kitLogger(file: string): (msg: string) => void {
  return (msg) => {
    const line = `[${new Date().toISOString().slice(11, 19)}] ${msg}`
    process.stderr.write(`${line}\n`)
    try {
      appendFileSync(file, `${line}\n`)
    } catch {
      /* the log is a convenience; a full disk must not stop the measurements */
    }
  }
}
