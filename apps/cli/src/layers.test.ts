/**
 * The CLI composes through @kerneltune/compose; only the commands that run the server app
 * (serve, worker) and the in-process client of the embedded store import @kerneltune/server.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const SRC = fileURLToPath(new URL('.', import.meta.url))
const MAX_SERVER_IMPORTERS = 3

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name)
    if (e.isDirectory()) return sources(p)
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [p] : []
  })
}

export const importsServer = (text: string): boolean => /(?:from|import)\s*\(?\s*['"]@kerneltune\/server(?:\/[^'"]*)?['"]/.test(text)

describe('the CLI and the server app', () => {
  it('should recognise an import of the server app, static or dynamic, and nothing else', () => {
    expect(importsServer("import { serve } from '@kerneltune/server/node'")).toBe(true)
    expect(importsServer("const { createApp } = await import('@kerneltune/server')")).toBe(true)
    expect(importsServer("import { compose } from '@kerneltune/compose/node'")).toBe(false)
    expect(importsServer("import { x } from '@kerneltune/serving'")).toBe(false)
  })

  it(`should import @kerneltune/server in at most ${MAX_SERVER_IMPORTERS} source files: serve, worker and the in-process client`, () => {
    const importers = sources(SRC).filter((p) => importsServer(readFileSync(p, 'utf8'))).map((p) => relative(SRC, p).split('\\').join('/')).sort()
    expect(importers.length).toBeLessThanOrEqual(MAX_SERVER_IMPORTERS)
    expect(importers).toEqual(['commands/serve.ts', 'commands/worker.ts', 'store-location.ts'])
  })
})
