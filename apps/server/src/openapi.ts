/** The OpenAPI 3.1 document, generated from the same zod schemas the routes validate with. */
import { z } from 'zod'
import type { Route } from './http.ts'

const toOpenApiPath = (p: string) => p.replace(/:([A-Za-z_]+)/g, '{$1}')

function schemaOf(s: z.ZodType, io: 'input' | 'output' = 'input'): Record<string, unknown> {
  try {
    return z.toJSONSchema(s, { io, unrepresentable: 'any' }) as Record<string, unknown>
  } catch {
    return {}
  }
}

function parameters(s: z.ZodType | undefined, where: 'path' | 'query') {
  if (!s) return []
  const json = schemaOf(s) as { properties?: Record<string, unknown>; required?: string[] }
  return Object.entries(json.properties ?? {}).map(([name, schema]) => ({ name, in: where, required: where === 'path' || (json.required ?? []).includes(name), schema }))
}

export function openApiDocument(base: string, routes: readonly Route[]) {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const { spec } of routes) {
    const p = toOpenApiPath(base + spec.path)
    paths[p] ??= {}
    const body = spec.body && spec.method !== 'get' ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(spec.body) } } } } : {}
    paths[p][spec.method] = {
      summary: spec.summary,
      'x-required-role': spec.role,
      security: [{ bearer: [] }],
      parameters: [...parameters(spec.params, 'path'), ...parameters(spec.query, 'query')],
      ...body,
      responses: {
        [String(spec.status ?? 200)]: { description: 'OK', content: spec.sse ? { 'text/event-stream': {} } : { 'application/json': spec.response ? { schema: schemaOf(spec.response, 'output') } : {} } },
        400: { description: 'Invalid input: error.problems lists every problem' },
        401: { description: 'Missing or unknown token' },
        403: { description: `Needs the ${spec.role} role` },
        404: { description: 'Not found (or owned by another tenant)' },
        503: { description: 'Kernel tuning is disabled (ENABLE_KERNEL_TUNING=false)' },
      },
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'kerneltune', version: '0.1.0', description: 'Tier 1 runs, Tier 2 tune sessions, the Tier 3 registry, catalog previews and deployments.' },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    paths,
  }
}
