/**
 * Checks of an engine's serving capability (the optional `serving` of the engine contract):
 * evidence for every fact the launcher relies on, a metric map that covers each common counter or
 * says why the engine has none, log patterns that compile to something, and a launch command that
 * is the translation's own argv (argv[0] replaced by the binary) followed only by the listen and
 * metrics arguments the capability declares.
 */
import { SERVING_COUNTERS, servingCommand, type ServingCapability, type Translation } from '@kerneltune/core'

/** The facts that must each have an evidence line (`<fact>: <where it was read>`). */
export const SERVING_EVIDENCE_FACTS = ['readiness', 'version', 'metrics'] as const

export function servingProblems(serving: ServingCapability): string[] {
  const problems: string[] = []
  const b = serving.binary
  if (!b.program || /\s/.test(b.program)) problems.push(`binary.program must be one word (the program on PATH), got "${b.program}"`)
  if (!b.installHint.trim()) problems.push('binary.installHint is empty: say how to install the engine')
  if (b.envVar !== undefined && !/^[A-Z_][A-Z0-9_]*$/.test(b.envVar)) problems.push(`binary.envVar ${b.envVar} is not an environment variable name`)
  if (!serving.readiness.path.startsWith('/')) problems.push(`readiness.path must start with /, got ${serving.readiness.path}`)
  if (!serving.version.path.startsWith('/')) problems.push(`version.path must start with /, got ${serving.version.path}`)
  for (const fact of SERVING_EVIDENCE_FACTS) {
    const line = serving.evidence.find((e) => e.startsWith(`${fact}: `))
    if (!line) problems.push(`no evidence for ${fact}: add a line "${fact}: <repo>@<tag or commit>:<file>:<line>"`)
    else if (!/[\w.-]+\/[\w.-]+/.test(line) || !/\.(py|rs|cpp|cc|h|ts|go|cu)\b/.test(line)) problems.push(`the evidence for ${fact} names no upstream file: ${line}`)
  }
  const names = serving.metrics.names
  const lacks = serving.metrics.lacks ?? {}
  for (const c of SERVING_COUNTERS) {
    if (names[c] === undefined && !lacks[c]?.trim()) problems.push(`metric ${c}: neither a name in metrics.names nor a reason in metrics.lacks`)
    if (names[c] !== undefined && lacks[c] !== undefined) problems.push(`metric ${c}: both named (${names[c]}) and said to be lacking`)
    if (names[c] !== undefined && !/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(names[c]!)) problems.push(`metric ${c}: ${names[c]} is not a Prometheus metric name`)
  }
  for (const [cls, patterns] of [['outOfMemory', serving.logs.outOfMemory], ['refused', serving.logs.refused], ['crashed', serving.logs.crashed]] as const) {
    for (const p of patterns ?? []) if (p.test('')) problems.push(`logs.${cls}: ${p} matches an empty line, so it would classify every output`)
  }
  for (const a of serving.listenArgs ?? []) if (/\{(?!host\}|port\})[^}]*\}/.test(a)) problems.push(`listenArgs: ${a} has a placeholder other than {host} and {port}`)
  return problems
}

/**
 * Evidence tied to a release: the readiness and version lines each name the route the capability
 * polls, the metrics line names every mapped metric, and each of the three either cites the
 * release (`@<release>`, as in `repo@v3.3.7:path` or `docs@v0.32.0:page`) or says plainly that it is
 * "not verified at <release>". Opt-in (engines call it in their own tests), so an engine whose
 * evidence predates this format keeps passing `servingProblems`.
 */
export function servingEvidenceProblems(serving: ServingCapability, release: string): string[] {
  const problems: string[] = []
  const line = (fact: string) => serving.evidence.find((e) => e.startsWith(`${fact}: `))
  const mentions: Array<[string, readonly string[]]> = [
    ['readiness', [serving.readiness.path]],
    ['version', [serving.version.path]],
    ['metrics', Object.values(serving.metrics.names).filter((n): n is string => n !== undefined)],
  ]
  for (const [fact, wanted] of mentions) {
    const e = line(fact)
    if (!e) { problems.push(`no evidence for ${fact}`); continue }
    for (const w of wanted) if (!e.includes(w)) problems.push(`the evidence for ${fact} does not name ${w}`)
    if (!e.includes(`@${release}`) && !e.includes(`not verified at ${release}`)) problems.push(`the evidence for ${fact} neither cites ${release} (@${release}) nor says "not verified at ${release}"`)
  }
  return problems
}

/** The launch command of a translation against the translation itself. */
export function servingCommandProblems(serving: ServingCapability, t: Translation): string[] {
  const binary = '/opt/engine/bin/server'
  const cmd = servingCommand(serving, t, binary)
  const problems: string[] = []
  if (cmd.argv[0] !== binary) problems.push(`the launch runs ${cmd.argv[0]}, not the found binary`)
  const own = cmd.argv.slice(1, t.argv.length)
  if (JSON.stringify(own) !== JSON.stringify(t.argv.slice(1))) problems.push(`the launch argv ${JSON.stringify(cmd.argv)} does not carry the translation's ${JSON.stringify(t.argv)}`)
  const added = cmd.argv.slice(t.argv.length)
  const declared = [...(serving.listenArgs ?? []), ...(serving.metrics.enableArgs ?? [])]
  if (!serving.command && JSON.stringify(added) !== JSON.stringify(declared)) problems.push(`the launch adds ${JSON.stringify(added)}, not the declared listen and metrics arguments ${JSON.stringify(declared)}`)
  if (JSON.stringify(cmd.env) !== JSON.stringify(t.env)) problems.push('the launch environment differs from the translation\'s')
  if (JSON.stringify(cmd.files) !== JSON.stringify(t.files)) problems.push('the launch files differ from the translation\'s')
  return problems
}
