// An insertion-ordered set for what one command touches (books, orders, accounts: usually a handful).
// Small, it is a linear scan over an array, and clearing it is a count reset; Set.prototype.clear
// allocates a new table, which the engine paid three times per command. Past SCAN_LIMIT entries (a
// cancel-all, a liquidation) a Set keeps adds O(1).
const SCAN_LIMIT = 16

export class TouchList<T> {
  private readonly items: Array<T | undefined> = []
  private count = 0
  private index: Set<T> | null = null

  get size(): number {
    return this.count
  }

  /** The i-th distinct item added since the last clear (0 ≤ i < size). */
  get(i: number): T {
    return this.items[i] as T
  }

  add(item: T): void {
    const n = this.count
    if (this.index !== null) {
      if (this.index.has(item)) return
      this.index.add(item)
    } else {
      for (let i = 0; i < n; i++) if (this.items[i] === item) return
      if (n === SCAN_LIMIT) this.index = new Set(this.items.slice(0, n) as T[]).add(item)
    }
    this.items[n] = item
    this.count = n + 1
  }

  /** Empties the list, dropping its references. */
  clear(): void {
    for (let i = 0; i < this.count; i++) this.items[i] = undefined
    this.count = 0
    this.index = null
  }
}
