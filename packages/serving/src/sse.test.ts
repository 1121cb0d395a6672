import { describe, expect, it } from 'vitest'
import { sseParser } from './sse.ts'

describe('sseParser', () => {
  it('should join events split across chunks at any byte', () => {
    const text = 'data: {"a":1}\n\ndata: {"b":2}\r\n\r\n: comment\n\ndata: [DONE]\n\n'
    for (let cut = 1; cut < text.length; cut++) {
      const p = sseParser()
      const got = [...p.push(text.slice(0, cut)), ...p.push(text.slice(cut)), ...p.end()]
      expect(got).toEqual(['{"a":1}', '{"b":2}', '[DONE]'])
    }
  })

  it('should return a last event that lacks the blank line at the end', () => {
    const p = sseParser()
    expect(p.push('data: {"x":1}')).toEqual([])
    expect(p.end()).toEqual(['{"x":1}'])
  })
})
