/**
 * `kerneltune sweep --engine E --backend server` for an engine the sweep knows only through its
 * plugin (vLLM): the engine's serving space (its own package says which of its server's settings
 * are legal at its pinned release), enumerated here with the catalog's rules for the machine and
 * the engine's refusals, then measured as the GGUF server sweep is (gguf.node.ts): a stored run on
 * the composed `server` backend, which launches the engine through its serving capability. Where
 * the engine is not installed the command says so, with the engine's install hint.
 */
import { buildCatalog, comboHash } from '@kerneltune/catalog'
import { KerneltuneError, requireServing, type Combo, type EnginePlugin, type HardwareSpec } from '@kerneltune/core'
import { vllmServingSweepSpace } from '@kerneltune/engines-vllm'
import { requireServerBinary } from '@kerneltune/serving/node'
import { defaultRegistry } from '../compose.node.ts'
import { sweepGguf, type GgufModel } from './gguf.node.ts'
import { parseSpace, type SweepMode, type SweepPlan } from './plan.ts'
import type { SweepInput, SweepOutcome } from './session.ts'

/** The serving spaces of the engines the sweep plans through their plugin, by engine name. */
const SERVED_SPACES: Readonly<Record<string, (version: string, mode: SweepMode) => Readonly<Record<string, readonly string[]>>>> = { vllm: vllmServingSweepSpace }

/** The engine's serving space at its pinned release, every combination checked by the catalog's rules (for this machine) and the engine's translator; the baseline is the engine's own defaults ({}). */
export async function planServedSweep(engine: EnginePlugin, mode: SweepMode, hardware: HardwareSpec, override?: Readonly<Record<string, readonly string[]>>): Promise<SweepPlan> {
  const spaceOf = SERVED_SPACES[engine.name]
  if (!spaceOf) {
    throw new KerneltuneError('UNSUPPORTED', `kerneltune sweep plans no serving space for ${engine.displayName ?? engine.name} yet (it plans ${Object.keys(SERVED_SPACES).join(', ')} as servers, GGUF and ONNX models); measure ${engine.name} through the server backend with kerneltune run create (a request with "engine": "${engine.name}", "backend": "server", "modelPath": "<model>")`, { plugin: engine.name })
  }
  const version = engine.defaultVersion
  const space = { ...spaceOf(version, mode), ...override }
  const catalog = buildCatalog(defaultRegistry())
  let combos: Combo[] = [{}]
  for (const [id, values] of Object.entries(space)) combos = combos.flatMap((c) => values.map((v) => ({ ...c, [id]: v })))
  const candidates: { combo: Combo; hash: string }[] = []
  const pruned: { combo: Combo; rule: string }[] = []
  for (const combo of combos) {
    const check = catalog.check(combo, { hardware, engine: engine.name, engineVersion: version })
    const t = check.legal ? await engine.translate(combo, { version }) : undefined
    if (!check.legal) pruned.push({ combo, rule: check.violations[0]?.rule ?? check.issues[0] ?? 'catalog' })
    else if (t && !t.ok) pruned.push({ combo, rule: `${engine.name}: ${t.reason}` })
    else candidates.push({ combo, hash: comboHash(combo) })
  }
  return { mode, space, candidates, pruned, catalog: { version: catalog.version, hash: catalog.hash }, snapshot: catalog.snapshot }
}

export async function sweepServed(i: SweepInput, name: string, model: () => Promise<GgufModel>): Promise<SweepOutcome> {
  if (i.flags.backend !== 'server') throw new KerneltuneError('INVALID_INPUT', `--engine ${name} is measured as its own server: add --backend server`)
  const engine = defaultRegistry().get('engine', name)
  // Not installed: ENGINE_NOT_INSTALLED, with the engine's install hint (exit 2).
  const binary = requireServerBinary(engine.name, requireServing(engine), i.io.env)
  const mode: SweepMode = i.flags.quick ? 'quick' : 'standard'
  const plan = await planServedSweep(engine, mode, i.hardware, i.flags.space ? parseSpace(i.flags.space) : undefined)
  i.io.stderr(`${engine.displayName ?? engine.name} ${engine.defaultVersion} at ${binary.path}\n`)
  return sweepGguf(i, model, { engine: engine.name, version: engine.defaultVersion, plan })
}
