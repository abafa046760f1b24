// Owns OrderIndex: the book's resting orders by id. An open-addressing table (linear probing,
// backward-shift deletion, so no tombstones) that keeps each order's id hash on the order: removing a
// filled or cancelled order re-hashes nothing, and a lookup probes a packed array of hashes before
// touching any order. Measured faster than a Map<string, Order>, which also rebuilds its whole table
// every time deletions pile up.

import { fnv1a } from '../../domain/fnv1a.js'

/** What the index stores: an id and the hash of that id, set by the caller with hashId(). */
export interface Indexed {
  readonly id: string
  readonly hash: number
}

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

export class OrderIndex<T extends Indexed> {
  size = 0
  /** Slot i is table[2i] (the entry's hash, 0 when empty) and table[2i + 1] (the entry or null):
   * side by side, so a probe reads one cache line, not one in each of two arrays. */
  private table: Array<number | T | null> = emptyTable(MIN_CAPACITY)
  /** 2 × capacity - 1: masks an even table position. */
  private mask = 2 * MIN_CAPACITY - 1

  /** `hash` is hashId(id); tests pass others to force collisions. */
  get(id: string, hash: number = hashId(id)): T | undefined {
    const j = this.find(id, hash)
    return j < 0 ? undefined : (this.table[j + 1] as T)
  }

  /** Removes and returns the entry with this id, or undefined: one probe instead of get() + remove(). */
  take(id: string, hash: number = hashId(id)): T | undefined {
    const j = this.find(id, hash)
    if (j < 0) return undefined
    const entry = this.table[j + 1] as T
    this.vacate(j)
    return entry
  }

  /** The table position of the entry with this id, or -1. */
  private find(id: string, hash: number): number {
    const table = this.table
    const mask = this.mask
    for (let j = (hash << 1) & mask; ; j = (j + 2) & mask) {
      const h = table[j] as number
      if (h === 0) return -1
      if (h === hash && (table[j + 1] as T).id === id) return j
    }
  }

  /** Adds `entry`; returns false, changing nothing, when its id is already present. */
  add(entry: T): boolean {
    // At most half full: probe runs stay short.
    if (this.size >= this.mask >> 2) this.resize(this.mask + 1)
    const hash = entry.hash
    const id = entry.id
    const table = this.table
    const mask = this.mask
    let j = (hash << 1) & mask
    for (; ; j = (j + 2) & mask) {
      const h = table[j] as number
      if (h === 0) break
      if (h === hash && (table[j + 1] as T).id === id) return false
    }
    table[j] = hash
    table[j + 1] = entry
    this.size++
    return true
  }

  /** Removes `entry`, which must be present. */
  remove(entry: T): void {
    const table = this.table
    const mask = this.mask
    let j = (entry.hash << 1) & mask
    while (table[j + 1] !== entry) j = (j + 2) & mask
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
      table[hole + 1] = table[j + 1] as T
      hole = j
    }
    table[hole] = 0
    table[hole + 1] = null
    this.size--
    // Shrink below an eighth full (half the load a grown table starts at), so a book that emptied does
    // not keep a large table and add/remove at the boundary cannot thrash.
    if (this.size < this.mask >> 4 && this.mask + 1 > 2 * MIN_CAPACITY) this.resize((this.mask + 1) >> 2)
  }

  /** Throws unless every entry sits in the run of its home slot under its own hash, and size counts them
   * (whether each hash is hashId(id) is the owner's check). */
  validate(): void {
    const table = this.table
    const mask = this.mask
    let count = 0
    for (let j = 0; j < mask; j += 2) {
      const h = table[j] as number
      const entry = (table[j + 1] ?? null) as T | null
      if (h === 0) {
        if (entry !== null) throw new Error(`order index slot ${j >> 1} holds an entry under no hash`)
        continue
      }
      if (entry === null || entry.hash !== h) throw new Error(`order index slot ${j >> 1} has the wrong hash`)
      for (let k = (h << 1) & mask; k !== j; k = (k + 2) & mask) {
        if (table[k] === 0) throw new Error(`order ${entry.id} is unreachable from its home slot`)
      }
      count++
    }
    if (count !== this.size || this.size * 4 > mask + 1) throw new Error(`order index holds ${count} entries, size ${this.size}, capacity ${(mask + 1) >> 1}`)
  }

  private resize(capacity: number): void {
    const table = this.table
    this.table = emptyTable(capacity)
    this.mask = 2 * capacity - 1
    this.size = 0
    for (let j = 0; j < table.length; j += 2) {
      if (table[j] !== 0) this.add(table[j + 1] as T)
    }
  }
}

/** A packed array of empty slots (a holey one would cost a hole check on every read). */
function emptyTable<T>(capacity: number): Array<number | T | null> {
  const table: Array<number | T | null> = []
  for (let i = 0; i < capacity; i++) table.push(0, null)
  return table
}
