import { describe, it, expect } from 'vitest'
import { classifySandboxRun, deniedPermission, SandboxLimitsSchema } from './sandbox.ts'

const limits = SandboxLimitsSchema.parse({})
const run = (over: Partial<Parameters<typeof classifySandboxRun>[0]>) =>
  classifySandboxRun({ harness: undefined, exitCode: 0, signal: null, timedOut: false, stderr: '', wallMs: 5, limits, permissions: [], ...over })

describe('classifySandboxRun', () => {
  it('should pass a successful result through', () => {
    expect(run({ harness: { ok: true, result: [1, 2], wallMs: 1 } })).toMatchObject({ outcome: 'ok', ok: true, result: [1, 2] })
  })
  it('should name the permission a denied operation needed', () => {
    const r = run({ harness: { ok: false, stage: 'run', error: { name: 'NotCapable', message: 'Requires net access to "127.0.0.1:80", run again with the --allow-net flag' }, wallMs: 1 } })
    expect([r.outcome, r.denied]).toEqual(['denied', 'net'])
  })
  it('should call a timeout a timeout even when a result file exists', () => {
    expect(run({ timedOut: true, harness: { ok: true, result: 1, wallMs: 1 }, signal: 'SIGKILL', exitCode: null }).outcome).toBe('timeout')
  })
  it('should recognise memory exhaustion from stderr or the thrown error', () => {
    expect(run({ exitCode: null, signal: 'SIGTRAP', stderr: 'Fatal JavaScript out of memory: Reached heap limit' }).outcome).toBe('memory')
    expect(run({ harness: { ok: false, stage: 'run', error: { name: 'RangeError', message: 'Array buffer allocation failed' }, wallMs: 1 } }).outcome).toBe('memory')
  })
  it('should separate a load failure, a throw and a crash', () => {
    expect(run({ harness: { ok: false, stage: 'load', error: { name: 'SyntaxError', message: 'x' }, wallMs: 1 } }).outcome).toBe('invalid-module')
    expect(run({ harness: { ok: false, stage: 'run', error: { name: 'Error', message: 'x' }, wallMs: 1 } }).outcome).toBe('threw')
    expect(run({ exitCode: 139, stderr: 'Segmentation fault' }).outcome).toBe('crashed')
  })
  it('should not mistake an ordinary error for a denial', () => {
    expect(deniedPermission({ name: 'TypeError', message: 'x is not a function' })).toBeUndefined()
  })
})
