// One account as the engine holds it: balances per bucket in micro-USDC, positions per market, open
// orders, what open orders reserve, the all-time clientOrderId index, faucet grants in the rolling day
// and the dead man's switch.
import type { Bucket } from '../domain/buckets.js'
import type { MarginMode } from '../domain/orders.js'
import { streams } from './events.js'
import type { MarketRuntime } from './marketRuntime.js'
import type { Order } from './order.js'
import type { KeptSums, LegPart } from './optionSums.js'
import type { Counter, CounterSource } from './state.js'

export interface Position {
  readonly userId: string
  readonly marketId: string
  /** The market of marketId, linked so that the margin looks up nothing (not persisted). */
  readonly market: MarketRuntime
  marginMode: MarginMode
  /** Signed lots: positive long, negative short (spot: never negative). */
  lots: number
  /** Micro-USDC paid for the open lots (always ≥ 0); average price = cost / |lots|. */
  cost: bigint
  /** Options: Σ price × lots of the open lots in tick·lots, for the average price in underlying units
   * (cost is the USDC premium, converted at each fill's index). 0 for linear positions. */
  openTickLots: bigint
  /** Cumulative realized PnL, micro-USDC. */
  realized: bigint
  /** Cumulative funding received (negative: paid), micro-USDC. */
  funding: bigint
  /** Isolated positions: the margin set aside for this position alone, micro-USDC (cross: 0). */
  isolatedMargin: bigint
  updatedAt: number
  /** Epoch of the last batch that listed it as changed (Changes.addPosition; not persisted). */
  changedIn: number
}

/**
 * One option market the options bucket prices for an account: its position there while not flat, its
 * open orders' exposure while it has some (the entry goes when both are gone), and what it last added
 * to the account's kept sums (optionSums.ts).
 */
export interface OptionLeg {
  readonly market: MarketRuntime
  position: Position | null
  exposure: OrderExposure | null
  part: LegPart | null
  /** Its index in Account.optionLegList. */
  slot: number
}

/** What an account's open cross orders in one market could add to its position. */
export interface OrderExposure {
  /** The market, linked as in Position. */
  readonly market: MarketRuntime
  buyLots: number
  sellLots: number
  /** Σ price × lots of those orders, in tick·lots. */
  buyTickLots: bigint
  sellTickLots: bigint
  /** Counts its changes (reservations.ts), so that what was priced from it is known current without
   * comparing its bigints (optionSums.ts). */
  changes: number
}

export class Account {
  readonly userId: string
  readonly balances = new Map<Bucket, bigint>()
  readonly positions = new Map<string, Position>()
  /** The positions of linear derivative markets (never removed, as positions are not): what the portfolio
   * margin walks on every order, without the option and spot positions beside them. */
  readonly linearPositions: Position[] = []
  /** clientOrderId → order id, for every order the account ever placed with one. */
  readonly clientOrderIds = new Map<string, string>()
  /** Micro-USDC of the spot bucket reserved by open spot buys. */
  spotLocked = 0n
  /** Base lots reserved by open spot sells, per spot market. */
  readonly baseLocked = new Map<string, number>()
  /** Open cross orders per linear derivative market, for the portfolio margin (positions + open orders);
   * an option market's are on its leg (optionLegs). */
  readonly exposure = new Map<string, OrderExposure>()
  /** Initial margin reserved by open isolated orders, micro-USDC. */
  isolatedOrderMargin = 0n
  /** Open orders per market (all of one margin mode within a linear market), in no particular order:
   * the account's only index of its open orders. Each order knows its slot, so listing and unlisting
   * are O(1) with no hashing (trackOpen). */
  readonly marketOrders = new Map<string, Order[]>()
  /** How many of those are reduce-only: a fill looks for reduce-only orders to trim only when some are. */
  reduceOnlyOpen = 0
  /** Positions not flat in derivative markets (EngineState.trackHolding). */
  derivativePositions = 0
  /** Of those, option positions (EngineState.trackHolding). */
  optionPositions = 0
  /** Option markets with a position or open orders, by market id: what the options bucket prices; and
   * the same legs as a list, walked on every option command (no iterator to allocate). */
  readonly optionLegs = new Map<string, OptionLeg>()
  readonly optionLegList: OptionLeg[] = []
  /** The options bucket's sums over those legs, kept leg by leg (optionSums.ts); null: add them up again. */
  optionSums: KeptSums | null = null
  /** On chain, micro-USDC: deposits credited, withdrawals completed, and withdrawals accepted but not yet
   * final (derived from EngineState.withdrawals). Only deposited − withdrawn − withdrawing may leave. */
  deposited = 0n
  withdrawn = 0n
  withdrawing = 0n
  /** Faucet grants of the rolling day: [engine time, micro-USDC]. */
  faucetGrants: Array<[number, bigint]> = []
  /** Dead man's switch: cancel every open order at this engine time (null: disarmed). */
  cancelAllAt: number | null = null
  /** The options bucket's locked part as last computed (optionMargin.optionsLocked), and whether
   * anything it depends on changed since: the options balance, an option order or position, a mark of
   * its options (ledger.ts, Engine.touchBalances). Derived, never serialized. */
  optionsLocked = 0n
  optionsStale = true
  /** Epoch of the last batch that listed its balances as changed (Changes.addBalances). */
  balancesChangedIn = 0

  /** This account's private event streams. */
  readonly streams: { readonly orders: Counter; readonly fills: Counter; readonly balances: Counter }

  constructor(userId: string, counters: CounterSource) {
    this.userId = userId
    this.streams = {
      orders: counters.counter(streams.orders(userId)),
      fills: counters.counter(streams.fills(userId)),
      balances: counters.counter(streams.balances(userId)),
    }
  }

  balance(bucket: Bucket): bigint {
    return this.balances.get(bucket) ?? 0n
  }

  /** Adds a new position (every position is created through here). */
  addPosition(p: Position): void {
    this.positions.set(p.marketId, p)
    if (p.market.linear && p.market.spec.type !== 'spot') this.linearPositions.push(p)
  }

  /** The option leg of `market`, created empty when first needed. */
  optionLeg(market: MarketRuntime): OptionLeg {
    let leg = this.optionLegs.get(market.spec.id)
    if (!leg) {
      this.optionLegs.set(market.spec.id, (leg = { market, position: null, exposure: null, part: null, slot: this.optionLegList.length }))
      this.optionLegList.push(leg)
    }
    return leg
  }

  /** Drops the leg of `marketId` once it holds nothing (the kept sums, which count its last part, go too). */
  pruneOptionLeg(marketId: string): void {
    const leg = this.optionLegs.get(marketId)
    if (!leg || leg.position !== null || leg.exposure !== null) return
    this.optionLegs.delete(marketId)
    const last = this.optionLegList.pop()!
    if (last !== leg) {
      this.optionLegList[leg.slot] = last
      last.slot = leg.slot
    }
    if (leg.part) this.optionSums = null
  }

  /** Spot holding in lots of a spot market (its long position). */
  holding(marketId: string): number {
    return this.positions.get(marketId)?.lots ?? 0
  }
}
