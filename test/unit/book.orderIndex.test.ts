// OrderIndex against a Map, validated after every step (removing by handle and taking by id): random
// ids, and forced hashes that pile many entries into a few runs (wrapping past the table's end) so
// backward-shift deletion moves entries.
import { expect, it } from 'vitest'
import { hashId, OrderIndex } from '../../src/engine/book/orderIndex.js'
import { NONE } from '../../src/engine/book/orderStore.js'
import { mulberry32 } from '../../src/domain/prng.js'

it.each([
  { name: 'real hashes', hash: hashId },
  // Eight distinct hashes, all homed near the end of any table: long runs that wrap around.
  { name: 'colliding hashes', hash: (id: string) => -1 - (hashId(id) & 7) },
])('$name: agrees with a Map through growth and shrinking', ({ hash }) => {
  const rand = mulberry32(5)
  // Handle i names ids[i], as in the book's OrderStore; handles are never reused here.
  const ids: string[] = []
  const hashes: number[] = []
  const index = new OrderIndex(ids)
  const reference = new Map<string, number>()
  let next = 0
  for (let step = 0; step < 6_000; step++) {
    // Grow to ~300 entries, shrink to a handful, grow again.
    const target = step % 3_000 < 1_500 ? 300 : 5
    if (rand() < (reference.size < target ? 0.7 : 0.3)) {
      const id = rand() < 0.05 && reference.size > 0 ? ([...reference.keys()][0] as string) : `id${next++}`
      expect(index.has(id, hash(id))).toBe(reference.has(id))
      if (!reference.has(id)) {
        const handle = ids.length
        ids.push(id)
        hashes.push(hash(id))
        index.add(hash(id), handle)
        reference.set(id, handle)
      }
    } else if (reference.size > 0) {
      const keys = [...reference.keys()]
      const id = keys[Math.floor(rand() * keys.length)] as string
      const handle = reference.get(id) as number
      if (rand() < 0.5) index.remove(hash(id), handle)
      else expect(index.take(id, hash(id))).toBe(handle)
      reference.delete(id)
    } else {
      expect(index.take(`id${next + 1}`, hash(`id${next + 1}`))).toBe(NONE)
    }
    index.validate((handle) => hashes[handle] as number)
    expect(index.size).toBe(reference.size)
    const probe = rand() < 0.8 && reference.size > 0 ? ([...reference.keys()][Math.floor(rand() * reference.size)] as string) : `id${next + 1}`
    expect(index.get(probe, hash(probe))).toBe(reference.get(probe) ?? NONE)
  }
})

it('validation catches an entry filed under the wrong hash', () => {
  const ids = ['a', 'b']
  const index = new OrderIndex(ids)
  index.add(hashId('a'), 0)
  index.add(hashId('b'), 1)
  expect(() => index.validate((handle) => hashId(ids[handle] as string))).not.toThrow()
  expect(() => index.validate((handle) => (handle === 1 ? hashId('c') : hashId('a')))).toThrow(/wrong hash/)
})

it('hashes ids deterministically, never to 0', () => {
  // Pinned: the same in every process (V8's string hash is seeded per process), 31-bit signed.
  expect(hashId('o1')).toBe(59749582)
  expect(hashId('01J9ZQK7XW0000000000000ABC')).toBe(413034368)
  expect(hashId('é')).toBe(-579089612)
  expect(hashId('a')).not.toBe(hashId('b'))
  for (const id of ['', 'a', 'o1', 'é', '01J9ZQK7XW0000000000000ABC']) expect(hashId(id)).not.toBe(0)
})
