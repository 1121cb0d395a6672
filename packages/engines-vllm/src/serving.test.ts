import { classifyServerLog } from '@kerneltune/core'
import { servingEvidenceProblems } from '@kerneltune/engine-conformance'
import { describe, expect, it } from 'vitest'
import { vllmEngine } from './engine.ts'
import { VLLM_DEFAULT_VERSION } from './releases.ts'

const serving = vllmEngine().serving!

describe('the vLLM serving capability', () => {
  it('should read /version and nothing from another server\'s answer', () => {
    expect(serving.version.read({ version: '0.32.0' })).toEqual({ version: 'vLLM 0.32.0' })
    expect(serving.version.read({ build_info: 'b1' })).toBeUndefined()
  })

  it('should classify argparse refusals, CUDA out of memory and a dead engine', () => {
    expect(classifyServerLog(serving, ['vllm serve: error: unrecognized arguments: --bogus'])?.class).toBe('refused')
    expect(classifyServerLog(serving, ['torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB'])?.class).toBe('out-of-memory')
    expect(classifyServerLog(serving, ['vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue.'])?.class).toBe('crashed')
    expect(classifyServerLog(serving, ['INFO:     Application startup complete.'])).toBeUndefined()
  })

  it('should name each route and mapped metric in evidence that cites the release or says it is not verified there', () => {
    expect(servingEvidenceProblems(serving, `v${VLLM_DEFAULT_VERSION}`)).toEqual([])
  })

  it('should name the release in its install hint', () => {
    expect(serving.binary.installHint).toMatch(/pip install vllm==0\.32\.0/)
  })
})
