#!/usr/bin/env node
// A reproducible noisy neighbour for benchmarks that compare measurement designs: worker threads
// that spin the CPU, their number changing at random moments, so the machine's load drifts and
// jumps the way other jobs on a shared box make it. The schedule comes from a seed: the same seed
// gives the same sequence of levels and dwell times (wall-clock alignment with the measured work
// is of course not reproducible).
//
//   node bench/support/noise-maker.mjs --seed 1 --max 2 --mean-ms 3000
//
// Every level change is printed as one JSON line {"t": ms since start, "level": busy workers}, so
// the caller can say how much time was spent at each level. Stops on SIGTERM/SIGINT or when its
// parent closes stdin.
import { Worker } from 'node:worker_threads'

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}
const seed = arg('seed', 1)
const max = arg('max', 2)
const meanMs = arg('mean-ms', 3000)
if (!(Number.isInteger(max) && max >= 1 && meanMs > 0)) {
  console.error('noise-maker: --max must be a whole number >= 1 and --mean-ms > 0')
  process.exit(2)
}

// mulberry32, as everywhere else in kerneltune's seeded code.
let a = seed >>> 0
const random = () => {
  a = (a + 0x6d2b79f5) >>> 0
  let t = Math.imul(a ^ (a >>> 15), a | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

// flags[i] = 1: worker i spins; 0: it sleeps on the flag until woken.
const flags = new Int32Array(new SharedArrayBuffer(4 * max))
const spinner = `
const { workerData } = require('node:worker_threads')
const flags = workerData.flags, i = workerData.i
let x = 0
for (;;) {
  if (Atomics.load(flags, i) === 0) Atomics.wait(flags, i, 0)
  for (let k = 0; k < 1e5; k++) x = (x * 1.0000001 + k) % 1e9
}`
const workers = Array.from({ length: max }, (_, i) => new Worker(spinner, { eval: true, workerData: { flags, i } }))
const started = Date.now()
let timer
function step() {
  const level = Math.floor(random() * (max + 1))
  for (let i = 0; i < max; i++) {
    Atomics.store(flags, i, i < level ? 1 : 0)
    Atomics.notify(flags, i)
  }
  process.stdout.write(JSON.stringify({ t: Date.now() - started, level }) + '\n')
  // Exponential dwell times: bursts of every length, most short, some long (slow drift).
  timer = setTimeout(step, -meanMs * Math.log(1 - random()))
}
function stop() {
  clearTimeout(timer)
  process.stdout.write(JSON.stringify({ t: Date.now() - started, level: 0, stopped: true }) + '\n')
  for (const w of workers) void w.terminate()
  process.exit(0)
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
process.stdin.on('end', stop)
process.stdin.resume()
step()
