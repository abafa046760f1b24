// Owns the canonical state hash of a book: SHA-256 over its orders in `orders()` order, so two books
// (of any implementation or internal shape) holding the same content hash equal.
import { createHash } from 'node:crypto'
import type { BookOrder } from './types.js'

/** Bump when the encoding changes, so hashes of different formats never compare equal. */
const FORMAT = 'book-v1\n'

/** `orders` must be bids best-first then asks best-first, time priority within a level. */
export function hashBook(orders: Iterable<BookOrder>): string {
  // One line per order; JSON-quoted strings keep ids and owners unambiguous whatever they contain.
  let text = FORMAT
  for (const o of orders) {
    text += `${JSON.stringify(o.id)},${JSON.stringify(o.owner)},${o.side},${o.price},${o.remaining},${o.seq}\n`
  }
  return createHash('sha256').update(text).digest('hex')
}
