/**
 * How fast `kerneltune model synth` writes a model, for the GPU kit that synthesizes 1B and 8B
 * models on the device within minutes: a 1B llama in F16 and Q4_0 with fill 'random' (every
 * weight from the PRNG and encoded) and 'tiled' (each tensor's first chunk repeated), written to
 * a temporary folder with writeGgufFile, and for 'tiled' also the chunks alone, without the disk
 * (what the generator costs), and as a floor the same number of zero bytes written in 16 MB
 * writes (what the disk allows, so the gap to it is the writer's). One run of each; the machine
 * this ran on is shared, so its load average is recorded before and after.
 * Writes bench/results/gguf-synth.json. Needs about 2.5 GB of free space in the temp folder.
 *
 *   pnpm bench gguf-synth            (KT_SYNTH_PARAMS=1B by default)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { open } from 'node:fs/promises'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ggufChunks, parseParamCount, synthLlama, type SynthFill, type SynthQuant } from '@kerneltune/gguf'
import { writeGgufFile } from '@kerneltune/gguf/node'

const HERE = dirname(fileURLToPath(import.meta.url))
const params = parseParamCount(process.env.KT_SYNTH_PARAMS ?? '1B')
const dir = mkdtempSync(join(os.tmpdir(), 'kt-synth-bench-'))
const loadBefore = os.loadavg()
type Target = 'file' | 'chunks only' | 'disk only'
const runs: { quant: SynthQuant; fill: SynthFill | null; target: Target; bytes: number; seconds: number; mbPerSec: number }[] = []

/** The same number of bytes written as 16 MB buffers of zeros: what the disk allows this process. */
async function diskOnly(bytes: number): Promise<void> {
  const handle = await open(join(dir, 'zeros.bin'), 'w')
  const buf = new Uint8Array(16 << 20)
  try {
    for (let left = bytes; left > 0; left -= buf.length) await handle.write(buf, 0, Math.min(left, buf.length))
  } finally {
    await handle.close()
    rmSync(join(dir, 'zeros.bin'))
  }
}

async function one(quant: SynthQuant, fill: SynthFill | null, target: Target) {
  const m = synthLlama({ params, quant, fill: fill ?? 'random' })
  const t0 = performance.now()
  if (target === 'disk only') {
    await diskOnly(m.layout.totalBytes)
  } else if (target === 'file') {
    await writeGgufFile(join(dir, `m-${quant}-${fill}.gguf`), m.file)
    rmSync(join(dir, `m-${quant}-${fill}.gguf`))
  } else {
    let n = 0
    for await (const c of ggufChunks(m.file, m.layout)) n += c.length
    if (n !== m.layout.totalBytes) throw new Error(`chunks add up to ${n}, not ${m.layout.totalBytes}`)
  }
  const seconds = (performance.now() - t0) / 1000
  const r = { quant, fill, target, bytes: m.layout.totalBytes, seconds, mbPerSec: m.layout.totalBytes / 1e6 / seconds }
  console.log(`${quant} ${fill ?? '-'} (${target}): ${(r.bytes / 1e6).toFixed(0)} MB in ${seconds.toFixed(2)} s = ${r.mbPerSec.toFixed(0)} MB/s`)
  runs.push(r)
}

try {
  for (const quant of ['F16', 'Q4_0'] as const) {
    await one(quant, null, 'disk only')
    await one(quant, 'tiled', 'chunks only')
    await one(quant, 'tiled', 'file')
    await one(quant, 'random', 'file')
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}

const speedup = (quant: SynthQuant) => {
  const file = runs.filter((r) => r.quant === quant && r.target === 'file')
  return file.find((r) => r.fill === 'random')!.seconds / file.find((r) => r.fill === 'tiled')!.seconds
}
const out = {
  bench: 'gguf-synth',
  date: new Date().toISOString(),
  node: process.version,
  cpu: os.cpus()[0]?.model,
  cpus: os.cpus().length,
  loadAverage: { before: loadBefore, after: os.loadavg() },
  note: 'one run each on a shared, loaded machine (see loadAverage); "file" is writeGgufFile to the temp folder (page cache, not fsync), "chunks only" iterates ggufChunks without writing, "disk only" writes as many zero bytes in 16 MB writes',
  targetParams: params,
  runs,
  tiledSpeedup: { F16: speedup('F16'), Q4_0: speedup('Q4_0') },
}
const file = join(HERE, 'results', 'gguf-synth.json')
mkdirSync(dirname(file), { recursive: true })
writeFileSync(file, JSON.stringify(out, null, 2) + '\n')
console.log(`wrote ${file}`)
