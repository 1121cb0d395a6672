/**
 * Frozen, versioned snapshots of the catalog. A run stores the snapshot (or its hash) so its
 * results stay interpretable after the catalog changes. The content hash covers the version, the
 * dimensions and every rule's metadata; a change to a rule's logic must come with a new id,
 * reason or CATALOG_VERSION, which is the catalog's update procedure.
 */
import { kerneltuneError, parseWith, type DimensionSpec } from '@kerneltune/core'
import { z } from 'zod'
import { canonicalJson, fnv1a64 } from './hash.ts'

/** Bump on any change to dimensions, values or rules. */
export const CATALOG_VERSION = '1.0.0'

export interface SnapshotRule {
  readonly id: string
  readonly kind: 'illegal' | 'prune'
  readonly reason: string
  readonly source: string
  readonly dimensions: readonly string[]
  /** The engine that contributed the rule; absent for core rules. */
  readonly engine?: string
  /** The engine releases the rule holds for; absent: every release. */
  readonly versions?: { readonly from?: string; readonly until?: string }
}

export interface SnapshotDimension extends DimensionSpec {
  /** The engine whose catalog extension added the dimension; absent for core dimensions. */
  readonly contributedBy?: string
}

export interface CatalogSnapshot {
  readonly version: string
  readonly hash: string
  readonly dimensions: readonly SnapshotDimension[]
  readonly rules: readonly SnapshotRule[]
  /** Engines whose extensions are part of this snapshot. */
  readonly extensions: readonly string[]
  /** Engine → core dimensions it does not control (pinned to their neutral value); absent when none. */
  readonly uncontrolled?: Readonly<Record<string, readonly string[]>>
  readonly createdAt?: string
}

export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v)
  }
  return value
}

// `uncontrolled` joins the hash only when present, so snapshots taken before it existed still verify.
function contentHash(s: Omit<CatalogSnapshot, 'hash' | 'createdAt'>): string {
  return fnv1a64(canonicalJson({ version: s.version, dimensions: s.dimensions, rules: s.rules, extensions: s.extensions, ...(s.uncontrolled ? { uncontrolled: s.uncontrolled } : {}) }))
}

/** Builds a deep-frozen, JSON-serialisable snapshot with its content hash. */
export function makeSnapshot(content: Omit<CatalogSnapshot, 'hash'>): CatalogSnapshot {
  // Through JSON so the snapshot holds plain data only (no functions, no shared references).
  const plain = JSON.parse(JSON.stringify({ version: content.version, dimensions: content.dimensions, rules: content.rules, extensions: content.extensions, ...(content.uncontrolled ? { uncontrolled: content.uncontrolled } : {}) })) as Omit<CatalogSnapshot, 'hash'>
  return deepFreeze({ ...plain, hash: contentHash(plain), ...(content.createdAt ? { createdAt: content.createdAt } : {}) })
}

const ValueSchema: z.ZodObject<{ id: z.ZodString; description: z.ZodString }> = z.object({ id: z.string().min(1), description: z.string() })
const DimensionSchema: z.ZodObject<{
  id: z.ZodString
  title: z.ZodString
  description: z.ZodString
  values: z.ZodArray<typeof ValueSchema>
  defaultValue: z.ZodString
  engines: z.ZodOptional<z.ZodArray<z.ZodString>>
  quickValues: z.ZodOptional<z.ZodArray<z.ZodString>>
  contributedBy: z.ZodOptional<z.ZodString>
}> = z.object({
  id: z.string().regex(/^[a-z][a-z0-9_]*$/),
  title: z.string(),
  description: z.string(),
  values: z.array(ValueSchema).min(1),
  defaultValue: z.string(),
  engines: z.array(z.string()).optional(),
  quickValues: z.array(z.string()).optional(),
  contributedBy: z.string().optional(),
})
// The zod types are spelled out (not inferred) so JSR can publish the package without slow types.
export const CatalogSnapshotSchema: z.ZodObject<{
  version: z.ZodString
  hash: z.ZodString
  dimensions: z.ZodArray<typeof DimensionSchema>
  rules: z.ZodArray<z.ZodObject<{
    id: z.ZodString
    kind: z.ZodEnum<{ illegal: 'illegal'; prune: 'prune' }>
    reason: z.ZodString
    source: z.ZodString
    dimensions: z.ZodArray<z.ZodString>
    engine: z.ZodOptional<z.ZodString>
    versions: z.ZodOptional<z.ZodObject<{ from: z.ZodOptional<z.ZodString>; until: z.ZodOptional<z.ZodString> }>>
  }>>
  extensions: z.ZodArray<z.ZodString>
  uncontrolled: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodArray<z.ZodString>>>
  createdAt: z.ZodOptional<z.ZodString>
}> = z.object({
  version: z.string().min(1),
  hash: z.string().regex(/^[0-9a-f]{16}$/),
  dimensions: z.array(DimensionSchema),
  rules: z.array(z.object({
    id: z.string().min(1),
    kind: z.enum(['illegal', 'prune']),
    reason: z.string(),
    source: z.string(),
    dimensions: z.array(z.string()),
    engine: z.string().optional(),
    versions: z.object({ from: z.string().optional(), until: z.string().optional() }).optional(),
  })),
  extensions: z.array(z.string()),
  uncontrolled: z.record(z.string(), z.array(z.string())).optional(),
  createdAt: z.string().optional(),
})

/** Recomputes the content hash; true when the snapshot is intact. */
export function verifySnapshot(snapshot: CatalogSnapshot): boolean {
  return contentHash(snapshot) === snapshot.hash
}

/** Reads a stored snapshot (e.g. from a run row), checking its shape and its hash. */
export function parseSnapshot(value: unknown): CatalogSnapshot {
  const parsed = parseWith(CatalogSnapshotSchema, value, 'catalog snapshot') as CatalogSnapshot
  if (!verifySnapshot(parsed)) {
    throw kerneltuneError('INVALID_INPUT', `catalog snapshot ${parsed.version} does not match its hash ${parsed.hash}; it was edited after it was taken`)
  }
  return deepFreeze(parsed)
}
