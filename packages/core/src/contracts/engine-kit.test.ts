import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { applyControls, formatCommandLine, shellQuote, translationJson, translationScript } from './engine-kit.ts'

/**
 * Runs a printed line through `sh` with `printf` standing in for the program, and returns the
 * argv it received and the named variables as it saw them.
 */
function throughShell(line: string, names: readonly string[]): { argv: string[]; env: Record<string, string> } {
  const out = execFileSync('sh', ['-c', line], { encoding: 'utf8' }).split('\0')
  out.pop()
  const env = Object.fromEntries(names.map((n, i) => [n, out[out.length - names.length + i]!]))
  return { argv: out.slice(0, out.length - names.length), env }
}

describe('applyControls', () => {
  const controls = ['attention_backend', 'kv_layout', 'matmul_path', 'activation_dtype', 'cuda_graph'] as const

  it('should accept the neutral value of an uncontrolled dimension, drop it and say it is left to the engine', () => {
    const r = applyControls('tgi', 'TGI', '3.3', { fusion_strategy: 'none', cuda_graph: 'off', threads: '4' }, controls)
    expect(r).toEqual({ ok: true, combo: { cuda_graph: 'off', threads: '4' }, notes: ['fusion_strategy=none: left to the engine (TGI has no control for fusion_strategy).'] })
  })

  it('should refuse any other value of an uncontrolled dimension with the reason', () => {
    const r = applyControls('tgi', 'TGI', '3.3', { fusion_strategy: 'aggressive' }, controls)
    expect(r).toMatchObject({ ok: false, engine: 'tgi', version: '3.3', dimension: 'fusion_strategy', value: 'aggressive' })
    expect(!r.ok && r.reason).toMatch(/TGI has no control for fusion_strategy.*only the neutral value none/)
  })

  it('should pass controlled and non-core dimensions through untouched', () => {
    expect(applyControls('e', 'E', '1', { attention_backend: 'xformers' }, controls)).toEqual({ ok: true, combo: { attention_backend: 'xformers' }, notes: [] })
  })
})

describe('shellQuote and formatCommandLine', () => {
  // The case: a shell brace-expands and strips an unquoted JSON argument.
  const argv = ['vllm', 'serve', 'MODEL', '--compilation-config', '{"mode":3,"pass_config":{"fuse_attn_quant":true},"cudagraph_mode":"FULL"}', "it's", '', '$HOME', 'a b', '*', '~x', '#c']
  const env = { VLLM_ATTENTION_BACKEND: 'FLASH_ATTN', ODD: `a'b "c" $d` }

  it('should leave safe words bare and single-quote the rest', () => {
    expect(shellQuote('--dtype')).toBe('--dtype')
    expect(shellQuote('{"a":1}')).toBe(`'{"a":1}'`)
    expect(shellQuote("it's")).toBe(`'it'\\''s'`)
    expect(shellQuote('')).toBe("''")
  })

  it('should print a line that hands a POSIX shell exactly the argv and environment, in every form', () => {
    // printf stands in for the program; a child sh prints the variables it was given.
    const probe = ['printf', '%s\\0', ...argv.slice(1)]
    const envProbe = ['sh', '-c', Object.keys(env).map((n) => `printf '%s\\0' "$${n}"`).join('; ')]
    for (const options of [{}, { env: 'export' as const }, { multiline: true }]) {
      expect(throughShell(formatCommandLine({ argv: probe }, options), []).argv).toEqual(argv.slice(1))
      expect(throughShell(formatCommandLine({ argv: envProbe, env }, options), Object.keys(env)).env).toEqual(env)
    }
  })

  it('should print the environment as prefixes or export lines, and a multi-line form', () => {
    expect(formatCommandLine({ argv: ['srv', '--x', '{}'], env: { A: '1' } })).toBe("A=1 srv --x '{}'")
    expect(formatCommandLine({ argv: ['srv', '--x', '1'], env: { A: '1' } }, { env: 'export' })).toBe('export A=1\nsrv --x 1')
    expect(formatCommandLine({ argv: ['srv', 'm', '--x', '1', '--y'] }, { multiline: true })).toBe('srv m \\\n  --x 1 \\\n  --y')
    expect(formatCommandLine({ argv: ['A=1'] })).toBe("'A=1'")
    expect(() => formatCommandLine({ argv: ['srv'], env: { 'A-B': '1' } })).toThrow(/not a shell identifier/)
  })
})

describe('translationScript and translationJson', () => {
  const ok = { ok: true as const, engine: 'toy', version: '1.0', argv: ['cmd', '--f', '{"a":1}'], env: { A: 'x y' }, files: { 'c.json': '{}\n' }, notes: ['n1'] }
  const refused = { ok: false as const, engine: 'toy', version: '1.0', dimension: 'kv_layout', value: 'paged', reason: 'no paging' }

  it('should write a translation as a pasteable script with its files and notes, and a refusal as one line', () => {
    expect(translationScript('Toy', ok)).toBe(`# Toy 1.0\nexport A='x y'\ncmd \\\n  --f '{"a":1}'\n\n# file: c.json\n{}\n\n# notes\n# - n1\n`)
    expect(translationScript('Toy', { ...ok, argv: [], files: {}, notes: [] })).toBe(`# Toy 1.0: no command line\nexport A='x y'\n`)
    expect(translationScript('Toy', refused)).toBe('Toy 1.0 cannot express kv_layout=paged: no paging\n')
  })

  it('should give the translation or the refusal as JSON', () => {
    expect(translationJson(ok)).toEqual(ok)
    expect(translationJson(refused)).toEqual(refused)
  })
})
