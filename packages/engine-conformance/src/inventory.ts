/**
 * The inventory check: every flag, environment variable and value a translation emits must exist
 * in the engine version's inventory. An inventory is plain data (flag → accepted values), built by
 * hand or with `inventoryFromJson` from the JSON shape kerneltune's engine inventories use.
 * Files and JSON-valued flags are engine-specific, so an inventory can add a `check` of its own.
 */
import type { EngineInventory, InventoryEntry, InventoryValueType, Translation } from '@kerneltune/core'

// The types live in core (an engine plugin's `inventory(version)` returns one); re-exported here.
export type { EngineInventory, InventoryEntry }
export type ValueType = InventoryValueType

function valueProblem(name: string, entry: InventoryEntry, value: string): string | undefined {
  if (entry.choices && !entry.choices.map(String).includes(value)) {
    return `${name}=${value} is not one of the inventory's values (${entry.choices.join(', ')})`
  }
  switch (entry.type) {
    case 'int':
      return /^-?\d+$/.test(value) ? undefined : `${name}=${value} is not an integer`
    case 'float':
      return value.trim() !== '' && Number.isFinite(Number(value)) ? undefined : `${name}=${value} is not a number`
    case 'bool':
      return /^(0|1|true|false|True|False)$/.test(value) ? undefined : `${name}=${value} is not a boolean`
    case 'json':
      try {
        JSON.parse(value)
        return undefined
      } catch {
        return `${name}=${value} is not valid JSON`
      }
    default:
      return undefined
  }
}

function checkValue(name: string, entry: InventoryEntry, value: string): string[] {
  const items = entry.delimiter ? value.split(entry.delimiter) : [value]
  return items.map((v) => valueProblem(name, entry, v)).filter((p): p is string => p !== undefined)
}

/**
 * Splits argv into the leading command words (program, subcommand, positionals) and the flags with
 * their values, using the inventory to know how many values each flag takes. `--flag=value` is
 * split at the first `=`.
 */
export function argvProblems(argv: readonly string[], inventory: EngineInventory): string[] {
  const problems: string[] = []
  let i = 0
  while (i < argv.length && !argv[i]!.startsWith('-')) i++
  while (i < argv.length) {
    const word = argv[i]!
    if (!word.startsWith('-')) {
      problems.push(`argv word "${word}" follows no flag that takes it`)
      i++
      continue
    }
    const eq = word.indexOf('=')
    const name = eq > 0 ? word.slice(0, eq) : word
    const entry = inventory.flags[name]
    i++
    if (!entry) {
      problems.push(`flag ${name} is not in the inventory`)
      while (i < argv.length && !argv[i]!.startsWith('-')) i++
      continue
    }
    const values: string[] = []
    if (eq > 0) values.push(word.slice(eq + 1))
    else if (entry.takesValue !== false) {
      if (entry.list) while (i < argv.length && !argv[i]!.startsWith('-')) values.push(argv[i++]!)
      else if (i < argv.length) values.push(argv[i++]!)
    }
    if (entry.takesValue === false && values.length > 0) problems.push(`flag ${name} takes no value, got ${values.join(' ')}`)
    if (entry.takesValue !== false && values.length === 0) problems.push(`flag ${name} needs a value`)
    for (const v of values) problems.push(...checkValue(name, entry, v))
  }
  return problems
}

/** Every way the translation strays from the inventory; empty when it stays inside it. */
export function inventoryProblems(translation: Translation, inventory: EngineInventory): string[] {
  const problems = argvProblems(translation.argv, inventory)
  for (const [name, value] of Object.entries(translation.env)) {
    const entry = inventory.env[name]
    if (!entry) problems.push(`environment variable ${name} is not in the inventory`)
    else problems.push(...checkValue(name, entry, value))
  }
  problems.push(...configKeyProblems(translation, inventory))
  if (inventory.check) problems.push(...inventory.check(translation))
  return problems
}

