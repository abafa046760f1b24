// The engine's whole state. Everything here is in the snapshot, and nothing outside it influences a
// command's result: that is what makes replay deterministic.
import type { MarketRuntime } from './marketRuntime.js'

export interface Mark {
  marketId: string
  /** Canonical decimal string. */
  price: string
  /** For a perpetual: the futures-curve index the mark derives from. */
  indexPrice: string | null
  source: string
  /** Upstream time of the oldest input, unix ms: staleness is judged on it. */
  sourceTs: number
  /** Engine time at which the engine took it. */
  engineTs: number
}

export class EngineState {
  /** Engine clock: running maximum of command timestamps. */
  now = 0
  readonly markets = new Map<string, MarketRuntime>()
  readonly marks = new Map<string, Mark>()
  /** Per-stream event sequences and id counters, by name. */
  readonly counters = new Map<string, number>()
  /** Counters changed since the runner last persisted them. */
  readonly dirtyCounters = new Set<string>()

  next(counter: string): number {
    const n = (this.counters.get(counter) ?? 0) + 1
    this.counters.set(counter, n)
    this.dirtyCounters.add(counter)
    return n
  }
}
