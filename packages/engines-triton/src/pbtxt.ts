/** A small writer for the protobuf text format of Triton's config.pbtxt. */

/** `parameters` entries as the tensorrtllm and vllm backends read them: string values. */
export function parameters(params: Readonly<Record<string, string>>): string {
  return Object.entries(params)
    .map(([key, value]) => `parameters: {\n  key: ${JSON.stringify(key)}\n  value: { string_value: ${JSON.stringify(value)} }\n}\n`)
    .join('')
}

export function instanceGroup(kind: 'KIND_CPU' | 'KIND_MODEL', count = 1): string {
  return `instance_group [\n  {\n    count: ${count}\n    kind: ${kind}\n  }\n]\n`
}

/** POSIX-shell quoting: plain words stay as they are, the rest go in single quotes. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_\/.,:=+@%-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}

/** An `input [...]` or `output [...]` block, written as the upstream template writes its tensors. */
export function tensors(kind: 'input' | 'output', list: readonly { name: string; dataType: string; dims: readonly number[]; reshape?: boolean; optional?: boolean; allowRaggedBatch?: boolean }[]): string {
  const entry = (t: (typeof list)[number]) => [
    `    name: ${JSON.stringify(t.name)}`,
    `    data_type: ${t.dataType}`,
    `    dims: [ ${t.dims.join(', ')} ]`,
    ...(t.reshape ? ['    reshape: { shape: [ ] }'] : []),
    ...(t.optional ? ['    optional: true'] : []),
    ...(t.allowRaggedBatch ? ['    allow_ragged_batch: true'] : []),
  ].join('\n')
  return `${kind} [\n${list.map((t) => `  {\n${entry(t)}\n  }`).join(',\n')}\n]\n`
}
