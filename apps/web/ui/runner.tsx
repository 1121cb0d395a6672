/**
 * Runner (the default tab): pick a deployment, see what it runs and how far it drifted, fill in a
 * run, preview the sweep, and Start. Start stays disabled, with the reason on screen, while the
 * form or the preview says the run cannot be created.
 */
import { useMutation, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { api, qs } from './api.ts'
import type { ApiBodies, ApiResponses, CatalogPreview, CurrentCombo, DeploymentList, Drift, GatewayState, Options } from './api-types.gen.ts'
import { backendNote, MODELS, useOptions, withCurrent, type ModelId } from './presets.ts'
import { useFirstScreen } from './ttfs.ts'
import { useUrl } from './url-state.ts'

const MAX_COMBOS = 512
/** The id /options gives the server's own machine (features' specFromDetected). */
const LOCAL_HARDWARE = 'this-machine'
const ONNX_WEIGHTS = ['q4', 'fp16', 'fp32'] as const
type OnnxWeights = (typeof ONNX_WEIGHTS)[number]
type Mode = Options['modes'][number]
type Gate = Options['gates'][number]

const num = (v: unknown, digits: number, unit = '') => (typeof v === 'number' && Number.isFinite(v) ? `${v.toFixed(digits)}${unit}` : '–')

/** A deployment served through `kerneltune gateway`: each arm's traffic, misses and the policy's belief, and the latest decisions. */
function GatewayPanel({ id }: { id: string }) {
  const g = useQuery({ queryKey: ['gateway', id], queryFn: () => api<GatewayState>(`/deployments/${encodeURIComponent(id)}/gateway?decisions=10`), refetchInterval: 5000 })
  if (!g.data?.gateway) return null
  const gw = g.data.gateway as { policy?: string; state?: string; objectives?: string; url?: string }
  return (
    <section aria-label="Gateway" data-testid="gateway">
      <h4>Gateway: {gw.policy ?? '?'} policy, {gw.state ?? '?'}{gw.objectives ? `, objectives ${gw.objectives}` : ''} ({g.data.decisionCount} decisions stored)</h4>
      <table data-testid="gateway-arms">
        <thead><tr><th>arm</th><th>state</th><th>requests</th><th>share</th><th>objective misses</th><th>mean TTFT</th><th>mean TPOT</th><th>posterior mean ± sd</th></tr></thead>
        <tbody>
          {g.data.arms.map((a) => {
            const s = a.stats as { up?: boolean; suspended?: boolean; fallback?: boolean; requests?: number; share?: number; misses?: number; meanTtftMs?: number | null; meanTpotMs?: number | null; posterior?: { mean?: number; sd?: number | null } }
            return (
              <tr key={a.arm} data-arm={a.arm}>
                <td>{a.arm}{s.fallback ? ' (fallback)' : ''}</td>
                <td>{s.up === false ? 'down' : s.suspended ? 'suspended' : 'up'}</td>
                <td>{s.requests ?? 0}</td>
                <td>{num((s.share ?? 0) * 100, 1, '%')}</td>
                <td>{s.misses ?? 0}</td>
                <td>{num(s.meanTtftMs, 1, ' ms')}</td>
                <td>{num(s.meanTpotMs, 2, ' ms')}</td>
                <td>{num(s.posterior?.mean, 3)} ± {num(s.posterior?.sd, 3)}</td>
              </tr>
            )
          })}
        </tbody>
      </table>
      <p className="hint">Latest decisions: {g.data.decisions.map((d) => `#${d.seq} ${d.arm}${d.reason === 'policy' ? '' : ` (${d.reason})`}${d.met ? '' : ' missed'}`).join(', ') || 'none yet'}</p>
    </section>
  )
}

function DeploymentCard({ id }: { id: string }) {
  const combo = useQuery({ queryKey: ['combo', id], queryFn: () => api<CurrentCombo>(`/deployments/${encodeURIComponent(id)}/current-combo`) })
  const drift = useQuery({ queryKey: ['drift', id], queryFn: () => api<Drift>(`/deployments/${encodeURIComponent(id)}/drift`) })
  if (combo.error) return <p className="error" role="alert">Deployment {id}: {combo.error.message}</p>
  const band = drift.data?.band ?? 'unknown'
  return (
    <section className="card" aria-label="Current combination">
      <h3>Deployment {id} <span className={`badge ${band}`} data-testid="drift-badge">drift: {band}{drift.data?.relative != null ? ` (${(drift.data.relative * 100).toFixed(1)}%)` : ''}</span></h3>
      {combo.data?.combo ? <pre>{JSON.stringify(combo.data.combo, null, 1)}</pre> : <p>No combination applied yet.</p>}
      <p className="hint">Drift bands: minor 5–15%, significant above 15% (from the drift endpoint).</p>
      <GatewayPanel id={id} />
    </section>
  )
}

export function Runner() {
  const [url, setUrl] = useUrl()
  const deployment = url.get('deployment') ?? ''
  const [draft, setDraft] = useState(deployment)
  const [engine, setEngine] = useState<string>('vllm')
  const [engineVersion, setEngineVersion] = useState('')
  const [hw, setHw] = useState('h100-sxm')
  const [model, setModel] = useState<ModelId>('llama-3-8b')
  const [promptTokens, setPromptTokens] = useState('512')
  const [generatedTokens, setGeneratedTokens] = useState('128')
  const [batch, setBatch] = useState('1')
  const [mode, setMode] = useState<Mode>('quick')
  const [backend, setBackend] = useState<string>('analytical')
  const [gate, setGate] = useState<Gate>('topk5')
  // The experiment design: interleaved rounds pair every combination with the baseline of the same round (one device, one worker).
  const [design, setDesign] = useState<'sequential' | 'interleaved'>('sequential')
  const [rounds, setRounds] = useState('8')
  // ONNX Runtime measures an ONNX decoder: a llama of this shape the server synthesizes (the CLI's
  // `sweep --engine onnx --params N --weights W --vocab-size V`); the model preset is then unused.
  const [onnxParams, setOnnxParams] = useState('1B')
  const [onnxWeights, setOnnxWeights] = useState<OnnxWeights>('q4')
  const [onnxVocab, setOnnxVocab] = useState('32000')
  const onnx = backend === 'onnxruntime'

  const recent = useQuery({ queryKey: ['deployments'], queryFn: () => api<DeploymentList>('/deployments-recent') })
  const options = useOptions()
  const hardware = options.data?.hardware.find((h) => h.id === hw)
  const preview = useQuery({
    queryKey: ['preview', engine, hw, mode],
    queryFn: () => api<CatalogPreview>('/catalog/preview' + qs({ engine, mode, hardware: JSON.stringify(hardware) })),
    enabled: hardware !== undefined,
  })
  // The first screen is the form with the deployments; the preview fills in its own panel after.
  useFirstScreen(recent.isFetched)

  const ints = { 'Prompt tokens': promptTokens, 'Generated tokens': generatedTokens, Batch: batch }
  const reasons: string[] = []
  for (const [name, v] of Object.entries(ints)) if (!/^\d+$/.test(v) || Number(v) < 1) reasons.push(`${name} must be a whole number of at least 1`)
  if (design === 'interleaved' && (!/^\d+$/.test(rounds) || Number(rounds) < 2 || Number(rounds) > 1000)) reasons.push('Rounds must be a whole number from 2 to 1000')
  // The backend runs ONNX Runtime's CPU execution provider, whose settings only the onnx-cpu plugin translates.
  if (onnx && engine !== 'onnx-cpu') reasons.push('The onnxruntime backend measures ONNX Runtime on the CPU: pick the engine onnx-cpu')
  if (onnx && !/^\d+(\.\d+)?[kKmMbBgG]?$/.test(onnxParams.trim())) reasons.push('Parameters must be a count such as 2M, 60M or 1B')
  if (onnx && (!/^\d+$/.test(onnxVocab) || Number(onnxVocab) < 16 || Number(onnxVocab) > 262144)) reasons.push('Vocabulary must be a whole number from 16 to 262144')
  if (engineVersion && !/^[\w.+-]{1,100}$/.test(engineVersion)) reasons.push('Engine version may hold letters, digits, ., + and - only')
  const counts = preview.data?.counts[mode]
  if (options.error) reasons.push(`The server's choices failed to load: ${options.error.message}`)
  else if (preview.error) reasons.push(`Preview failed: ${preview.error.message}`)
  else if (!counts) reasons.push('Waiting for the sweep preview')
  else if (counts.legal === 0) reasons.push('No legal combination: every one is pruned or refused on this hardware')
  else if (counts.legal > MAX_COMBOS) reasons.push(`${counts.legal} combinations exceed the limit of ${MAX_COMBOS}; use quick mode`)

  const start = useMutation({
    mutationFn: () => api<ApiResponses['POST /runs']>('/runs', {
      method: 'POST',
      body: {
        engine, ...(engineVersion ? { engineVersion } : {}), hardware: hardware!, model: MODELS[model], mode, backend, qualityGate: gate,
        ...(design === 'interleaved' ? { design, rounds: Number(rounds) } : {}),
        // The server replaces the model preset with the synthesized decoder's shape.
        ...(onnx ? { onnxModel: { params: onnxParams.trim(), weights: onnxWeights, vocabSize: Number(onnxVocab) } } : {}),
        workload: { batch: Number(batch), phase: 'decode', promptTokens: Number(promptTokens), generatedTokens: Number(generatedTokens) },
      } satisfies ApiBodies['POST /runs'],
    }),
    onSuccess: (run) => setUrl({ tab: 'run', run: run.id }),
  })

  const o = options.data
  const select = (id: string, label: string, value: string, set: (v: string) => void, options: readonly string[], names?: Record<string, string>) => (
    <div><label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => set(e.target.value)}>{options.map((o) => <option key={o} value={o}>{names?.[o] ?? o}</option>)}</select></div>
  )
  const text = (id: string, label: string, value: string, set: (v: string) => void, mode: 'numeric' | 'text' = 'numeric') => (
    <div><label htmlFor={id}>{label}</label><input id={id} inputMode={mode} value={value} onChange={(e) => set(e.target.value)} /></div>
  )

  return (
    <div>
      <h2>Runner</h2>
      <form onSubmit={(e) => { e.preventDefault(); setUrl({ deployment: draft.trim() || undefined }, true) }} className="card">
        <label htmlFor="deployment">Deployment</label>
        <input id="deployment" role="combobox" aria-autocomplete="list" aria-expanded="false" list="deployment-options" placeholder="pick one or type an id" value={draft}
          onChange={(e) => setDraft(e.target.value)} onBlur={() => setUrl({ deployment: draft.trim() || undefined }, true)} />
        <datalist id="deployment-options">{recent.data?.items.map((d) => <option key={d.id} value={d.id}>{d.name} ({d.engine} {d.engineVersion})</option>)}</datalist>
        <button type="submit">Show</button>
      </form>
      {deployment && <DeploymentCard id={deployment} />}
      <form onSubmit={(e) => { e.preventDefault(); if (!reasons.length) start.mutate() }} aria-label="New run">
        <div className="grid">
          {select('engine', 'Engine', engine, setEngine, withCurrent(o?.engines.map((e) => e.name) ?? [], engine))}
          {text('engine-version', 'Engine version (blank: the engine default)', engineVersion, setEngineVersion, 'text')}
          {select('hardware', 'Hardware preset', hw, setHw, withCurrent(o?.hardware.flatMap((h) => (h.id ? [h.id] : [])) ?? [], hw), Object.fromEntries(o?.hardware.map((h) => [h.id, h.id === LOCAL_HARDWARE ? `This server: ${h.name}` : h.name]) ?? []))}
          {onnx ? <>
            {text('onnx-params', 'ONNX model parameters (as sweep --params)', onnxParams, setOnnxParams, 'text')}
            {select('onnx-weights', 'ONNX model weights', onnxWeights, (v) => setOnnxWeights(v as OnnxWeights), ONNX_WEIGHTS, { q4: 'q4 (MatMulNBits, 4-bit)', fp16: 'fp16', fp32: 'fp32' })}
            {text('onnx-vocab', 'ONNX model vocabulary', onnxVocab, setOnnxVocab)}
          </> : select('model', 'Model', model, (v) => setModel(v as ModelId), Object.keys(MODELS))}
          {text('prompt-tokens', 'Prompt tokens', promptTokens, setPromptTokens)}
          {text('generated-tokens', 'Generated tokens', generatedTokens, setGeneratedTokens)}
          {text('batch', 'Batch', batch, setBatch)}
          {select('mode', 'Mode', mode, (v) => setMode(v as Mode), withCurrent(o?.modes ?? [], mode))}
          {select('backend', 'Backend', backend, setBackend, withCurrent(o?.backends.map((b) => b.name) ?? [], backend))}
          {select('gate', 'Quality gate', gate, (v) => setGate(v as Gate), withCurrent(o?.gates ?? [], gate))}
          {select('design', 'Design', design, (v) => setDesign(v === 'interleaved' ? 'interleaved' : 'sequential'), ['sequential', 'interleaved'], { sequential: 'sequential (baseline first, early stopping)', interleaved: 'interleaved (rounds, A/A check)' })}
          {design === 'interleaved' && text('rounds', 'Rounds', rounds, setRounds)}
        </div>
        <p className="hint" data-testid="backend-note">Backend {backend}: {o ? backendNote(o.backends.find((b) => b.name === backend)) : '…'}</p>
        {onnx && <p className="hint" data-testid="onnx-note">The server synthesizes a llama of {onnxParams.trim() || '?'} parameters ({onnxWeights}, random weights in real shapes) as an ONNX decoder once, keeps it in its cache folder, and measures it on its own CPU; pick the hardware “This server” for a roofline that fits.</p>}
        <section className="card" aria-label="Sweep preview" data-testid="preview">
          <h3>Sweep preview ({mode})</h3>
          {counts ? (
            <>
              <p><strong data-testid="preview-legal">{counts.legal}</strong> combinations to measure, {counts.pruned} pruned by rules, {counts.refused} refused by the engine (of {counts.total}).</p>
              <ul>
                {Object.entries(counts.byRule).map(([r, n]) => <li key={r}>pruned: {r} ({n})</li>)}
                {Object.entries(counts.refusedBy).slice(0, 8).map(([r, n]) => <li key={r}>refused: {r} ({n})</li>)}
              </ul>
            </>
          ) : <p>{preview.isLoading ? 'Loading the preview…' : ''}</p>}
        </section>
        <button type="submit" id="start" disabled={reasons.length > 0 || start.isPending} aria-describedby="start-reason">Start</button>
        <p id="start-reason" className="reason" role="status">{reasons[0] ?? ''}</p>
        {start.error && <p className="error" role="alert">{start.error.message}</p>}
      </form>
    </div>
  )
}
