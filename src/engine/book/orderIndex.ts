// Owns OrderIndex: the book's resting orders by id. An open-addressing table (linear probing,
// backward-shift deletion, so no tombstones) that keeps each order's id hash on the order: removing a
// filled or cancelled order re-hashes nothing, and a lookup probes a packed array of hashes before
// touching any order. Measured faster than a Map<string, Order>, which also rebuilds its whole table
// every time deletions pile up.

/** What the index stores: an id and the hash of that id, set by the caller with hashId(). */
export interface Indexed {
  readonly id: string
  readonly hash: number
}

/** FNV-1a over the UTF-16 code units, then murmur3's finaliser so the low bits used for the slot mix
 * all of them. Never 0, which marks an empty slot. Deterministic, unlike V8's seeded string hash. */
export function hashId(id: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193)
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  h ^= h >>> 16
  return h === 0 ? 1 : h
}

const MIN_CAPACITY = 16

export class OrderIndex<T extends Indexed> {
  size = 0
  /** hashes[i] is the hash of entries[i], or 0 for an empty slot. */
  private hashes = new Int32Array(MIN_CAPACITY)
  private entries: Array<T | null> = emptySlots<T>(MIN_CAPACITY)
  private mask = MIN_CAPACITY - 1

  /** `hash` is hashId(id); tests pass others to force collisions. */
  get(id: string, hash: number = hashId(id)): T | undefined {
    const hashes = this.hashes
    const mask = this.mask
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const h = hashes[i] as number
      if (h === 0) return undefined
      if (h === hash) {
        const entry = this.entries[i] as T
        if (entry.id === id) return entry
      }
    }
  }

  /** Adds `entry`; returns false, changing nothing, when its id is already present. */
  add(entry: T): boolean {
    // At most half full: probe runs stay short.
    if (this.size >= this.mask >> 1) this.resize((this.mask + 1) * 2)
    const hash = entry.hash
    const id = entry.id
    const hashes = this.hashes
    const mask = this.mask
    let i = hash & mask
    for (; ; i = (i + 1) & mask) {
      const h = hashes[i] as number
      if (h === 0) break
      if (h === hash && (this.entries[i] as T).id === id) return false
    }
    hashes[i] = hash
    this.entries[i] = entry
    this.size++
    return true
  }

  /** Removes `entry`, which must be present. */
  remove(entry: T): void {
    const hashes = this.hashes
    const entries = this.entries
    const mask = this.mask
    let hole = entry.hash & mask
    while (entries[hole] !== entry) hole = (hole + 1) & mask
    // Backward shift: pull later entries of the run into the hole unless that would move one before
    // its home slot, so every entry stays reachable from its home without tombstones.
    for (let i = (hole + 1) & mask; ; i = (i + 1) & mask) {
      const h = hashes[i] as number
      if (h === 0) break
      const home = h & mask
      const stays = hole <= i ? hole < home && home <= i : hole < home || home <= i
      if (stays) continue
      hashes[hole] = h
      entries[hole] = entries[i] as T
      hole = i
    }
    hashes[hole] = 0
    entries[hole] = null
    this.size--
    // Shrink once a quarter of the minimum load is left, so a book that emptied does not keep a large table.
    if (this.size < this.mask >> 3 && this.mask + 1 > MIN_CAPACITY) this.resize((this.mask + 1) >> 1)
  }

  /** Throws unless every entry sits in the run of its home slot under its own hash, and size counts them
   * (whether each hash is hashId(id) is the owner's check). */
  validate(): void {
    const mask = this.mask
    let count = 0
    for (let i = 0; i <= mask; i++) {
      const h = this.hashes[i] as number
      const entry = this.entries[i] ?? null
      if (h === 0) {
        if (entry !== null) throw new Error(`order index slot ${i} holds an entry under no hash`)
        continue
      }
      if (entry === null || entry.hash !== h) throw new Error(`order index slot ${i} has the wrong hash`)
      for (let j = h & mask; j !== i; j = (j + 1) & mask) {
        if (this.hashes[j] === 0) throw new Error(`order ${entry.id} is unreachable from its home slot`)
      }
      count++
    }
    if (count !== this.size || this.size * 2 > mask + 1) throw new Error(`order index holds ${count} entries, size ${this.size}, capacity ${mask + 1}`)
  }

  private resize(capacity: number): void {
    const hashes = this.hashes
    const entries = this.entries
    this.hashes = new Int32Array(capacity)
    this.entries = emptySlots<T>(capacity)
    this.mask = capacity - 1
    this.size = 0
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i] as T | null
      if (entry !== null && hashes[i] !== 0) this.add(entry)
    }
  }
}

/** A packed array of nulls (a holey one would cost a hole check on every read). */
function emptySlots<T>(capacity: number): Array<T | null> {
  const slots: Array<T | null> = []
  for (let i = 0; i < capacity; i++) slots.push(null)
  return slots
}
