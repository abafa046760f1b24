// The engine state as one canonical JSON value: what the runner saves to Redis, what recovery loads,
// and what stateHash() digests. Canonical means sorted collections and fixed key order, so two engines
// with the same state produce the same bytes whichever way they got there (replay or rebuild).
// Derived values (books, reservation totals, mark ticks) are not stored; restore() recomputes them.
import { createHash } from 'node:crypto'
import type { Bucket } from '../domain/buckets.js'
import { canonicalSpec, type MarketSpec, type MarketStatus } from '../domain/market.js'
import type { MarginMode, OrderSide, OrderStatus, OrderType, TimeInForce } from '../domain/orders.js'
import type { Account, Position } from './account.js'
import { BUY, SELL } from './book/types.js'
import { setDerived } from './handlers/marks.js'
import { MarketRuntime } from './marketRuntime.js'
import type { PerpState } from './perpetual.js'
import type { TwapState } from './expiry.js'
import { isWaiting, remainingLots, type Order } from './order.js'
import { reserve, trackOpen } from './reservations.js'
import { EngineState, type Mark } from './state.js'
import { waitingIn } from './triggers.js'
import { mmpSnapshot, restoreMmp, type MmpSnapshot } from './mmp.js'

export const SNAPSHOT_VERSION = 6

/** A market's running engine state beyond its book (stored in markets.engineState too). */
export interface MarketEngineState {
  perp?: PerpState
  twap?: TwapState
}

/** Keys in one fixed order: PostgreSQL's jsonb reorders them, and the snapshot must stay canonical. */
const perpState = (p: PerpState): PerpState => ({
  premiumEma: p.premiumEma,
  periodEnd: p.periodEnd,
  accum: p.accum,
  accumTo: p.accumTo,
  current: p.current,
})

const twapState = (t: TwapState): TwapState => ({ sum: t.sum, ms: t.ms, at: t.at, ticks: t.ticks })

export function marketEngineState(m: MarketRuntime): MarketEngineState {
  const s: MarketEngineState = {}
  if (m.perp) s.perp = perpState(m.perp)
  if (m.twap) s.twap = twapState(m.twap)
  return s
}

export function restoreMarketEngineState(m: MarketRuntime, s: MarketEngineState | undefined): void {
  if (s?.perp) m.perp = perpState(s.perp)
  if (s?.twap) m.twap = twapState(s.twap)
}

export interface PositionSnapshot {
  marketId: string
  marginMode: MarginMode
  lots: number
  cost: string
  openTickLots: string
  realized: string
  funding: string
  isolatedMargin: string
  updatedAt: number
}

export interface AccountSnapshot {
  userId: string
  balances: Array<[Bucket, string]>
  positions: PositionSnapshot[]
  clientOrderIds: Array<[string, string]>
  faucetGrants: Array<[number, string]>
  cancelAllAt: number | null
  /** On chain, micro-USDC: deposits credited and withdrawals completed (Account.deposited, withdrawn). */
  deposited: string
  withdrawn: string
}

export interface WithdrawalSnapshot {
  id: string
  userId: string
  amount: string
  toAddress: string
  createdAt: number
}

/** An open order as persisted: the Order without what restoring derives again (its reservation and exposure). */
export type OrderSnapshot = Omit<Order, 'account' | 'reserved' | 'heldLots' | 'heldPrice' | 'openSlot' | 'changedIn'>

export interface EngineSnapshot {
  version: number
  now: number
  counters: Array<[string, number]>
  markets: Array<{ spec: MarketSpec; status: MarketStatus; bookSeq: number; settledAtMs: number | null; settlementPrice: string | null; engineState: MarketEngineState }>
  marks: Mark[]
  accounts: AccountSnapshot[]
  /** Open orders in time priority. */
  orders: OrderSnapshot[]
  /** Market-maker protection, configured or tripped, by user then underlying. */
  mmp: MmpSnapshot[]
  /** Keys of the deposits credited (depositKey), sorted. */
  deposits: string[]
  /** Withdrawals accepted and not yet final, by id. */
  withdrawals: WithdrawalSnapshot[]
}

const byKey = <T>(key: (t: T) => string) => (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)
const nonZero = (v: bigint) => v !== 0n

const DAY_MS = 86_400_000

/** Faucet grants older than a day no longer count toward the cap and are left out. */
export function accountSnapshot(a: Account, now: number): AccountSnapshot {
  return {
    userId: a.userId,
    balances: [...a.balances.entries()].filter(([, v]) => nonZero(v)).map(([b, v]): [Bucket, string] => [b, v.toString()]).sort(byKey(([b]) => b)),
    positions: [...a.positions.values()]
      .map((p) => ({
        marketId: p.marketId, marginMode: p.marginMode, lots: p.lots, cost: p.cost.toString(), openTickLots: p.openTickLots.toString(), realized: p.realized.toString(),
        funding: p.funding.toString(), isolatedMargin: p.isolatedMargin.toString(), updatedAt: p.updatedAt,
      }))
      .sort(byKey((p) => p.marketId)),
    clientOrderIds: [...a.clientOrderIds.entries()].sort(byKey(([c]) => c)),
    faucetGrants: a.faucetGrants.filter(([t]) => t > now - DAY_MS).map(([t, m]): [number, string] => [t, m.toString()]),
    cancelAllAt: a.cancelAllAt,
    deposited: a.deposited.toString(),
    withdrawn: a.withdrawn.toString(),
  }
}

