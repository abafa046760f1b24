// Owns OrderIndex: the book's resting orders by id, as handles into its OrderStore. An open-addressing
// table (linear probing, backward-shift deletion, so no tombstones) of (id hash, handle) pairs in one
// Int32Array: a probe reads one packed cache line and compares an id only when the hashes agree, and
// removing an order re-hashes nothing since the store keeps each order's hash. Measured faster than a
// Map<string, …>, which also rebuilds its whole table every time deletions pile up.

import { fnv1a } from '../../domain/fnv1a.js'
import { NONE } from './orderStore.js'

/** FNV-1a over the UTF-16 code units, then murmur3's finaliser so the low bits used for the slot mix
 * all of them. Deterministic, unlike V8's seeded string hash. 31 bits, so a field holding it stays a
 * small integer (a 32-bit value would be boxed as a heap number), and never 0, which marks an empty slot. */
export function hashId(id: string): number {
  let h = fnv1a(id)
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  h = (h ^ (h >>> 16)) >> 1
  return h === 0 ? 1 : h
}

const MIN_CAPACITY = 16

export class OrderIndex {
  size = 0
  /** Slot i is table[2i] (the entry's hash, 0 when empty) and table[2i + 1] (its handle). */
  private table = new Int32Array(2 * MIN_CAPACITY)
  /** 2 × capacity - 1: masks an even table position. */
  private mask = 2 * MIN_CAPACITY - 1
  /** The id of each handle: the owning store's array, read when two hashes agree. */
  private readonly ids: readonly string[]

  constructor(ids: readonly string[]) {
    this.ids = ids
  }

  /** The handle with this id, or -1. `hash` is hashId(id); tests pass others to force collisions. */
  get(id: string, hash: number): number {
    const j = this.find(id, hash)
    return j < 0 ? NONE : (this.table[j + 1] as number)
  }

  /** Removes and returns the handle with this id, or -1: one probe instead of get() + remove(). */
  take(id: string, hash: number): number {
    const j = this.find(id, hash)
    if (j < 0) return NONE
    const handle = this.table[j + 1] as number
    this.vacate(j)
    return handle
  }

  /** The table position of the entry with this id, or -1. */
  private find(id: string, hash: number): number {
    const table = this.table
    const mask = this.mask
    for (let j = (hash << 1) & mask; ; j = (j + 2) & mask) {
      const h = table[j] as number
      if (h === 0) return -1
      if (h === hash && this.ids[table[j + 1] as number] === id) return j
    }
  }

  /** Whether an entry has this id. */
  has(id: string, hash: number): boolean {
    return this.find(id, hash) >= 0
  }

  /** Adds `handle` under `hash`; its id must be absent (see has()). */
  add(hash: number, handle: number): void {
    // At most half full: probe runs stay short.
    if (this.size >= this.mask >> 2) this.resize(this.mask + 1)
    const table = this.table
    const mask = this.mask
    let j = (hash << 1) & mask
    while (table[j] !== 0) j = (j + 2) & mask
    table[j] = hash
    table[j + 1] = handle
    this.size++
  }

  /** Removes `handle`, present under `hash`. */
  remove(hash: number, handle: number): void {
    const table = this.table
    const mask = this.mask
    let j = (hash << 1) & mask
    while (table[j] !== hash || table[j + 1] !== handle) j = (j + 2) & mask
    this.vacate(j)
  }

  /** Empties the slot at table position `hole` with a backward shift: later entries of the run move
   * into the hole unless that would put one before its home slot, so every entry stays reachable from
   * its home without tombstones. */
  private vacate(hole: number): void {
    const table = this.table
    const mask = this.mask
    for (let j = (hole + 2) & mask; ; j = (j + 2) & mask) {
      const h = table[j] as number
      if (h === 0) break
      const home = (h << 1) & mask
      const stays = hole <= j ? hole < home && home <= j : hole < home || home <= j
      if (stays) continue
      table[hole] = h
      table[hole + 1] = table[j + 1] as number
      hole = j
    }
    table[hole] = 0
    table[hole + 1] = 0
    this.size--
    // Shrink below an eighth full (half the load a grown table starts at), so a book that emptied does
    // not keep a large table and add/remove at the boundary cannot thrash.
    if (this.size < this.mask >> 4 && this.mask + 1 > 2 * MIN_CAPACITY) this.resize((this.mask + 1) >> 2)
  }

  /** Throws unless every entry sits in the run of its home slot, `hashOf` agrees with the hash it is
   * filed under, and size counts them. */
  validate(hashOf: (handle: number) => number): void {
    const table = this.table
    const mask = this.mask
    let count = 0
    for (let j = 0; j < mask; j += 2) {
      const h = table[j] as number
      const handle = table[j + 1] as number
      if (h === 0) {
        if (handle !== 0) throw new Error(`order index slot ${j >> 1} holds handle ${handle} under no hash`)
        continue
      }
      if (hashOf(handle) !== h) throw new Error(`order index slot ${j >> 1} has the wrong hash for handle ${handle}`)
      for (let k = (h << 1) & mask; k !== j; k = (k + 2) & mask) {
        if (table[k] === 0) throw new Error(`order ${this.ids[handle]} is unreachable from its home slot`)
      }
      count++
    }
    if (count !== this.size || this.size * 4 > mask + 1) throw new Error(`order index holds ${count} entries, size ${this.size}, capacity ${(mask + 1) >> 1}`)
  }

  private resize(capacity: number): void {
    const table = this.table
    this.table = new Int32Array(2 * capacity)
    this.mask = 2 * capacity - 1
    this.size = 0
    for (let j = 0; j < table.length; j += 2) {
      if (table[j] !== 0) this.add(table[j] as number, table[j + 1] as number)
    }
  }
}
