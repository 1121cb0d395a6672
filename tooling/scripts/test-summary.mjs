// Reading the runners' own summaries, so that `npm test` can end with one line for everything:
// `total: N passed, N failed, N skipped`, with the reasons for the skips listed above it.

/** vitest: `Tests  1 failed | 8 passed | 3 skipped (12)`, once per package (turbo prefixes lines). */
export function countVitest(text) {
  const total = { passed: 0, failed: 0, skipped: 0 }
  for (const m of text.matchAll(/Tests\s+((?:\d+ [a-z]+\s*\|?\s*)+)\(\d+\)/g)) {
    for (const [, n, word] of m[1].matchAll(/(\d+) ([a-z]+)/g)) {
      if (word === 'passed') total.passed += Number(n)
      else if (word === 'failed') total.failed += Number(n)
      else if (word === 'skipped' || word === 'todo') total.skipped += Number(n)
    }
  }
  return total
}

/** Bun: ` 12 pass`, ` 3 skip`, ` 1 todo`, ` 0 fail` on lines of their own. */
export function countBun(text) {
  const n = (word) => Number(new RegExp(`^\\s*(\\d+) ${word}$`, 'm').exec(text)?.[1] ?? 0)
  return { passed: n('pass'), failed: n('fail'), skipped: n('skip') + n('todo') }
}

/**
 * Deno: `ok | 5 passed (14 steps) | 0 failed | 1 ignored (1 step)`. Through the shim a describe
 * is a top-level test and its its are steps, so steps are what vitest calls tests; an ignored
 * describe is one ignored test (its its are never registered) and an ignored it one ignored step.
 */
export function countDeno(text) {
  const m = /(?:ok|FAILED) \| (\d+) passed(?: \((\d+) steps?\))? \| (\d+) failed(?: \((\d+) steps?\))?(?: \| (\d+) ignored(?: \((\d+) steps?\))?)?/.exec(text)
  if (!m) return { passed: 0, failed: 0, skipped: 0 }
  const [p, ps, f, fs, i, is] = m.slice(1).map((x) => (x === undefined ? undefined : Number(x)))
  return { passed: ps ?? p, failed: fs ?? f, skipped: (i ?? 0) + (is ?? 0) }
}

/** The per-runtime line run-runtime-tests.mjs prints: `bun: 10 passed, 0 failed, 2 skipped`. */
export function countRuntimeSummary(text) {
  const m = /^(?:bun|deno): (\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/m.exec(text)
  return m ? { passed: Number(m[1]), failed: Number(m[2]), skipped: Number(m[3] ?? 0) } : { passed: 0, failed: 0, skipped: 0 }
}

/** The reasons printed by the skip helpers (`kerneltune-skip: <reason>`), each with how often. */
export function skipReasons(text) {
  const reasons = new Map()
  for (const m of text.matchAll(/kerneltune-skip: (.+)$/gm)) {
    const reason = m[1].trim()
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1)
  }
  return reasons
}

/** The lines that end `npm test`: the skip reasons per stage, then the total. */
export function formatSummary(total, reasonsByStage) {
  const lines = []
  const stages = [...reasonsByStage].filter(([, r]) => r.size > 0)
  if (stages.length) {
    lines.push('skip reasons:')
    for (const [stage, reasons] of stages) {
      for (const [reason, n] of reasons) lines.push(`  [${stage}] ${reason}${n > 1 ? ` (x${n})` : ''}`)
    }
  } else if (total.skipped > 0) {
    lines.push('skip reasons: none printed (a test was skipped without the kerneltune-skip helper)')
  }
  lines.push(`total: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`)
  return lines
}
