/**
 * Physical chips, for leave-one-chip-out evaluation. A hardware label of the data (a preset id,
 * with "-cpu" for the CPU cores of an Apple chip) is not a chip: the CPU and GPU rows of one Apple
 * chip, its core-count variants (M1 Max 24- and 32-core GPU) and the power limits and memory
 * options of one die (A100 PCIe and SXM, H100 PCIe and SXM) share their silicon, so holding out
 * one label while training on its siblings tells how well the model knows that chip, not how well
 * it does on one it never saw. A chip here is a die: labels on one die form one group, held out
 * together.
 */

/**
 * Preset ids of the data sharing a die, keyed by the die's name. Apple's M1 Ultra is two M1 Max
 * dies joined: it is kept apart from the M1 Max, since its doubled bandwidth and cores make it a
 * different device as llama.cpp sees it (one Metal device with 800 GB/s), the way two cards are.
 */
const DIES: Record<string, readonly string[]> = {
  'apple-m1': ['m1', 'm1-7c'],
  'apple-m1-max': ['m1-max', 'm1-max-24c'],
  'apple-m2-ultra': ['m2-ultra', 'm2-ultra-60c'],
  'nvidia-ga100': ['a100-sxm-80gb', 'a100-sxm-40gb', 'a100-pcie-80gb', 'a100-pcie-40gb'],
  'nvidia-gh100': ['h100-sxm', 'h100-pcie', 'h100-nvl', 'h200', 'gh200', 'gh200-144gb'],
  // AD102: RTX 4090 (128 SMs), RTX 5000 Ada (100), RTX 6000 Ada, L40 and L40S (142) are core-count and power variants.
  'nvidia-ad102': ['rtx-4090', 'rtx-5000-ada', 'rtx-6000-ada', 'l40s', 'l40'],
  // AD104: RTX 4070 Ti (60 SMs) and RTX 4000 Ada (48).
  'nvidia-ad104': ['rtx-4070-ti', 'rtx-4000-ada'],
  // GA102: RTX 3090 (82 SMs), 3080 Ti, 3080, A40, RTX A6000, A10 and A10G.
  'nvidia-ga102': ['rtx-3090', 'rtx-3080-ti', 'rtx-3080', 'a40', 'rtx-a6000', 'a10', 'a10g'],
  // Vega 20: Radeon Instinct MI50 (60 CUs) and MI60 (64).
  'amd-vega20': ['mi50', 'mi60'],
}

const DIE_OF = new Map<string, string>(Object.entries(DIES).flatMap(([die, ids]) => ids.map((id) => [id, die] as [string, string])))

/**
 * The chip (die) of a hardware label: the CPU rows of an Apple chip ("m3-cpu") join its GPU rows,
 * variants of one die join it; any other label is a chip of its own.
 */
export function chipOf(label: string): string {
  const base = label.endsWith('-cpu') ? label.slice(0, -'-cpu'.length) : label
  return DIE_OF.get(base) ?? (base.startsWith('m') && /^m\d/.test(base) ? `apple-${base}` : base)
}

/** The labels of each chip, in first-seen order. */
export function chipGroups(labels: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>()
  for (const l of labels) {
    const c = chipOf(l)
    const list = out.get(c) ?? []
    if (!list.includes(l)) list.push(l)
    out.set(c, list)
  }
  return out
}
