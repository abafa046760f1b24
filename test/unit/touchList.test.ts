// TouchList: a set in insertion order, small or large.
import { describe, expect, it } from 'vitest'
import { TouchList } from '../../src/engine/touchList.js'

const contents = <T>(list: TouchList<T>) => Array.from({ length: list.size }, (_, i) => list.get(i))

describe('TouchList', () => {
  it('keeps each item once, in first-added order, below and above the scan limit', () => {
    for (const n of [1, 5, 16, 17, 40]) {
      const list = new TouchList<{ n: number }>()
      const items = Array.from({ length: n }, (_, i) => ({ n: i }))
      for (const item of items) list.add(item)
      for (const item of [...items].reverse()) list.add(item)
      list.add(items[0]!)
      expect(contents(list)).toEqual(items)
      expect(contents(list).every((item, i) => item === items[i])).toBe(true)
    }
  })

  it('is empty after clear and holds no references to what it held', () => {
    const list = new TouchList<object>()
    const held = Array.from({ length: 20 }, () => ({}))
    for (const item of held) list.add(item)
    list.clear()
    expect(list.size).toBe(0)
    expect((list as unknown as { items: unknown[] }).items.every((x) => x === undefined)).toBe(true)
    // Reused after a clear: the large-list index does not carry over.
    list.add(held[3]!)
    list.add(held[3]!)
    expect(contents(list)).toEqual([held[3]])
  })
})
