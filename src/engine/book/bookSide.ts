// Owns BookSide: one side's price levels. A ladder (an array of levels indexed by price minus `base`,
// with a bitset of the non-empty ones) covers a window around the touch, where nearly all levels open
// and close; levels priced outside it live in a map plus an AVL tree. Both feed one best-first linked
// list of the non-empty levels, which is what matching and depth walk. The window follows the market:
// when a level opens outside it near the best price, the window is re-placed around it.
import { Level } from './bookNodes.js'
import { fail } from './invariant.js'
import { NONE } from './orderStore.js'
import { PriceTree, validatedTreeLevels } from './priceTree.js'
import { TickBitset } from './tickBitset.js'
import { BUY, type Side } from './types.js'

/** Default ladder width in ticks per side (a multiple of 32): 1024 slots (8 KB), enough for a market
 * quoting a few hundred ticks deep to move for a long while before the window is re-placed. */
export const DEFAULT_WINDOW = 1024

export class BookSide {
  readonly side: Side
  readonly isBid: boolean
  readonly width: number
  /** Price of slot 0. Starts where no positive price falls, so the first level places the window. */
  base: number
  /** slots[i] is the level priced base + i once created; emptied levels stay for reuse (at most
   * `width` of them). Allocated when the window is first placed. */
  slots: Array<Level | null> = []
  /** Slots holding a non-empty level. */
  readonly live: TickBitset
  /** Levels priced outside the window: the non-empty ones, and emptied ones until the next drain (so a
   * level re-created before the drain is the same object and yields one change entry). An emptied
   * level can also stay here once the window moves over its price; its slot stays null until
   * `openSlot` takes it over. */
  readonly outside = new Map<number, Level>()
  /** The non-empty levels of `outside`. */
  readonly tree = new PriceTree()
  best: Level | null = null
  worst: Level | null = null
  /** Levels opened since the window was last placed: re-placing costs O(width) plus moved levels, so it
   * waits for width / 4 opens, keeping an open amortised O(log L) whatever the prices do. */
  private opens: number

  constructor(side: Side, width: number) {
    this.side = side
    this.isBid = side === BUY
    this.width = width
    this.live = new TickBitset(width)
    this.base = -width
    this.opens = width
  }

  /** The level at `price`: an existing one, or a new empty one that link() registers. May re-place
   * the window first; `epoch` tells which emptied levels are still pending the drain. */
  levelAt(price: number, epoch: number): Level {
    let slot = price - this.base
    if (slot < 0 || slot >= this.width) {
      if (!this.nearTouch(price)) return this.outside.get(price) ?? new Level(this.side, price)
      this.place(price, epoch)
      slot = price - this.base
    }
    return this.slots[slot] ?? this.openSlot(slot)
  }

  /** Total lots at `price`, 0 when no level. */
  sizeAt(price: number): number {
    const slot = price - this.base
    if (slot >= 0 && slot < this.width) {
      // Before the window is first placed the ladder has no slots at all.
      const level = this.slots[slot] ?? null
      return level === null ? 0 : level.total
    }
    const level = this.outside.get(price)
    return level === undefined ? 0 : level.total
  }

  /** Links a level that just became non-empty into the index and between its price neighbours. */
  link(level: Level): void {
    this.opens++
    const price = level.price
    const slot = price - this.base
    let lower: Level | null
    if (slot >= 0 && slot < this.width) {
      const live = this.live
      const below = live.atOrBelow(slot - 1)
      live.add(slot)
      if (below >= 0) lower = this.slots[below] as Level
      else {
        const above = live.atOrAbove(slot + 1)
        if (above >= 0) return this.linkBelow(level, this.slots[above] as Level)
        // Nothing else in the window: every other level is in the tree.
        lower = this.tree.below(price)
      }
    } else {
      this.outside.set(price, level)
      const tree = this.tree
      tree.insert(level)
      // Beyond the window's far edge on either side, the tree neighbour on that side is the true one.
      if (price >= this.base) return this.linkBelow(level, tree.higher)
      lower = tree.lower
    }
    this.linkAbove(level, lower)
  }

  /** Unlinks a level that just became empty; an outside one stays in `outside` until the drain. */
  unlink(level: Level): void {
    const slot = level.price - this.base
    if (slot >= 0 && slot < this.width) this.live.delete(slot)
    else this.tree.remove(level)
    const better = level.better
    const worse = level.worse
    if (better === null) this.best = worse
    else better.worse = worse
    if (worse === null) this.worst = better
    else worse.better = better
    level.better = null
    level.worse = null
  }

  /** At a drain: forgets an emptied level unless it sits in the window. */
  retire(level: Level): void {
    const slot = level.price - this.base
    if (slot >= 0 && slot < this.width && this.slots[slot] === level) return
    if (this.outside.get(level.price) === level) this.outside.delete(level.price)
  }

  private nearTouch(price: number): boolean {
    if (this.opens < this.width >> 2) return false
    const best = this.best
    return best === null || Math.abs(price - best.price) < this.width >> 1
  }

  private openSlot(slot: number): Level {
    const price = this.base + slot
    let level = this.outside.get(price)
    if (level === undefined) level = new Level(this.side, price)
    else this.outside.delete(price)
    this.slots[slot] = level
    return level
  }

