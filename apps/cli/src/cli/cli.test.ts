import { describe, expect, expectTypeOf, it } from 'vitest'
import { KerneltuneError } from '@kerneltune/core'
import { defineCommand, type Io } from './command.ts'
import { parseArgs, type FlagSpec, type ParsedFlags } from './args.ts'
import { runCli } from './run.ts'
import { table } from './output.ts'

function memoryIo() {
  const out: string[] = []
  const err: string[] = []
  const io: Io = { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), interactive: false, env: {}, cwd: '/' }
  return { io, out: () => out.join(''), err: () => err.join('') }
}

const echo = defineCommand({
  name: 'echo',
  summary: 'Echo the flags.',
  flags: [
    { name: 'batch', type: 'integer', description: 'Batch size.', min: 1, default: 1 },
    { name: 'quant', type: 'string', description: 'Quantization.', choices: ['Q4_K', 'Q8_0'] },
    { name: 'flash-attn', type: 'boolean', description: 'Flash attention.' },
    { name: 'bits', type: 'list', description: 'Bit widths.' },
  ],
  run(ctx) {
    if (ctx.json) ctx.printJson(ctx.flags)
    else ctx.io.stdout(`batch=${ctx.flags.batch}\n`)
  },
})
const root = defineCommand({ name: 'kerneltune', summary: 'root', subcommands: [echo, defineCommand({ name: 'fail', summary: 'f', run() { throw new KerneltuneError('MEASUREMENT_FAILED', 'no device') } })] })

describe('parseArgs', () => {
  it('should parse typed flags, --no-x, on/off and lists, with defaults', () => {
    const { flags, positionals } = parseArgs(['pos', '--batch=4', '--flash-attn', 'off', '--bits', '2,4'], echo.flags!)
    expect(flags).toMatchObject({ batch: 4, flashAttn: false, bits: ['2', '4'] })
    expect(positionals).toEqual(['pos'])
    expect(parseArgs(['--no-flash-attn'], echo.flags!).flags.flashAttn).toBe(false)
    expect(parseArgs([], echo.flags!).flags.batch).toBe(1)
    // A repeated list flag keeps every value (serve --model-dir A --model-dir B).
    expect(parseArgs(['--bits', '2', '--bits', '4,8'], echo.flags!).flags.bits).toEqual(['2', '4', '8'])
  })

  it('should name the flag and accepted values on bad input', () => {
    expect(() => parseArgs(['--quant', 'Q9'], echo.flags!)).toThrow(/--quant: "Q9" is not accepted; accepted values: Q4_K, Q8_0/)
    expect(() => parseArgs(['--batch', 'x'], echo.flags!)).toThrow(/--batch expects a whole number/)
    expect(() => parseArgs(['--batch', '0'], echo.flags!)).toThrow(/--batch must be at least 1/)
    expect(() => parseArgs(['--nope'], echo.flags!)).toThrow(/unknown flag --nope/)
    expect(() => parseArgs(['--quant'], echo.flags!)).toThrow(/--quant needs a value/)
  })
})

describe('ParsedFlags', () => {
  it('should type a flag declared with literal choices as their union, so commands need no casts', () => {
    const specs = [
      { name: 'design', type: 'string', description: 'd', choices: ['sequential', 'interleaved'] },
      { name: 'free', type: 'string', description: 'f' },
      { name: 'bits', type: 'list', description: 'b', choices: ['2', '4'] },
    ] as const satisfies readonly FlagSpec[]
    expectTypeOf<ParsedFlags<typeof specs>['design']>().toEqualTypeOf<'sequential' | 'interleaved' | undefined>()
    expectTypeOf<ParsedFlags<typeof specs>['free']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<ParsedFlags<typeof specs>['bits']>().toEqualTypeOf<('2' | '4')[] | undefined>()
  })
})

describe('runCli', () => {
  it('should run a subcommand and print JSON', async () => {
    const m = memoryIo()
    expect(await runCli(root, ['echo', '--batch', '8', '--json'], m.io)).toBe(0)
    expect(JSON.parse(m.out())).toMatchObject({ batch: 8, json: true })
  })

  it('should print help with every flag, and list subcommands', async () => {
    const m = memoryIo()
    expect(await runCli(root, ['echo', '--help'], m.io)).toBe(0)
    for (const f of ['--batch', '--quant', '--flash-attn', '--bits', '--json', '--help']) expect(m.out()).toContain(f)
    const r = memoryIo()
    expect(await runCli(root, [], r.io)).toBe(0)
    expect(r.out()).toContain('echo')
  })

  it('should exit 2 on a usage error and 1 on a runtime error, with a JSON error under --json', async () => {
    const u = memoryIo()
    expect(await runCli(root, ['echo', '--batch', 'x'], u.io)).toBe(2)
    expect(u.err()).toContain('--batch')
    const f = memoryIo()
    expect(await runCli(root, ['fail', '--json'], f.io)).toBe(1)
    expect(JSON.parse(f.out())).toEqual({ ok: false, error: { code: 'MEASUREMENT_FAILED', message: 'no device' } })
    const n = memoryIo()
    expect(await runCli(root, ['nosuch'], n.io)).toBe(2)
  })
})

describe('table', () => {
  it('should align columns and right-align numbers', () => {
    expect(table([['a', 1], ['bbb', 22]], ['name', 'n'])).toBe('name  n\n----  --\na      1\nbbb   22\n')
  })
})
