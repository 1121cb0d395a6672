import { describe, expect, it } from 'vitest'
import { blockCv, blockValues, compareBlocks, type Block } from './serving-reference.ts'

// Five blocks per setting; a block's repetitions wobble by a few percent, and one repetition of
// the first defaults block is a collapse that the block's trimmed mean drops.
const wobble = [0.98, 1.01, 1.0, 1.03, 0.97, 1.0, 0.99, 1.02]
const block = (label: string, level: number, i: number): Block => ({ label, values: wobble.map((w, k) => (label === 'defaults' && i === 0 && k === 3 ? 200 : level * w * (1 + 0.01 * ((i % 3) - 1)))) })
const blocks: Block[] = []
for (let i = 0; i < 5; i++) {
  blocks.push(block('defaults', 1500, i), block('defaults (A/A)', 1500, i), block('threads=1', 1200, i))
}

describe('blockValues', () => {
  it('should give one value per block, the trimmed mean of its repetitions, robust to one collapsed repetition', () => {
    const x = blockValues(blocks, 'defaults')
    expect(x).toHaveLength(5)
    expect(x[0]).toBeGreaterThan(1500 * 0.98)
  })
})

describe('compareBlocks', () => {
  it('should call a 20% slower setting worse, with the blocks as the unit of the test', () => {
    const c = compareBlocks(blocks, 'threads=1', 'defaults')
    expect(c).toMatchObject({ verdict: 'worse', blocks: 5, baselineBlocks: 5 })
    expect(c.improvement).toBeCloseTo(-0.2, 2)
    expect(c.p).toBeLessThan(0.001)
    // Yuen's degrees of freedom come from 3 blocks left of 5 after trimming each side: at most 4.
    expect(c.df).toBeLessThanOrEqual(4)
  })

  it('should not separate the defaults from themselves (the A/A setting)', () => {
    const c = compareBlocks(blocks, 'defaults (A/A)', 'defaults')
    expect(c.verdict).toBe('indistinguishable')
    expect(Math.abs(c.improvement)).toBeLessThan(0.01)
  })

  it('should answer n/a, not a verdict, with fewer than two blocks on a side', () => {
    expect(compareBlocks([...blocks, { label: 'parallel=1', values: [1000, 1001] }], 'parallel=1', 'defaults')).toMatchObject({ verdict: 'n/a', blocks: 1 })
    expect(compareBlocks(blocks, 'threads=1', 'nothing')).toMatchObject({ verdict: 'n/a', baselineBlocks: 0 })
  })

  it('should measure the block-to-block spread', () => {
    expect(blockCv(blocks, 'threads=1')).toBeGreaterThan(0)
    expect(blockCv(blocks, 'threads=1')).toBeLessThan(0.02)
  })
})
