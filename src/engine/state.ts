// The engine's whole state. Everything here is in the snapshot, and nothing outside it influences a
// command's result: that is what makes replay deterministic.
import { SYSTEM_USER } from '../domain/buckets.js'
import { Account, type Position } from './account.js'
import type { MarketRuntime } from './marketRuntime.js'
import type { MmpState } from './mmp.js'
import type { Order } from './order.js'
import { OrderTable } from './orderTable.js'

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

/** A withdrawal the engine accepted and the chain has not settled yet: its amount sits in the system's
 * `withdrawals` bucket until CompleteWithdrawal or FailWithdrawal. */
export interface PendingWithdrawal {
  id: string
  userId: string
  amount: bigint
  toAddress: string
  createdAt: number
}

/** A named sequence: an event stream's last sequence number, or an id series' last value. Holders of a
 * stream keep its Counter (Account.streams, MarketRuntime.streams), so emitting looks nothing up. */
export interface Counter {
  readonly name: string
  value: number
  /** Listed among the counters to persist. */
  dirty: boolean
}

/** Where an account or a market gets the counters of its streams. */
export type CounterSource = Pick<EngineState, 'counter'>

export class EngineState {
  /** Engine clock: running maximum of command timestamps. */
  now = 0
  readonly markets = new Map<string, MarketRuntime>()
  readonly marks = new Map<string, Mark>()
  /** Advanced whenever a mark is set or a market listed (what option valuations depend on): the options
   * bucket's kept sums priced at an older one are priced again (optionSums.ts). Not serialized. */
  valuationEpoch = 0
  /** Derived from `marks` (not serialized): rebuilt whenever a mark is set or restored. */
  readonly markTicks = new Map<string, MarkTicks>()
  readonly accounts = new Map<string, Account>()
  /** Open orders by id. A closed order leaves the state once written. */
  readonly orders = new OrderTable<Order>()
  /** Derived (not serialized): conditional orders waiting for their trigger, per market. */
  readonly waiting = new Map<string, Set<Order>>()
  /** Derived (not serialized): accounts holding a position in a derivative market, the ones liquidation
   * checks after marks move (trackHolding keeps it). */
  readonly holders = new Set<Account>()
  /** The accounts holding option positions: their options bucket moves with the marks. */
  readonly optionHolders = new Set<Account>()
  /** Market-maker protection by `userId|underlying` (mmp.ts): configured or tripped ones only. */
  readonly mmp = new Map<string, MmpState>()
  /** Deposits credited, by depositKey(txHash, logIndex): what makes a deposit count exactly once. */
  readonly creditedDeposits = new Set<string>()
  /** Withdrawals accepted and not yet final, by id. */
  readonly withdrawals = new Map<string, PendingWithdrawal>()
  /** Accounts with an armed dead man's switch. */
  readonly armed = new Set<string>()
  /** Per-stream event sequences and id counters, by name. */
  private readonly counters = new Map<string, Counter>()
  /** Counters changed since the runner last persisted them. */
  private dirty: Counter[] = []
  /** The id series of the hot path, held here so that they look nothing up. */
  readonly orderSeq = this.counter('orderSeq')
  readonly matchSeq = this.counter('match')

  /** The counter of that name, created at 0 when first needed (the same object for the state's life). */
  counter(name: string): Counter {
    let c = this.counters.get(name)
    if (c === undefined) this.counters.set(name, (c = { name, value: 0, dirty: false }))
    return c
  }

  /** Advances a counter and returns its new value (the first is 1). */
  advance(c: Counter): number {
    c.value++
    if (!c.dirty) {
      c.dirty = true
      this.dirty.push(c)
    }
    return c.value
  }

  /** Advances the counter of that name: for series used too rarely to hold. */
  next(name: string): number {
    return this.advance(this.counter(name))
  }

  /** Every counter ever advanced, as [name, value] (one still at 0 is as good as absent). */
  counterEntries(): Array<[string, number]> {
    const out: Array<[string, number]> = []
    for (const c of this.counters.values()) if (c.value !== 0) out.push([c.name, c.value])
    return out
  }

  /** Sets a counter, as a snapshot or a rebuild restores it (not dirty: it is already persisted). In
   * place, so that whoever already holds it sees the restored value. */
  restoreCounter(name: string, value: number): void {
    this.counter(name).value = value
  }

  /** The counters changed since the last markCountersPersisted(), as [name, value]. */
  dirtyCounters(): Array<[string, number]> {
    return this.dirty.map((c) => [c.name, c.value])
  }

  markCountersPersisted(): void {
    for (const c of this.dirty) c.dirty = false
    this.dirty = []
  }

  /** Keeps `holders` (and `optionHolders` and the account's option legs for an option position) in step
   * when a derivative position of `account` goes from `before` to `after` lots. */
  trackHolding(account: Account, before: number, after: number, option: Position | null = null): void {
    if ((before === 0) === (after === 0)) return
    account.derivativePositions += after === 0 ? -1 : 1
    if (account.derivativePositions === 0) this.holders.delete(account)
    else this.holders.add(account)
    if (!option) return
    account.optionPositions += after === 0 ? -1 : 1
    if (account.optionPositions === 0) this.optionHolders.delete(account)
    else this.optionHolders.add(account)
    account.optionLeg(option.market).position = after === 0 ? null : option
    if (after === 0) account.pruneOptionLeg(option.marketId)
  }

  get system(): Account {
    return this.account(SYSTEM_USER)
  }

  /** The account, created empty when first needed. */
  account(userId: string): Account {
    let a = this.accounts.get(userId)
    if (!a) this.accounts.set(userId, (a = new Account(userId, this)))
    return a
  }
}
