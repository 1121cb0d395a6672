/**
 * Releasing a model after llama.cpp refused a context, without waiting forever.
 *
 * node-llama-cpp 3.22.1 (and its source as of 2026-06-29, src/evaluator/LlamaContext/LlamaContext.ts:997-998) drops a context whose native init
 * failed without disposing it (dist/evaluator/LlamaContext/LlamaContext.js:785-786, `throw new
 * Error("Failed to create context")`). The context's constructor took a disposal-prevention
 * handle on the model (LlamaContext.js:149) that only the context's own dispose gives back, and
 * the model reaches the context only through a WeakRef when it is disposed (LlamaContext.js:195,
 * 2090-2093). If the garbage collector collects the orphan first, LlamaModel.dispose() waits on
 * its dispose lock forever (LlamaModel.js:119-120). Whether it does depends on when the collector
 * runs: a CI run under Bun hung in this path once in a few hundred; a forced collection between
 * the failure and the dispose makes it hang every time (adapters/node-llama-cpp.node.test.ts).
 *
 * So after a failed context the model is released with a deadline, and the caller says in its
 * error that the model stayed loaded when the deadline passed.
 */

/** How long a model release may take after a failed context before it is given up. */
export const RELEASE_AFTER_FAILURE_MS = 5000

/**
 * Starts `dispose` and resolves true when it settles within `ms`, false when it does not (the
 * dispose keeps running; nothing cancels it). A dispose that rejects counts as settled.
 */
export async function releaseWithin(dispose: () => Promise<unknown>, ms: number = RELEASE_AFTER_FAILURE_MS): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms)
  })
  try {
    return await Promise.race([
      dispose().then(
        () => true,
        () => true,
      ),
      deadline,
    ])
  } finally {
    clearTimeout(timer)
  }
}

/** What a measurement error adds when the model could not be released after a failed context. */
export const NOT_RELEASED_NOTE =
  `; node-llama-cpp did not release the model within ${RELEASE_AFTER_FAILURE_MS / 1000} s after the failed context ` +
  '(it leaks the failed context\'s hold on the model, node-llama-cpp 3.22.1 LlamaContext.js:785), so the model stays in memory until this process exits'
