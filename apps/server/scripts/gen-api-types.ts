/**
 * Writes the dashboard's API types (apps/web/ui/api-types.gen.ts) from this server's OpenAPI
 * document. Run it after changing a route or its schemas: `pnpm --filter @kerneltune/web gen:api`.
 */
import { writeFileSync } from 'node:fs'
import { apiTypesSource } from '../src/api-types.ts'
import { API_BASE, ROUTES } from '../src/app.ts'
import { openApiDocument } from '../src/openapi.ts'

const out = new URL('../../web/ui/api-types.gen.ts', import.meta.url)
writeFileSync(out, apiTypesSource(openApiDocument(API_BASE, ROUTES)))
console.log(`wrote ${out.pathname}`)
