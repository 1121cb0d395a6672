/**
 * The LLM and human providers.
 *
 * llm: asks an OpenAI-compatible endpoint (POST {endpoint}/v1/chat/completions) for a WGSL
 * variant. The prompt carries the kernel's contract (bindings, weight readers, dispatch, what
 * each workgroup computes) and its reference (the tuned kernel's WGSL and the CPU reference's
 * definition). The reply's first ```wgsl block (or the whole reply) becomes the kernel, dispatched
 * like the parent. A model that writes nonsense yields candidates that fail verification.
 *
 * human: a module file a person wrote (same contract as every sandbox module).
 */
import { CONTRACT_VERSIONS, KerneltuneError } from '@kerneltune/core'
import { bindings, defaultConfig, dispatchSize, generateWgsl, weightReader } from '@kerneltune/gpu-kernels'
import { kernelModule } from './candidate.ts'
import { checkRequest, kernelFamily, perWorkgroup, type Candidate, type GenerateRequest, type KernelProvider } from './providers.ts'

export interface LlmProviderOptions {
  endpoint: string
  model?: string
  maxTokens?: number
  temperature?: number
  fetch?: typeof fetch
}

export function llmPrompt(request: GenerateRequest): string {
  const { kind, problem } = request
  const config = defaultConfig(kind, problem.format)
  const parent = generateWgsl(kind, problem.format, config)
  const groups = dispatchSize(kind, config, problem)
  return `Write one WGSL compute shader, a faster variant of the reference kernel below. Reply with the shader in a \`\`\`wgsl block.

Contract (keep exactly): entry point "main"; these bindings and helpers (copy them verbatim):
${bindings(problem.format, 'f32')}${weightReader(problem.format)}
It is dispatched as ${JSON.stringify(groups)} workgroups for m=${problem.m}, n=${problem.n}, k=${problem.k} (params.nb = k/32 blocks of 32 weights).
It must write y[row * n + j] = sum over i of x[row * k + i] * W[j][i] for every row < m and j < n, where W is the ${problem.format} weight matrix
read with wgroup(blk, g) (group g of block blk: two vec4 columns for activation offsets off0(g) and off1(g)) times wscale(blk).
Results are compared with a float64 CPU reference with a tolerance of a few ulps times k.

Reference kernel (correct, the one to beat):
\`\`\`wgsl
${parent.code}\`\`\`
`
}

export function extractWgsl(reply: string): string {
  const m = /```(?:wgsl)?\s*\n([\s\S]*?)```/.exec(reply)
  return (m ? m[1]! : reply).trim()
}

export function llmProvider(options: LlmProviderOptions): KernelProvider {
  const doFetch = options.fetch ?? fetch
  return {
    name: 'llm', kind: 'kernel-generator', apiVersion: CONTRACT_VERSIONS['kernel-generator'],
    async generate(request) {
      checkRequest(request)
      const prompt = llmPrompt(request)
      const groups = dispatchSize(request.kind, defaultConfig(request.kind, request.problem.format), request.problem)
      const out: Candidate[] = []
      for (let i = 0; i < request.count; i++) {
        const url = `${options.endpoint.replace(/\/$/, '')}/v1/chat/completions`
        let res: Response
        try {
          res = await doFetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: options.model ?? 'default', messages: [{ role: 'user', content: prompt }], max_tokens: options.maxTokens ?? 512, temperature: options.temperature ?? 0.7, seed: i }) })
        } catch (e) {
          throw new KerneltuneError('DEVICE_UNAVAILABLE', `the LLM endpoint ${url} did not answer (${e instanceof Error ? e.message : String(e)}); start an OpenAI-compatible server (e.g. llama-server) and pass --endpoint URL`)
        }
        if (!res.ok) throw new KerneltuneError('MEASUREMENT_FAILED', `the LLM endpoint ${url} answered ${res.status}: ${(await res.text()).slice(0, 300)}`)
        const doc = (await res.json()) as { choices?: { message?: { content?: string } }[]; model?: string }
        const reply = doc.choices?.[0]?.message?.content ?? ''
        out.push({
          name: `llm-${i + 1}.${request.kind}.${request.problem.format}`,
          provider: 'llm',
          kernelFamily: kernelFamily(request.kind, request.problem),
          source: kernelModule({ code: extractWgsl(reply), entryPoint: 'main', groups, per: perWorkgroup(request.kind, defaultConfig(request.kind, request.problem.format)) }),
          provenance: { prompt, model: doc.model ?? options.model ?? 'default', description: `LLM reply ${i + 1} (${reply.length} characters)`, parent: `${request.kind} default` },
        })
      }
      return out
    },
  }
}

/** A person's module: used as it is. */
export function humanProvider(file: { name: string; source: string }): KernelProvider {
  return {
    name: 'human', kind: 'kernel-generator', apiVersion: CONTRACT_VERSIONS['kernel-generator'],
    async generate(request) {
      checkRequest(request)
      return [{ name: file.name, provider: 'human', kernelFamily: kernelFamily(request.kind, request.problem), source: file.source, provenance: { file: file.name, description: 'submitted by a person', parent: `${request.kind} default` } }]
    },
  }
}