export function orderSnapshot(o: Order): OrderSnapshot {
  return {
    id: o.id, userId: o.userId, marketId: o.marketId, clientOrderId: o.clientOrderId, side: o.side, type: o.type,
    timeInForce: o.timeInForce, priceTicks: o.priceTicks, lots: o.lots, filledLots: o.filledLots, status: o.status,
    postOnly: o.postOnly, reduceOnly: o.reduceOnly, marginMode: o.marginMode, stopTicks: o.stopTicks,
    takeProfitTicks: o.takeProfitTicks, stopLossTicks: o.stopLossTicks, triggeredAt: o.triggeredAt,
    parentOrderId: o.parentOrderId, quoteId: o.quoteId, mmp: o.mmp, cancelReason: o.cancelReason, seq: o.seq,
    createdAt: o.createdAt, updatedAt: o.updatedAt,
  }
}

export function takeSnapshot(state: EngineState): EngineSnapshot {
  return {
    version: SNAPSHOT_VERSION,
    now: state.now,
    counters: state.counterEntries().sort(byKey(([k]) => k)),
    markets: [...state.markets.values()]
      .map((m) => ({ spec: canonicalSpec(m.spec), status: m.status, bookSeq: m.bookSeq, settledAtMs: m.settledAtMs, settlementPrice: m.settlementPrice, engineState: marketEngineState(m) }))
      .sort(byKey((m) => m.spec.id)),
    marks: [...state.marks.values()]
      .map((m) => ({ marketId: m.marketId, price: m.price, indexPrice: m.indexPrice, source: m.source, sourceTs: m.sourceTs, engineTs: m.engineTs }))
      .sort(byKey((m) => m.marketId)),
    accounts: [...state.accounts.values()].map((a) => accountSnapshot(a, state.now)).sort(byKey((a) => a.userId)),
    orders: [...state.orders.values()].sort((a, b) => a.seq - b.seq).map(orderSnapshot),
    mmp: [...state.mmp.values()].map(mmpSnapshot).sort(byKey((m) => `${m.userId}|${m.underlying}`)),
    deposits: [...state.creditedDeposits].sort(),
    withdrawals: [...state.withdrawals.values()]
      .map((w) => ({ id: w.id, userId: w.userId, amount: w.amount.toString(), toAddress: w.toAddress, createdAt: w.createdAt }))
      .sort(byKey((w) => w.id)),
  }
}

/** Rebuilds the live state, derived parts included, from a snapshot (or from rows shaped like one). */
export function restoreSnapshot(snap: EngineSnapshot): EngineState {
  if (snap.version !== SNAPSHOT_VERSION) throw new Error(`snapshot version ${snap.version} is not ${SNAPSHOT_VERSION}`)
  const state = new EngineState()
  state.now = snap.now
  for (const [k, v] of snap.counters) state.restoreCounter(k, v)
  for (const m of snap.markets) {
    const market = new MarketRuntime(canonicalSpec(m.spec), state, m.status, m.bookSeq)
    market.settledAtMs = m.settledAtMs
    market.settlementPrice = m.settlementPrice
    restoreMarketEngineState(market, m.engineState)
    state.markets.set(m.spec.id, market)
  }
  for (const mark of snap.marks) {
    state.marks.set(mark.marketId, { ...mark })
    setDerived(state, state.markets.get(mark.marketId)!, mark.price)
  }
  for (const a of snap.accounts) {
    const account = state.account(a.userId)
    for (const [bucket, v] of a.balances) account.balances.set(bucket, BigInt(v))
    for (const p of a.positions) {
      const market = state.markets.get(p.marketId)!
      const position: Position = {
        ...p, userId: a.userId, market, cost: BigInt(p.cost), openTickLots: BigInt(p.openTickLots), realized: BigInt(p.realized), funding: BigInt(p.funding), isolatedMargin: BigInt(p.isolatedMargin), changedIn: 0,
      }
      account.addPosition(position)
      if (market.spec.type !== 'spot') state.trackHolding(account, 0, p.lots, market.spec.type === 'option' ? position : null)
    }
    for (const [cid, id] of a.clientOrderIds) account.clientOrderIds.set(cid, id)
    account.faucetGrants = a.faucetGrants.map(([t, m]) => [t, BigInt(m)])
    account.cancelAllAt = a.cancelAllAt
    account.deposited = BigInt(a.deposited)
    account.withdrawn = BigInt(a.withdrawn)
    if (a.cancelAllAt !== null) state.armed.add(a.userId)
  }
  for (const o of [...snap.orders].sort((x, y) => x.seq - y.seq)) {
    const account = state.account(o.userId)
    const order: Order = { ...o, account, reserved: 0n, heldLots: 0, heldPrice: 0, openSlot: -1, changedIn: 0 }
    const market = state.markets.get(o.marketId)!
    if (isWaiting(order)) waitingIn(state, o.marketId).add(order)
    else market.book.add({ id: o.id, owner: o.userId, side: o.side === 'buy' ? BUY : SELL, price: o.priceTicks!, remaining: remainingLots(order), seq: o.seq })
    state.orders.set(order)
    trackOpen(account, order, true)
    reserve(account, market, order)
  }
  for (const m of snap.mmp) restoreMmp(state, m)
  for (const key of snap.deposits) state.creditedDeposits.add(key)
  for (const w of snap.withdrawals) {
    state.withdrawals.set(w.id, { ...w, amount: BigInt(w.amount) })
    state.account(w.userId).withdrawing += BigInt(w.amount)
  }
  // Restoring touches no book on purpose: drain what the re-adds recorded.
  for (const m of state.markets.values()) m.book.drainChanges()
  return state
}

export function serializeSnapshot(state: EngineState): string {
  return JSON.stringify(takeSnapshot(state))
}

/** SHA-256 hex of the canonical snapshot: equal exactly when the states are equal. */
export function stateHash(state: EngineState): string {
  return createHash('sha256').update(serializeSnapshot(state)).digest('hex')
}
