import { describe, it, expect } from 'vitest'
import { run } from './lib.mjs'

// run-runtime-tests.mjs counts a runtime that exits non-zero after reporting 0 failed tests as a
// failure (CI once saw deno print `ok | 20 passed` and then abort on heap corruption); the signal
// is what its message names.
describe('run', () => {
  it('should report a child killed by a signal as exit code 1 with the signal named', async () => {
    const r = await run('sh', ['-c', 'echo ok; kill -ABRT $$'], { quiet: true })
    expect(r).toEqual({ code: 1, signal: 'SIGABRT', text: 'ok\n' })
  })

  it('should report a clean exit as code 0 with no signal', async () => {
    expect(await run('sh', ['-c', 'exit 0'], { quiet: true })).toEqual({ code: 0, signal: null, text: '' })
  })
})