// Dotted paths of every key in a JSON object ({ a: { b: 1 } } → a, a.b); arrays are leaves.
function keyPaths(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return []
  return Object.entries(value).flatMap(([k, v]) => [`${prefix}${k}`, ...keyPaths(v, `${prefix}${k}.`)])
}

function flagValues(argv: readonly string[], flag: string): string[] {
  const out: string[] = []
  argv.forEach((word, i) => {
    if (word === flag && i + 1 < argv.length) out.push(argv[i + 1]!)
    else if (word.startsWith(`${flag}=`)) out.push(word.slice(flag.length + 1))
  })
  return out
}

/**
 * Keys of JSON objects given to a flag (or written to a file) that `configKeys` lists, checked
 * against that list: a release that rejects unknown keys fails on any other.
 */
export function configKeyProblems(translation: Translation, inventory: EngineInventory): string[] {
  const problems: string[] = []
  for (const [holder, keys] of Object.entries(inventory.configKeys ?? {})) {
    const texts = holder.startsWith('-') ? flagValues(translation.argv, holder) : translation.files[holder] !== undefined ? [translation.files[holder]!] : []
    for (const text of texts) {
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch {
        problems.push(`${holder} holds ${text.slice(0, 40)}, which is not valid JSON`)
        continue
      }
      for (const path of keyPaths(parsed)) if (!keys.includes(path)) problems.push(`${holder} key ${path} is not in the inventory`)
    }
  }
  return problems
}

interface JsonEntry {
  type?: string
  choices?: unknown
  aliases?: string[]
  bool_style?: string
  list?: boolean
  nargs?: string
  delimiter?: string
  examples?: string[]
}

function entryFromJson(raw: JsonEntry, isFlag: boolean): InventoryEntry {
  const choices = Array.isArray(raw.choices) ? (raw.choices as (string | number)[]) : undefined
  const t = raw.type ?? ''
  if (t === 'comma-list' || t.startsWith('comma-list')) {
    const type: ValueType = t.includes('int') ? 'int' : 'str'
    return raw.examples ? { delimiter: ',', choices: raw.examples, type } : { delimiter: ',', type }
  }
  const type: ValueType = t === 'bool' ? 'bool' : t === 'int' ? 'int' : t === 'float' ? 'float' : t === 'json' ? 'json' : 'any'
  if (isFlag && type === 'bool') return { type, takesValue: false }
  const list = raw.nargs === '+' || (raw.list === true && !raw.delimiter)
  return {
    type,
    ...(choices ? { choices } : {}),
    ...(list ? { list } : {}),
    ...(raw.delimiter ? { delimiter: raw.delimiter } : {}),
  }
}

/**
 * Builds an inventory from the JSON shape `{ flags: { "--name": { type, choices, aliases,
 * bool_style, list, nargs, delimiter } }, env: { NAME: { choices | type: "comma-list", examples } } }`.
 * Boolean flags take no value; argparse `BooleanOptionalAction` flags also get their `--no-` form;
 * aliases become flags of their own. Choices given as a description (a string) are not enforced.
 */
export function inventoryFromJson(json: unknown, check?: EngineInventory['check']): EngineInventory {
  const doc = json as { flags?: Record<string, JsonEntry>; env?: Record<string, JsonEntry> }
  const flags: Record<string, InventoryEntry> = {}
  for (const [name, raw] of Object.entries(doc.flags ?? {})) {
    if (!name.startsWith('-')) continue
    const entry = entryFromJson(raw, true)
    flags[name] = entry
    for (const alias of raw.aliases ?? []) flags[alias] = entry
    if (raw.bool_style === 'BooleanOptionalAction') flags[`--no-${name.replace(/^--/, '')}`] = entry
  }
  const env: Record<string, InventoryEntry> = {}
  for (const [name, raw] of Object.entries(doc.env ?? {})) env[name] = entryFromJson(raw, false)
  return check ? { flags, env, check } : { flags, env }
}
