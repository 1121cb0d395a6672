import { classifyServerLog, servingCommand } from '@kerneltune/core'
import { servingCommandProblems, servingProblems } from '@kerneltune/engine-conformance'
import { describe, expect, it } from 'vitest'
import { llamacppServerEngine } from './server-settings.ts'
import { MODEL_LOADED_LINE } from './serving.ts'

const serving = llamacppServerEngine().serving!

describe('the llama.cpp serving capability', () => {
  it('should recognize llama-server\'s model-loaded line, this version\'s and older ones', () => {
    // server.cpp:485 (SRV_INF "model loaded"), as printed with llama.cpp's log prefix; older servers: main's LOG_INF.
    expect(MODEL_LOADED_LINE.test('0.00.494.640 I srv  llama_server: model loaded')).toBe(true)
    expect(MODEL_LOADED_LINE.test('main: model loaded')).toBe(true)
    expect(MODEL_LOADED_LINE.test("srv    load_model: loading model 'm.gguf'")).toBe(false)
  })

  it('should read the version and slots from /props, and nothing from another server\'s answer', () => {
    expect(serving.version.read({ build_info: 'b1-de3ff81', total_slots: 4, model_alias: 'm' })).toEqual({ version: 'llama.cpp b1-de3ff81', slots: 4, modelAlias: 'm' })
    expect(serving.version.read({ version: '0.11.0' })).toBeUndefined()
    expect(serving.version.read('text')).toBeUndefined()
  })

  it('should classify its own out-of-memory, refusal and crash lines', () => {
    expect(classifyServerLog(serving, ['load', 'ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9000.00 MiB on device 0: cudaMalloc failed: out of memory'])?.class).toBe('out-of-memory')
    expect(classifyServerLog(serving, ['error while handling argument "--cache-type-k": Unsupported cache type: bogus'])?.class).toBe('refused')
    expect(classifyServerLog(serving, ['/src/ggml.c:1738: GGML_ASSERT(n > 0) failed'])?.class).toBe('crashed')
    expect(classifyServerLog(serving, ['srv  llama_server: model loaded'])).toBeUndefined()
  })

  it('should drop the bytes of a file that is not a GGUF from error lines', () => {
    // llama-server's own line for such a file, as the built binary prints it: no file bytes pass.
    expect(serving.logs.redact!("0.00.006.110 E gguf_init_from_reader: invalid magic characters: 'root', expected 'GGUF'")).toBe("0.00.006.110 E gguf_init_from_reader: invalid magic characters, expected 'GGUF'")
  })

  it('should launch the translation\'s argv with the found binary and the metrics switch', async () => {
    const t = await llamacppServerEngine().translate({ threads: '2', parallel: '2' }, { model: 'm.gguf', options: { host: '127.0.0.1', port: '{port}' } })
    if (!t.ok) throw new Error(t.reason)
    const cmd = servingCommand(serving, t, '/opt/llama-server')
    expect(cmd.argv).toEqual(['/opt/llama-server', ...t.argv.slice(1), '--metrics'])
    expect(serving.metrics.lacks?.kvCacheUsage).toMatch(/no KV-cache usage metric/)
    // The conformance suite's checks of a serving capability.
    expect(servingProblems(serving)).toEqual([])
    expect(servingCommandProblems(serving, t)).toEqual([])
  })
})
