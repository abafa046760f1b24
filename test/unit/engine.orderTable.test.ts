// OrderTable against a Map through random adds, replacements, lookups and deletions, growing to a few
// thousand entries and draining again (so the index grows, shrinks and reuses freed slots).
import { expect, it } from 'vitest'
import { mulberry32 } from '../../src/domain/prng.js'
import { OrderTable } from '../../src/engine/orderTable.js'

interface Item {
  readonly id: string
  readonly version: number
}

it('agrees with a Map on every operation, and lists exactly the items held', () => {
  const rand = mulberry32(11)
  const table = new OrderTable<Item>()
  const reference = new Map<string, Item>()
  let next = 0
  const anyHeld = () => [...reference.keys()][Math.floor(rand() * reference.size)]!
  for (let step = 0; step < 20_000; step++) {
    const target = step % 10_000 < 5_000 ? 3_000 : 10
    const r = rand()
    if (r < (reference.size < target ? 0.6 : 0.25)) {
      // A new id (ULID-like length), or now and then a replacement of a held one.
      const id = rand() < 0.05 && reference.size > 0 ? anyHeld() : `01JD${String(next++).padStart(22, '0')}`
      const item = { id, version: step }
      table.set(item)
      reference.set(id, item)
    } else if (r < 0.75 && reference.size > 0) {
      const id = rand() < 0.5 ? anyHeld() : `absent${step}`
      expect(table.delete(id)).toBe(reference.delete(id))
    } else {
      // Look up a fresh copy of the string, as a decoded command carries.
      const id = rand() < 0.7 && reference.size > 0 ? anyHeld() : `01JD${String(next + 1).padStart(22, '0')}`
      const copy = JSON.parse(JSON.stringify(id)) as string
      expect(table.get(copy)).toBe(reference.get(id))
      expect(table.has(copy)).toBe(reference.has(id))
    }
    expect(table.size).toBe(reference.size)
    if (step % 1_000 === 0) expect(new Set(table.values())).toEqual(new Set(reference.values()))
  }
  expect(new Set(table.values())).toEqual(new Set(reference.values()))
})
