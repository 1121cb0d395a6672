/**
 * Which model files a request over the network may name. A run's modelPath is a path on the
 * server's machine that a backend opens, so an unchecked one lets any operator probe the server's
 * files (issue 23 item 15: `/etc/passwd` came back as `Invalid GGUF magic ... got "root"`). The
 * operator allows directories (`serve --model-dir DIR`, none by default); model-paths.node.ts
 * resolves a requested path inside them. In-process callers (the CLI's embedded mode, which opened
 * the store itself and runs as its user) are not restricted.
 */
import { KerneltuneError } from '@kerneltune/core'

export interface ModelPaths {
  /** The real paths of the allowed directories (empty: a request may name no model file). */
  readonly dirs: readonly string[]
  /**
   * The real path of the GGUF a request names, inside an allowed directory; otherwise a typed error
   * that says nothing about files outside them and quotes no byte of any file.
   */
  resolve(path: string): Promise<string>
}

export const MODEL_DIR_HINT = 'start the server with --model-dir DIR (repeatable) to let requests name the model files under DIR'

/** The default: no directory allowed, so any modelPath in a network request is refused. */
export const noModelPaths: ModelPaths = {
  dirs: [],
  async resolve(path) {
    throw new KerneltuneError('FORBIDDEN', `modelPath ${JSON.stringify(path)} is refused: this server lets requests name no model files; ${MODEL_DIR_HINT}`, { details: { errors: ['body.modelPath: no model directory is allowed on this server'] } })
  },
}
