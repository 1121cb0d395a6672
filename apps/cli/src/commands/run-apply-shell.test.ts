/**
 * Issue 13: `run apply` printed `vllm serve MODEL ... --compilation-config {"mode":3,...}` unquoted,
 * so a shell brace-expanded and stripped the JSON. The printed lines, run through sh with printf
 * standing in for vllm, must hand over exactly the translation's argv and environment.
 */
import { execFileSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { ApplyResult } from '@kerneltune/web/api-types'
import { cli, SMALL_RUN, tempDir, translated } from './run.test-helpers.ts'

const t = tempDir('kt-run-apply-shell-')
const db = join(t.dir, 'kt.db')
afterAll(() => rmSync(t.dir, { recursive: true, force: true }))

describe('kerneltune run apply (human output)', () => {
  it('should print export lines and a quoted command that sh passes on unchanged', async () => {
    const request = t.file('request.json', { ...SMALL_RUN, restrict: { ...SMALL_RUN.restrict, fusion_strategy: ['aggressive'], cuda_graph: ['per-shape'] } })
    const created = await cli(t.dir, ['run', 'create', request, '--db', db, '--json'])
    expect(created.code).toBe(0)
    const applied = await cli<ApplyResult>(t.dir, ['run', 'apply', created.json.id, '--db', db, '--json'])
    const { argv, env } = translated(applied.json.translation)
    expect(argv.some((a) => a.startsWith('{'))).toBe(true)

    const human = await cli(t.dir, ['run', 'apply', created.json.id, '--db', db])
    expect(human.code).toBe(0)
    const names = Object.keys(env)
    const script = human.out.replace(/^vllm serve/m, `printf '%s\\0' vllm serve`) + (names.length ? `\nprintf '%s\\0' ${names.map((n) => `"$${n}"`).join(' ')}` : '')
    const out = execFileSync('sh', ['-c', script], { encoding: 'utf8' }).split('\0').slice(0, -1)
    expect(out.slice(0, argv.length)).toEqual(argv)
    expect(out.slice(argv.length)).toEqual(names.map((n) => env[n]))
  })
})
