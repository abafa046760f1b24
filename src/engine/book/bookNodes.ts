// Owns Level, the order book's node for one price on one side: its FIFO queue of orders (handles into
// the book's OrderStore), its place in the side's best-first list and, when priced outside the side's
// ladder window, in the fallback price tree.
import { NONE } from './orderStore.js'
import type { Side } from './types.js'

/** All resting orders at one price on one side, oldest first. */
export class Level {
  readonly side: Side
  readonly price: number
  /** Sum of the orders' remaining lots. */
  total: number
  count: number
  /** Oldest and newest order handles, NONE when empty; the queue links live in the store. */
  head: number
  tail: number
  /** Neighbours in the side's best-first list of non-empty levels. */
  better: Level | null
  worse: Level | null
  /** AVL links in the side's fallback price tree (ascending price); unused inside the window. */
  left: Level | null
  right: Level | null
  height: number
  /** Drain epoch in which the level was last recorded as changed (dedupes the change list). */
  touched: number

  constructor(side: Side, price: number) {
    this.side = side
    this.price = price
    this.total = 0
    this.count = 0
    this.head = NONE
    this.tail = NONE
    this.better = null
    this.worse = null
    this.left = null
    this.right = null
    this.height = 0
    this.touched = 0
  }
}