  /** Re-places the window so the best price after opening `price` sits a quarter of the width from its
   * better edge, moving levels between the ladder and the tree. The level list does not change. */
  private place(price: number, epoch: number): void {
    const width = this.width
    const best = this.best === null ? price : this.isBid ? Math.max(this.best.price, price) : Math.min(this.best.price, price)
    const room = width >> 2
    const base = Math.min(this.isBid ? best + room - width + 1 : best - room, Number.MAX_SAFE_INTEGER - width + 1)
    const slots: Array<Level | null> = []
    for (let i = 0; i < width; i++) slots.push(null)
    for (const level of this.tree.range(base, base + width)) {
      this.tree.remove(level)
      this.outside.delete(level.price)
      slots[level.price - base] = level
    }
    for (const level of this.slots) {
      if (level === null) continue
      const slot = level.price - base
      if (slot >= 0 && slot < width) slots[slot] = level
      else if (level.count > 0) {
        this.outside.set(level.price, level)
        this.tree.insert(level)
      } else if (level.touched === epoch) this.outside.set(level.price, level)
    }
    const live = this.live
    live.clear()
    for (let i = 0; i < width; i++) {
      const level = slots[i] as Level | null
      if (level !== null && level.count > 0) live.add(i)
    }
    this.base = base
    this.slots = slots
    this.opens = 0
  }

  /** Links `level` just above `lower` in price (null: below every level). */
  private linkAbove(level: Level, lower: Level | null): void {
    if (this.isBid) this.insertBetween(level, lower === null ? this.worst : lower.better, lower)
    else this.insertBetween(level, lower, lower === null ? this.best : lower.worse)
  }

  /** Links `level` just below `higher` in price (null: above every level). */
  private linkBelow(level: Level, higher: Level | null): void {
    if (this.isBid) this.insertBetween(level, higher, higher === null ? this.best : higher.worse)
    else this.insertBetween(level, higher === null ? this.worst : higher.better, higher)
  }

  private insertBetween(level: Level, better: Level | null, worse: Level | null): void {
    level.better = better
    level.worse = worse
    if (better === null) this.best = level
    else better.worse = level
    if (worse === null) this.worst = level
    else worse.better = level
  }

  /** Checks the window, the outside map and the tree against the best-first list (whose levels the
   * caller has checked one by one); `pending` tells whether an emptied level awaits the drain. */
  validate(listed: Level[], pending: (level: Level) => boolean): void {
    const name = this.isBid ? 'bid' : 'ask'
    const empty = (level: Level) => level.total === 0 && level.head === NONE && level.tail === NONE && level.better === null && level.worse === null
    const notInTree = (level: Level) => level.left === null && level.right === null && level.height === 0
    this.live.validate()
    if (this.slots.length !== 0 && this.slots.length !== this.width) fail(`${name} ladder has ${this.slots.length} slots`)
    let inWindow = 0
    for (let i = 0; i < this.width; i++) {
      const level = (this.slots[i] ?? null) as Level | null
      if (level === null) {
        if (this.live.has(i)) fail(`${name} slot ${i} marked live without a level`)
        continue
      }
      const at = `${name} slot ${i} (level ${level.price})`
      if (level.price !== this.base + i || level.side !== this.side) fail(`${at}: wrong level`)
      if (!notInTree(level)) fail(`${at}: window level linked in the tree`)
      if (this.live.has(i) !== level.count > 0) fail(`${at}: live bit disagrees with count ${level.count}`)
      if (level.count > 0) inWindow++
      else if (!empty(level)) fail(`${at}: empty level in use`)
    }
    let outsideLive = 0
    for (const [price, level] of this.outside) {
      const at = `${name} outside level ${price}`
      if (level.price !== price || level.side !== this.side) fail(`${at}: holds the wrong level`)
      const slot = price - this.base
      if (slot >= 0 && slot < this.width) {
        if (this.slots[slot] != null) fail(`${at}: also has a slot`)
        if (level.count !== 0) fail(`${at}: non-empty level inside the window`)
      }
      if (level.count > 0) outsideLive++
      else if (!empty(level) || !notInTree(level)) fail(`${at}: empty level in use`)
      else if (!pending(level)) fail(`${at}: empty level not pending the next drain`)
    }
    const treeLevels = validatedTreeLevels(this.tree, name)
    for (const level of treeLevels) {
      if (level.count === 0 || this.outside.get(level.price) !== level) fail(`${name} tree level ${level.price} is not a live outside level`)
    }
    if (treeLevels.length !== outsideLive) fail(`${name} tree holds ${treeLevels.length} levels, outside map ${outsideLive} live`)
    if (inWindow + outsideLive !== listed.length) fail(`${name}: ${inWindow} window + ${outsideLive} outside levels, list ${listed.length}`)
    for (const level of listed) {
      const slot = level.price - this.base
      const indexed = slot >= 0 && slot < this.width ? this.slots[slot] : this.outside.get(level.price)
      if (indexed !== level) fail(`${name} level ${level.price}: listed but not indexed`)
    }
  }
}
