// The engine's whole state. Everything here is in the snapshot, and nothing outside it influences a
// command's result: that is what makes replay deterministic.
import { SYSTEM_USER } from '../domain/buckets.js'
import { Account } from './account.js'
import type { RiskArrays } from './margin.js'
import type { MarketRuntime } from './marketRuntime.js'
import type { Order } from './order.js'

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

/** What the engine derives from a mark for its checks: the mark on the tick and the price band. */
export interface MarkTicks {
  ticks: number
  bandLow: number
  bandHigh: number
}

export class EngineState {
  /** Engine clock: running maximum of command timestamps. */
  now = 0
  readonly markets = new Map<string, MarketRuntime>()
  readonly marks = new Map<string, Mark>()
  /** Derived from `marks` (not serialized): rebuilt whenever a mark is set or restored. */
  readonly markTicks = new Map<string, MarkTicks>()
  /** Derived from `marks` (not serialized): risk arrays of linear instruments at their current mark. */
  readonly riskArrays = new Map<string, RiskArrays>()
  readonly accounts = new Map<string, Account>()
  /** Open orders by id. A closed order leaves the state once written. */
  readonly orders = new Map<string, Order>()
  /** Derived (not serialized): conditional orders waiting for their trigger, per market. */
  readonly waiting = new Map<string, Set<Order>>()
  /** Accounts with an armed dead man's switch. */
  readonly armed = new Set<string>()
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

  get system(): Account {
    return this.account(SYSTEM_USER)
  }

  /** The account, created empty when first needed. */
  account(userId: string): Account {
    let a = this.accounts.get(userId)
    if (!a) this.accounts.set(userId, (a = new Account(userId)))
    return a
  }
}
