// TickBitset against a plain array of booleans: every nearest-member query after every change, on sizes
// with one and several summary words.
import { expect, it } from 'vitest'
import { TickBitset } from '../../src/engine/book/tickBitset.js'
import { mulberry32 } from '../../src/domain/prng.js'

it.each([32, 64, 1024, 4096])('size %i: nearest members match a linear scan', (size) => {
  const rand = mulberry32(size)
  const bits = new TickBitset(size)
  const members = new Array<boolean>(size).fill(false)
  const below = (i: number) => {
    for (let j = i; j >= 0; j--) if (members[j]) return j
    return -1
  }
  const above = (i: number) => {
    for (let j = i; j < size; j++) if (members[j]) return j
    return -1
  }
  const edges = [-1, 0, 31, 32, size - 1, size]
  for (let step = 0; step < 3_000; step++) {
    // A few hot slots (one per word at the larger sizes) set and cleared again and again, so words and
    // their summary bits keep going empty and back; sometimes a clear starts over.
    const i = rand() < 0.5 ? Math.floor(rand() * size) : (Math.floor(rand() * 8) * 131) % size
    if (rand() < 0.001) {
      bits.clear()
      members.fill(false)
    } else if (rand() < 0.5) {
      bits.add(i)
      members[i] = true
    } else {
      bits.delete(i)
      members[i] = false
    }
    bits.validate()
    const q = rand() < 0.2 ? (edges[Math.floor(rand() * edges.length)] as number) : Math.floor(rand() * size)
    if (q >= 0 && q < size) expect(bits.has(q)).toBe(members[q])
    if (q < size) expect(bits.atOrBelow(q)).toBe(below(q))
    if (q >= 0) expect(bits.atOrAbove(q)).toBe(above(q))
  }
})

it('rejects sizes that are not a positive multiple of 32', () => {
  for (const size of [0, 16, 33, 1.5]) expect(() => new TickBitset(size)).toThrow(RangeError)
})
