import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { modulesLoadedBy } from '@kerneltune/tooling/loaded-modules'
import { COMMANDS } from './index.ts'
import { buildCommandManifest } from './manifest.ts'
import { COMMAND_MANIFEST } from './manifest.generated.ts'

const CLI = fileURLToPath(new URL('../..', import.meta.url))

describe('the command manifest', () => {
  it('should declare every command exactly as its module does (else: pnpm --filter @kerneltune/cli commands:manifest)', async () => {
    expect(COMMAND_MANIFEST).toEqual(await buildCommandManifest())
  })

  it('should give each command a run hook where its module has one', async () => {
    const real = await buildCommandManifest()
    expect(COMMANDS.map((c) => c.name)).toEqual(real.map((c) => c.name))
    expect(COMMANDS.filter((c) => c.run).map((c) => c.name)).toEqual(real.filter((c) => c.runs).map((c) => c.name))
  })
})

/** Every command path (`catalog list`), depth first. */
function paths(commands: readonly { name: string; subcommands?: readonly any[] }[], prefix: string[] = []): string[][] {
  return commands.flatMap((c) => [[...prefix, c.name], ...paths(c.subcommands ?? [], [...prefix, c.name])])
}

// What a module may be, for `--help` to load it: the CLI's own files, core's error module, node built-ins.
const HELP_MAY_LOAD = [/\/apps\/cli\/src\/(cli|commands\/(index|loaders|manifest\.generated))\.?[\w/.-]*\.ts$/, /\/apps\/cli\/src\/(main|version)\.ts$/, /\/packages\/core\/src\/errors\.ts$/, /^node:/]

describe('kerneltune --help', () => {
  it('should load no command module, engine, backend, store or server app, for the root or any command', () => {
    const all = [[], ...paths(COMMAND_MANIFEST)].map((p) => [...p, '--help'])
    const { status, stderr, loaded } = modulesLoadedBy(`import { main } from ${JSON.stringify(pathToFileURL(join(CLI, 'src/main.ts')).href)}
const io = { stdout: () => {}, stderr: (t: string) => process.stderr.write(t), interactive: false, env: {}, cwd: '/' }
for (const argv of ${JSON.stringify(all)}) if (await main(argv, io) !== 0) throw new Error('help failed: ' + argv.join(' '))`, CLI)
    expect(stderr).toBe('')
    expect(status).toBe(0)
    expect(loaded.some((u) => u.endsWith('/apps/cli/src/commands/manifest.generated.ts'))).toBe(true)
    expect(loaded.filter((u) => !HELP_MAY_LOAD.some((re) => re.test(u)))).toEqual([])
  })
})
