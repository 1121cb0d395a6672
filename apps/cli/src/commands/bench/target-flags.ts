/**
 * The flags that name the server a serving command measures (see serve-target.ts): a GGUF to
 * launch llama-server with, a running `--endpoint`, or a `--launch` template, and the settings to
 * launch with. One list for `bench serve` and `bench capacity`, so both describe them alike.
 */
export const SERVER_TARGET_FLAGS = [
  { name: 'engine', type: 'string', description: 'Engine of the GGUF.', choices: ['llamacpp'], default: 'llamacpp' },
  { name: 'gguf', type: 'string', description: 'The GGUF model file to serve.', valueName: 'FILE' },
  { name: 'endpoint', type: 'string', description: 'Measure a server that is already running at this URL instead of launching one.', valueName: 'URL' },
  { name: 'launch', type: 'string', description: "Launch this shell command instead; {port} is replaced by a free port, {args} by the translated --combo flags.", valueName: 'CMD' },
  { name: 'combo', type: 'string', description: 'llama.cpp settings to launch with, as JSON: {"threads":"2","parallel":"2"}.', valueName: 'JSON' },
] as const
