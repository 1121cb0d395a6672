/**
 * `kerneltune translate`: a combination → the engine's command line, environment and config files,
 * or the engine's refusal (which dimension, which value, why).
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { KerneltuneError, isKerneltuneError, translationJson, translationScript } from '@kerneltune/core/lite'
import type { Combo, TranslateContext } from '@kerneltune/core'
import { defineCommand, type Io } from '../cli/command.ts'
import { usageError } from '../cli/args.ts'
import { EXIT } from '../cli/run.ts'
import { ENGINE_NAMES, engineRegistry } from '@kerneltune/compose'

/** The --combo JSON, inline when it starts with `{`, else a file holding it. */
function readCombo(raw: string, io: Io): Combo {
  const text = raw.trimStart().startsWith('{') ? raw : readText(raw, io)
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    throw usageError(`--combo is not valid JSON: ${(err as Error).message}`)
  }
  // Handed on unchecked: every engine's translate checks its input's dimensions and values
  // (core's parseCombo) and names itself in what it refuses, a sharper error than one here.
  return value as Combo
}

function readText(file: string, io: Io): string {
  try {
    return readFileSync(resolve(io.cwd, file), 'utf8')
  } catch (err) {
    throw new KerneltuneError('INVALID_INPUT', `cannot read ${file}: ${(err as Error).message}`, { cause: err })
  }
}

export const translateCommand = defineCommand({
  name: 'translate',
  summary: 'Translate a kernel combination into an engine command line, environment and config files, or show why the engine refuses it.',
  description: `A combination is a JSON object with any of the keys attention_backend, kv_layout, matmul_path,
activation_dtype, fusion_strategy and cuda_graph; a missing key means the engine's default. A
refusal exits 3. --combos translates a JSON-lines file, one result per line (a bad line gives an
error object for that line).`,
  flags: [
    { name: 'engine', type: 'string', choices: ENGINE_NAMES, description: 'The engine to translate for.' },
    { name: 'combo', type: 'string', valueName: 'JSON|FILE', description: 'The combination, inline JSON or a JSON file.' },
    { name: 'combos', type: 'string', valueName: 'FILE.jsonl', description: 'Translate one combination per line; prints one JSON result per line.' },
    { name: 'version', type: 'string', valueName: 'V', description: "Engine version (default: the engine's default; `--help` of an engine's README lists them)." },
    { name: 'model', type: 'string', valueName: 'ID|PATH', description: 'Model id or path to put in the command (a placeholder otherwise).' },
    { name: 'backend', type: 'string', choices: ['tensorrtllm', 'vllm'], description: 'Triton only: the backend serving the model (default tensorrtllm).' },
    { name: 'provider', type: 'string', choices: ['cuda', 'tensorrt'], description: 'ONNX Runtime only: the execution provider (default cuda).' },
    { name: 'vllm-version', type: 'string', valueName: 'V', description: "Triton with --backend vllm only: the vLLM release inside the container, whose engine arguments model.json holds (default: the vllm engine's default)." },
  ],
  examples: [
    `kerneltune translate --engine vllm --combo '{"attention_backend":"flashinfer","cuda_graph":"dynamic"}'`,
    'kerneltune translate --engine triton --backend vllm --combo combo.json --json',
    'kerneltune translate --engine tgi --combos combos.jsonl',
  ],
  jsonOutput: `{ ok: true, engine, version, argv: string[], env: {NAME: value}, files: {name: content}, notes: string[] }
or { ok: false, engine, version, dimension, value, reason }. With --combos: one such object per line,
compact, with "line": N added; a bad line gives { ok: false, line, error: { code, message } }.`,
  async run(ctx) {
    const { flags, io } = ctx
    if (!flags.engine) throw usageError(`--engine is required; one of ${ENGINE_NAMES.join(', ')}`)
    if ((flags.combo === undefined) === (flags.combos === undefined)) throw usageError('give exactly one of --combo JSON|FILE and --combos FILE.jsonl')
    // The one engine (and those it works with), no backend: translating measures nothing
    // (translate-no-backend.test.ts).
    const engine = (await engineRegistry([flags.engine])).get('engine', flags.engine)
    // Each engine reads the options that are its own (Triton's backend, ONNX Runtime's provider).
    const options = { ...(flags.backend ? { backend: flags.backend } : {}), ...(flags.provider ? { provider: flags.provider } : {}), ...(flags.vllmVersion ? { vllmVersion: flags.vllmVersion } : {}) }
    const context: TranslateContext = { ...(flags.version ? { version: flags.version } : {}), ...(flags.model ? { model: flags.model } : {}), options }
    // A bad --version is one usage error, not an error on every line.
    await engine.translate({}, context)

    if (flags.combos !== undefined) {
      const lines = readText(flags.combos, io).split('\n')
      for (let i = 0; i < lines.length; i++) {
        const text = lines[i]!.trim()
        if (text === '') continue
        let out: Record<string, unknown>
        try {
          out = { line: i + 1, ...translationJson(await engine.translate(JSON.parse(text), context)) }
        } catch (err) {
          const error = err instanceof SyntaxError ? { code: 'INVALID_INPUT', message: `not valid JSON: ${err.message}` }
            : isKerneltuneError(err) ? { code: err.code, message: err.message } : { code: 'INTERNAL', message: String(err instanceof Error ? err.message : err) }
          out = { ok: false, line: i + 1, error }
        }
        io.stdout(JSON.stringify(out) + '\n')
      }
      return EXIT.OK
    }

    const result = await engine.translate(readCombo(flags.combo!, io), context)
    if (ctx.json) ctx.printJson(translationJson(result))
    else io.stdout(translationScript(engine.displayName, result))
    return result.ok ? EXIT.OK : EXIT.CHECK_FAILED
  },
})
