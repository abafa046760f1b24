// The one way the book's validators report a broken invariant, so every message reads the same.

export function fail(message: string): never {
  throw new Error(`OrderBook invariant broken: ${message}`)
}
