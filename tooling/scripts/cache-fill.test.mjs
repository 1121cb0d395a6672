import { afterAll, describe, it, expect } from 'vitest'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const LIB = join(import.meta.dirname, 'cache-fill.sh')
const dirs = []
const tempDir = (prefix) => {
  const d = mkdtempSync(join(tmpdir(), prefix))
  dirs.push(d)
  return d
}
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }) })

/** Runs `cache_fill DEST sh -c SCRIPT` in bash, as pack-device.sh does; resolves with the exit code and stderr. */
function fill(dest, script, env = {}) {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `set -euo pipefail; umask 022; source "$0"; cache_fill "$1" sh -c "$2"`, LIB, dest, script], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (c) => (stderr += c))
    child.on('close', (code) => resolve({ code, stderr }))
  })
}

// Each producer writes half its output, says it started, and goes on only once the other has
// started too (or after 10 s), so that both fills are writing at the same time on every run.
const PRODUCER = 'echo "first half $ID"; : >"$MARKS/$ID"; i=0; while [ ! -e "$MARKS/$OTHER" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done; echo "second half $ID"'

describe('cache_fill (pack-device.sh\'s cache)', () => {
  it('should let two fills of one cache file run at once, both succeed, and leave one whole file', async () => {
    const dir = tempDir('cache-fill-')
    const marks = tempDir('cache-fill-marks-')
    const dest = join(dir, 'node-v20.20.2-x86_64-0123456789ab.xz')
    const [a, b] = await Promise.all([
      fill(dest, PRODUCER, { ID: 'a', OTHER: 'b', MARKS: marks }),
      fill(dest, PRODUCER, { ID: 'b', OTHER: 'a', MARKS: marks }),
    ])
    expect([a, b]).toEqual([{ code: 0, stderr: '' }, { code: 0, stderr: '' }])
    // Both producers were running together (each saw the other's mark).
    expect(readdirSync(marks).sort()).toEqual(['a', 'b'])
    const text = readFileSync(dest, 'utf8')
    expect(['first half a\nsecond half a\n', 'first half b\nsecond half b\n']).toContain(text)
    expect(readdirSync(dir)).toEqual(['node-v20.20.2-x86_64-0123456789ab.xz'])
    // The mode a plain redirection gives under umask 022, not mktemp's 0600.
    expect(statSync(dest).mode & 0o777).toBe(0o644)
  })

  it('should leave neither the cache file nor a temporary file when the producer fails', async () => {
    const dir = tempDir('cache-fill-')
    const dest = join(dir, 'llama.cpp-0123456789ab-v3.tar.xz')
    const r = await fill(dest, 'echo partial output; exit 3')
    expect(r.code).toBe(1)
    expect(readdirSync(dir)).toEqual([])
  })
})
