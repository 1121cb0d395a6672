/**
 * zod at every boundary: `parseWith` throws a typed INVALID_INPUT error that lists every problem
 * as `path: message`; `validateWith` returns the problems instead of throwing.
 */
import type { z } from 'zod'
import { KerneltuneError } from './errors.ts'

export type Validation<T> = { ok: true; value: T } | { ok: false; errors: string[] }

/** Turns zod issues into `dot.path: message` strings (the root path is `(root)`). */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => {
    const path = issue.path.length === 0 ? '(root)' : issue.path.map(String).join('.')
    return `${path}: ${issue.message}`
  })
}

export function validateWith<S extends z.ZodType>(schema: S, value: unknown): Validation<z.output<S>> {
  const result = schema.safeParse(value)
  if (result.success) return { ok: true, value: result.data }
  return { ok: false, errors: formatIssues(result.error.issues) }
}

/**
 * Parses `value` or throws INVALID_INPUT naming `what` (for example "hardware spec" or
 * "--combo") and listing every problem.
 */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = validateWith(schema, value)
  if (result.ok) return result.value
  throw new KerneltuneError('INVALID_INPUT', `invalid ${what}: ${result.errors.join('; ')}`, {
    details: { errors: result.errors },
  })
}
