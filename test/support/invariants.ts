// Invariants of the engine's state and of what each batch wrote, checked after every batch by the
// randomized tests. Each failure names the broken rule.
import { expect } from 'vitest'
import { familyCatalog } from '../../src/config/catalog.js'
import { D, microToString } from '../../src/domain/decimal.js'
import { fnv1a } from '../../src/domain/fnv1a.js'
import { mulberry32 } from '../../src/domain/prng.js'
import type { Account, OrderExposure } from '../../src/engine/account.js'
import { BUY, SELL } from '../../src/engine/book/types.js'
import type { Changes } from '../../src/engine/changes.js'
import { checkOrderMargin, crossMargin, orderMarginImpact, type WhatIf } from '../../src/engine/margin.js'
import type { MarketRuntime } from '../../src/engine/marketRuntime.js'
import { isWaiting, remainingLots } from '../../src/engine/order.js'
import { checkOptionOrders, optionsBucket, optionsLocked } from '../../src/engine/optionMargin.js'
import type { CommandEnvelope, Reply } from '../../src/engine/commands.js'
import type { Engine } from '../../src/engine/engine.js'
import { isFrozen, mmpSnapshot, MMP_MAX_FROZEN_MS, MMP_MAX_INTERVAL_MS } from '../../src/engine/mmp.js'
import type { EngineState } from '../../src/engine/state.js'
import { isolatedMargin, referenceCrossMargin, type HypotheticalOrder } from './referenceMargin.js'
import { referenceOptionMargin, referenceOptionValuation } from './referenceOptionMargin.js'

/** Running totals across batches, to compare the state against what was written. */
const SYSTEM_ID = '00000000000000000000000000'

export class Ledgers {
  readonly ledger = new Map<string, bigint>()
  /** What the ledger says came in from outside (faucet, genesis, deposits: credited to users) and went
   * out (completed withdrawals: paid from the system's withdrawals bucket to the outside world). */
  broughtIn = 0n
  paidOut = 0n
  /** Deposits credited, withdrawals completed and failed (refunded), as the ledger and outcomes say. */
  readonly chain = { deposits: 0, withdrawalsCompleted: 0, withdrawalsFailed: 0 }
  /** Signed lots per user and market from fills (and genesis grants). */
  readonly lots = new Map<string, number>()
  fills = 0
  /** Σ fees the fill rows say were charged. */
  fees = 0n
  funding = 0
  liquidations = 0
  settlements = 0
  /** What the cross-margin comparison met across batches, so that a test can show it covered each case:
   * accounts compared, of which with open cross orders, with several families, earning a correlation
   * credit; hypothetical orders the margin refused and accepted. */
  readonly margin = { accounts: 0, withOrders: 0, multiFamily: 0, credited: 0, refused: 0, accepted: 0 }
  /** The same for the options bucket: accounts compared, holding a long, a short, open sells, open buys,
   * with a requirement, with nothing available; hypothetical option orders refused (by code) and accepted. */
  readonly options = { accounts: 0, long: 0, short: 0, withSells: 0, withBuys: 0, requirement: 0, exhausted: 0, refusedBuy: 0, refusedSell: 0, accepted: 0 }
  /** Option fills seen, and of them fees at the 12.5% premium cap. */
  optionFills = 0
  cappedFees = 0
  optionSettlements = 0
  /** Per user, the options figures of its last balance event: what a client following the stream shows. */
  readonly lastBalance = new Map<string, { options: string; optionsLocked: string }>()
  optionLiquidations = 0
  /** Market-maker protection: trips seen, of them on the net delta, and the orders they cancelled. */
  readonly mmp = { trips: 0, byDelta: 0, canceled: 0 }
  /** Each protection state as it was at the end of the last batch, to tell which ones a batch changed. */
  private readonly mmpBefore = new Map<string, string>()

  constructor(private readonly state: EngineState) {}

  absorb(c: Changes): void {
    for (const l of c.ledger) {
      const k = `${l.userId}|${l.bucket}`
      this.ledger.set(k, (this.ledger.get(k) ?? 0n) + l.amount)
      expect(l.balanceAfter, 'ledger balanceAfter is the running balance').toBe(this.ledger.get(k))
      const system = l.userId === SYSTEM_ID
      if (!system && (l.kind === 'faucet' || l.kind === 'genesis' || l.kind === 'deposit')) this.broughtIn += l.amount
      if (l.kind === 'deposit' && !system) this.chain.deposits++
      if (system && l.bucket === 'external' && l.kind === 'withdrawal') {
        this.paidOut += l.amount
        this.chain.withdrawalsCompleted++
      }
      if (!system && l.kind === 'withdrawal' && l.amount > 0n) this.chain.withdrawalsFailed++
    }
    for (const e of c.events) {
      if (e.eventType !== 'BalanceUpdate') continue
      const b = JSON.parse(JSON.stringify(e.payload)) as { options: string; optionsLocked: string }
      this.lastBalance.set(e.stream.slice('balances:'.length), { options: b.options, optionsLocked: b.optionsLocked })
    }
    this.funding += c.funding.length
    for (const e of c.positionEvents) {
      if (e.kind === 'liquidation') this.liquidations++
      else this.settlements++
      if (this.state.markets.get(e.marketId)!.spec.type === 'option') {
        if (e.kind === 'settlement') this.optionSettlements++
        else this.optionLiquidations++
      }
      // The position an event closed is what the fills and settlements say: settlements move lots too.
      if (e.kind === 'settlement') {
        const k = `${e.userId}|${e.marketId}`
        this.lots.set(k, (this.lots.get(k) ?? 0) - e.lots)
      }
    }
    // A trip cancelled, in its batch, each order it names, for `mmp`; only protected orders end for `mmp`.
    const listed = new Map(c.orders.map((o) => [o.id, o]))
    for (const e of c.events) {
      if (e.eventType !== 'MmpTriggered') continue
      const { canceledIds: ids, reason } = e.payload as { canceledIds: string[]; reason: string }
      for (const id of ids) expect(listed.get(id), `${e.stream}: MmpTriggered names ${id}, cancelled in its batch for mmp`).toMatchObject({ status: 'canceled', cancelReason: 'mmp', mmp: true })
      this.mmp.trips++
      if (reason === 'delta') this.mmp.byDelta++
      this.mmp.canceled += ids.length
    }
    for (const o of c.orders) if (o.cancelReason === 'mmp') expect(o.mmp, `order ${o.id} cancelled for mmp is protected`).toBe(true)
    // Every protection state that changed (or left the engine) is listed, so that its row is written.
    const written = new Set(c.mmp.map((m) => `${m.userId}|${m.underlying}`))
    for (const [k, m] of this.state.mmp) {
      const now = JSON.stringify(mmpSnapshot(m))
      if (this.mmpBefore.get(k) !== now) expect(written.has(k), `mmp ${k} changed and is listed in the batch`).toBe(true)
    }
    for (const k of this.mmpBefore.keys()) if (!this.state.mmp.has(k)) expect(written.has(k), `mmp ${k} left the engine and is listed in the batch`).toBe(true)
    this.mmpBefore.clear()
    for (const [k, m] of this.state.mmp) this.mmpBefore.set(k, JSON.stringify(mmpSnapshot(m)))

    const byMatch = new Map<string, typeof c.fills>()
    for (const f of c.fills) {
      byMatch.set(f.matchId, [...(byMatch.get(f.matchId) ?? []), f])
      const k = `${f.userId}|${f.marketId}`
      this.lots.set(k, (this.lots.get(k) ?? 0) + (f.side === 'buy' ? f.lots : -f.lots))
      this.fills++
      const m = this.state.markets.get(f.marketId)!
      const bps = BigInt(Math.round(Number(f.feeBps) * 100))
      if (m.spec.type === 'option') {
        // The premium: price × quantity × the spot index at the fill, rounded half up once; the fee: the
        // bps of quantity × index, rounded up, capped at 12.5% of the premium (rounded up).
        expect(f.premium !== null && f.indexTicks !== null, `option fill ${f.id} carries its premium and index`).toBe(true)
        const spotTick = D(familyCatalog(m.spec.family)!.spot.tickSize)
        const index = D(f.indexTicks!).mul(spotTick)
        const quantity = D(f.lots).mul(m.spec.stepSize)
        const premium = D(f.priceTicks).mul(m.spec.tickSize).mul(quantity).mul(index).mul(1_000_000)
        expect(f.premium, `premium of fill ${f.id}`).toBe(BigInt(premium.toDecimalPlaces(0, D.ROUND_HALF_UP).toFixed(0)))
        const onNotional = BigInt(quantity.mul(index).mul(f.feeBps).div(10_000).mul(1_000_000).ceil().toFixed(0))
        const cap = BigInt(D(f.premium!.toString()).mul('0.125').ceil().toFixed(0))
        expect(f.fee, `fee of option fill ${f.id}`).toBe(onNotional < cap ? onNotional : cap)
        this.optionFills++
        if (cap < onNotional) this.cappedFees++
      } else {
        // The fee, recomputed from the market's bps: ceil(notional × bps / 10,000).
        const notional = BigInt(f.priceTicks) * BigInt(f.lots) * m.microPerTickLot
        expect(f.fee, `fee of fill ${f.id}`).toBe((notional * bps + 999_999n) / 1_000_000n)
        expect([f.premium, f.indexTicks], `linear fill ${f.id} has no premium`).toEqual([null, null])
      }
      expect(f.feeBps).toBe(f.role === 'taker' ? m.spec.takerFeeBps : m.spec.makerFeeBps)
      this.fees += f.fee
    }
    for (const [matchId, pair] of byMatch) {
      expect(pair, `match ${matchId} has a fill on each side`).toHaveLength(2)
      const [a, b] = pair
      expect([a!.side, b!.side].sort(), `match ${matchId} is a buy against a sell`).toEqual(['buy', 'sell'])
      expect([a!.role, b!.role].sort(), `match ${matchId} is a taker against a maker`).toEqual(['maker', 'taker'])
      expect([a!.priceTicks, a!.lots], `match ${matchId} sides agree`).toEqual([b!.priceTicks, b!.lots])
      expect(a!.userId, `match ${matchId} is not a self-trade`).not.toBe(b!.userId)
    }
  }

  grant(userId: string, marketId: string, lots: number): void {
    const k = `${userId}|${marketId}`
    this.lots.set(k, (this.lots.get(k) ?? 0) + lots)
  }
}

export function checkInvariants(state: EngineState, totals: Ledgers): void {
  // The index liquidation checks: exactly the accounts holding a derivative position, each counting them.
  const holders = new Set<string>()
  for (const a of state.accounts.values()) {
    const held = [...a.positions.values()].filter((p) => p.lots !== 0 && p.market.spec.type !== 'spot').length
    expect(a.derivativePositions, `${a.userId} counts its derivative positions`).toBe(held)
    if (held > 0) holders.add(a.userId)
  }
  expect(new Set([...state.holders].map((a) => a.userId)), 'holders index').toEqual(holders)

  // Books: internally consistent, never crossed, and exactly the open orders; settled markets are empty.
  let booked = 0
  for (const m of state.markets.values()) {
    if (m.status === 'settled') {
      expect(m.book.size, `settled ${m.spec.id} has no orders`).toBe(0)
      for (const a of state.accounts.values()) expect(a.positions.get(m.spec.id)?.lots ?? 0, `no position left in settled ${m.spec.id}`).toBe(0)
    }
    m.book.validateInternalState()
    const bid = m.book.bestBid()
    const ask = m.book.bestAsk()
    if (bid !== undefined && ask !== undefined) expect(bid, `${m.spec.id} book is not crossed`).toBeLessThan(ask)
    booked += m.book.size
  }
  const waiting = [...state.orders.values()].filter(isWaiting)
  expect(booked, 'every resting order is an open order').toBe(state.orders.size - waiting.length)
  expect(new Set(waiting), 'the waiting index holds exactly the waiting orders').toEqual(new Set([...state.waiting.values()].flatMap((s) => [...s])))
  for (const o of state.orders.values()) {
    expect(o.status).toBe('open')
    if (isWaiting(o)) {
      expect(state.markets.get(o.marketId)!.book.get(o.id), `waiting order ${o.id} is not in the book`).toBeUndefined()
      continue
    }
    const b = state.markets.get(o.marketId)!.book.get(o.id)
    expect(b, `open order ${o.id} rests in its book`).toBeDefined()
    expect([b!.remaining, b!.price, b!.side, b!.seq]).toEqual([remainingLots(o), o.priceTicks, o.side === 'buy' ? BUY : SELL, o.seq])
  }

  checkMmp(state)

  // Money: double entry sums to zero; every balance equals its ledger.
  let sum = 0n
  for (const a of state.accounts.values()) {
    for (const [bucket, v] of a.balances) {
      sum += v
      expect(v, `${a.userId}.${bucket} equals the sum of its ledger rows`).toBe(totals.ledger.get(`${a.userId}|${bucket}`) ?? 0n)
      if (bucket === 'wallet' || bucket === 'spot' || bucket === 'options') expect(v >= 0n, `${a.userId}.${bucket} is not negative`).toBe(true)
    }
  }
  expect(sum, 'all balances together sum to zero (deposits are the external account\'s debt)').toBe(0n)
  const system = state.accounts.get('00000000000000000000000000')
  expect(system?.balance('fees') ?? 0n, 'fees collected equal the fees the fills charged').toBe(totals.fees)

  // Money on chain: what pending withdrawals hold sits in the system's withdrawals bucket; only what came
  // in on chain may leave; and all buckets + fees + insurance (+ clearing) = faucet + genesis + deposits −
  // completed withdrawals − pending ones, from the ledger's own rows.
  let pending = 0n
  for (const w of state.withdrawals.values()) pending += w.amount
  expect(system?.balance('withdrawals') ?? 0n, 'the withdrawals bucket holds exactly the pending withdrawals').toBe(pending)
  let withdrawing = 0n
  let inside = 0n
  for (const a of state.accounts.values()) {
    withdrawing += a.withdrawing
    if (a.userId === SYSTEM_ID) continue
    expect(a.deposited - a.withdrawn - a.withdrawing >= 0n, `${a.userId}: nothing leaves on chain that did not come in on chain`).toBe(true)
    for (const v of a.balances.values()) inside += v
  }
  expect(withdrawing, 'accounts count their pending withdrawals').toBe(pending)
  inside += (system?.balance('fees') ?? 0n) + (system?.balance('insurance') ?? 0n) + (system?.balance('clearing') ?? 0n)
  expect(inside, 'all buckets + fees + insurance = faucet + genesis + deposits − completed − pending withdrawals').toBe(totals.broughtIn - totals.paidOut - pending)
  let realized = 0n
  for (const a of state.accounts.values()) {
    for (const p of a.positions.values()) if (p.market.linear && p.market.spec.type !== 'spot') realized += p.realized + p.funding
  }
  // (An option position's realized PnL is bookkeeping: its premiums moved between the traders, and its
  // settlement, though paid through clearing, nets to nothing there: every long lot has a short one and
  // a lot's payout on a settlement price on the tick is a whole micro-USDC.)
  expect(system?.balance('clearing') ?? 0n, 'the clearing account is minus all realized PnL and funding of linear derivatives').toBe(-realized)

  // Positions are the sum of fills; reservations are the sum of what open orders hold.
  for (const a of state.accounts.values()) {
    for (const p of a.positions.values()) {
      expect(p.lots, `${a.userId} position in ${p.marketId} equals its fills`).toBe(totals.lots.get(`${a.userId}|${p.marketId}`) ?? 0)
      if (p.lots === 0) expect([p.cost, p.isolatedMargin], 'a flat position has no cost and holds no margin').toEqual([0n, 0n])
      if (p.marginMode === 'cross') expect(p.isolatedMargin, 'a cross position holds no isolated margin').toBe(0n)
      expect(p.isolatedMargin >= 0n).toBe(true)
    }
    let spotLocked = 0n
    let isolatedOrderMargin = 0n
    const base = new Map<string, number>()
    const exposure = new Map<string, Omit<OrderExposure, 'changes'>>()
    const mine = [...state.orders.values()].filter((o) => o.userId === a.userId)
    const indexed = [...a.marketOrders.values()].flatMap((orders) => [...orders])
    expect(indexed.length, `${a.userId} per-market order index size`).toBe(mine.length)
    for (const o of indexed) expect(state.orders.get(o.id), `${a.userId} indexes the live order ${o.id}`).toBe(o)
    expect(a.reduceOnlyOpen, `${a.userId} counts its open reduce-only orders`).toBe(mine.filter((o) => o.reduceOnly).length)
    // No resting reduce-only order could fill beyond what it would close: admitted against the position,
    // trimmed whenever the position moves (together they may exceed it until the first fill).
    for (const [marketId, orders] of a.marketOrders) {
      const held = a.positions.get(marketId)?.lots ?? 0
      for (const o of orders) {
        if (!o.reduceOnly || isWaiting(o)) continue
        const closes = o.side === 'sell' ? Math.max(0, held) : Math.max(0, -held)
        expect(o.lots - o.filledLots, `${a.userId} ${marketId}: reduce-only ${o.side} ${o.id} within the position ${held}`).toBeLessThanOrEqual(closes)
      }
    }
    for (const [marketId, orders] of a.marketOrders) {
      expect(orders.length, `${a.userId} ${marketId}: no empty index entry`).toBeGreaterThan(0)
      orders.forEach((o, slot) => {
        expect(o.userId, `${a.userId} indexes only its own order ${o.id}`).toBe(a.userId)
        expect(o.marketId, `${a.userId} order ${o.id} indexed under its market`).toBe(marketId)
        expect(o.openSlot, `${a.userId} order ${o.id} knows its slot`).toBe(slot)
      })
    }
    for (const o of mine) {
      const m = state.markets.get(o.marketId)!
      if (m.spec.type === 'spot') {
        if (o.side === 'buy') spotLocked += o.reserved
        else base.set(o.marketId, (base.get(o.marketId) ?? 0) + Number(o.reserved))
      } else if (o.marginMode === 'isolated') isolatedOrderMargin += o.reserved
      // Open orders count in the exposure, but reduce-only ones, which only close, and conditional ones
      // still waiting; a reduce-only option buy counts, as it pays its premium.
      else if ((!o.reduceOnly || (m.spec.type === 'option' && o.side === 'buy')) && !isWaiting(o)) {
        const e = exposure.get(o.marketId) ?? { market: m, buyLots: 0, sellLots: 0, buyTickLots: 0n, sellTickLots: 0n }
        const rem = o.lots - o.filledLots
        if (o.side === 'buy') (e.buyLots += rem), (e.buyTickLots += BigInt(rem) * BigInt(o.priceTicks!))
        else (e.sellLots += rem), (e.sellTickLots += BigInt(rem) * BigInt(o.priceTicks!))
        exposure.set(o.marketId, e)
      }
    }
    expect(a.spotLocked, `${a.userId} spot reservation`).toBe(spotLocked)
    expect(a.isolatedOrderMargin, `${a.userId} isolated order margin`).toBe(isolatedOrderMargin)
    // Its holdings, not how often it changed: linear markets' in the account's map, option markets' on their legs.
    for (const e of a.exposure.values()) expect(e.market.linear, `${a.userId} exposure in ${e.market.spec.id} kept with the linear ones`).toBe(true)
    const legs = a.optionLegList.flatMap((leg) => (leg.exposure ? [[leg.market.spec.id, leg.exposure] as const] : []))
    const held = new Map([...a.exposure, ...legs].map(([id, { changes: _, ...e }]) => [id, e]))
    expect(held, `${a.userId} cross order exposure`).toEqual(exposure)
    for (const [id, lots] of a.baseLocked) {
      expect(lots, `${a.userId} base reserved in ${id}`).toBe(base.get(id) ?? 0)
      if (a.userId !== '00000000000000000000000000') expect(lots).toBeLessThanOrEqual(a.holding(id))
    }
    expect(a.spotLocked <= a.balance('spot') || a.userId === '00000000000000000000000000', `${a.userId} spot reservation is funded`).toBe(true)
  }

  checkCrossMargins(state, totals)
  checkOptionMargins(state, totals)
}

const figures = (m: { equity: bigint; im: bigint; mm: bigint; available: bigint }) => ({ equity: m.equity, im: m.im, mm: m.mm, available: m.available })
const described = (orders: readonly HypotheticalOrder[]) => orders.map((w) => `${w.side} ${w.lots} ${w.marketId} @${w.priceTicks}`).join(', ')

const userSeed = (userId: string, now: number): number => (fnv1a(userId) ^ now) >>> 0

/**
 * The engine's cross margin of every account with a perps balance or positions equals the reference's
 * (referenceMargin.ts), exactly: as it stands, and with orders it might place — one order (the margin
 * with it, its impact, the placement verdict, and the same order isolated) and a two-sided quote —
 * drawn from the account and the clock, so that a run is reproducible.
 */
function checkCrossMargins(state: EngineState, totals: Ledgers): void {
  const open: MarketRuntime[] = []
  for (const m of state.markets.values()) {
    if ((m.spec.type === 'perpetual' || m.spec.type === 'future') && m.status !== 'settled' && state.markTicks.has(m.spec.id)) open.push(m)
  }
  for (const a of state.accounts.values()) {
    if (a.balance('perps') === 0n && ![...a.positions.values()].some((p) => p.lots !== 0)) continue
    const ref = referenceCrossMargin(state, a)
    expect(figures(crossMargin(a)), `${a.userId}: crossMargin equals the reference margin`).toEqual(figures(ref))
    totals.margin.accounts++
    if (ref.crossOrders > 0) totals.margin.withOrders++
    if (ref.families > 1) totals.margin.multiFamily++
    if (ref.imCredit > 0n) totals.margin.credited++
    if (open.length === 0) continue

    const rng = mulberry32(userSeed(a.userId, state.now))
    const m = open[Math.floor(rng() * open.length)]!
    const mark = state.markTicks.get(m.spec.id)!.ticks
    const near = (spread: number) => Math.max(1, mark + Math.round(mark * spread))
    const lots = () => m.minLots * (1 + Math.floor(rng() * 2_000))
    const single: HypotheticalOrder[] = [{ marketId: m.spec.id, side: rng() < 0.5 ? 'buy' : 'sell', lots: lots(), priceTicks: near((rng() - 0.5) * 0.04) }]
    // Mostly below and above the mark, now and then crossing it.
    const quote: HypotheticalOrder[] = [
      { marketId: m.spec.id, side: 'buy', lots: lots(), priceTicks: near((rng() - 0.8) * 0.02) },
      { marketId: m.spec.id, side: 'sell', lots: lots(), priceTicks: near((rng() - 0.2) * 0.02) },
    ]
    for (const orders of [single, quote]) checkWhatIf(state, a, ref, orders, totals)

    // The same single order, isolated: its own initial margin against the cross available.
    const w = single[0]!
    const need = { im: isolatedMargin(m, w.priceTicks, w.lots, 'im'), mm: isolatedMargin(m, w.priceTicks, w.lots, 'mm') }
    const iso = orderMarginImpact(a, [{ ...w, market: m }], true)
    expect({ im: iso.im, mm: iso.mm, available: iso.available, refused: iso.refusal !== null }, `${a.userId}: isolated impact of ${described(single)} equals the reference`)
      .toEqual({ ...need, available: ref.available, refused: need.im > ref.available })
  }
}

/** With `orders` resting too: the margin, the orders' impact and the placement verdict all agree with
 * the reference's portfolio with and without them. */
function checkWhatIf(state: EngineState, a: Account, before: ReturnType<typeof referenceCrossMargin>, orders: HypotheticalOrder[], totals: Ledgers): void {
  const after = referenceCrossMargin(state, a, orders)
  const whatIf: WhatIf[] = orders.map((w) => ({ ...w, market: state.markets.get(w.marketId)! }))
  expect(figures(crossMargin(a, whatIf)), `${a.userId}: crossMargin with ${described(orders)} equals the reference margin`).toEqual(figures(after))
  // Refused when they raise the requirement beyond the equity; an order that lowers it always fits.
  const refused = after.im > before.im && after.im > after.equity
  const impact = orderMarginImpact(a, whatIf, false)
  expect({ im: impact.im, mm: impact.mm, available: impact.available, refused: impact.refusal !== null }, `${a.userId}: impact of ${described(orders)} equals the reference`)
    .toEqual({ im: after.im - before.im, mm: after.mm - before.mm, available: before.available, refused })
  let thrown: unknown = null
  try {
    checkOrderMargin(a, whatIf, false)
  } catch (err) {
    thrown = err
  }
  expect(thrown && (thrown as { code?: string }).code, `${a.userId}: placement verdict on ${described(orders)}`).toBe(refused ? 'INSUFFICIENT_MARGIN' : null)
  if (refused) totals.margin.refused++
  else totals.margin.accepted++
}

const optionFigures = (m: { cash: bigint; nov: bigint; im: bigint; mm: bigint; buyReserve: bigint; available: bigint; locked: bigint }) => ({
  cash: m.cash, nov: m.nov, im: m.im, mm: m.mm, buyReserve: m.buyReserve, available: m.available, locked: m.locked,
})

/**
 * The engine's options bucket (optionMargin.ts) of every account with an options balance, option
 * positions or open option orders equals the reference's (referenceOptionMargin.ts), exactly: cash,
 * NOV, IM, MM, buy reserve, available, locked, and the locked part balance events carry; so does the
 * bucket from the sums kept leg by leg (no MM). Then with one
 * hypothetical option order drawn from the account and the clock — a buy or a sell near the option's
 * value, on a market the account may or may not hold — the margin with it and the placement verdict.
 */
function checkOptionMargins(state: EngineState, totals: Ledgers): void {
  const open: MarketRuntime[] = []
  for (const m of state.markets.values()) {
    if (m.spec.type === 'option' && m.status === 'active' && state.now < m.spec.expiryMs! && referenceOptionValuation(state, m) !== null) open.push(m)
  }
  for (const a of state.accounts.values()) {
    const positions = [...a.positions.values()].filter((p) => p.lots !== 0 && p.market.spec.type === 'option')
    const orders = [...a.marketOrders.values()].flat().filter((o) => state.markets.get(o.marketId)!.spec.type === 'option')
    if (a.balance('options') === 0n && positions.length === 0 && orders.length === 0) continue
    const ref = referenceOptionMargin(state, a)
    expect(optionFigures(optionsBucket(state, a)), `${a.userId}: the options bucket equals the reference`).toEqual(optionFigures(ref))
    // Without the MM grid the bucket reads the sums kept leg by leg (optionSums.ts).
    expect(optionFigures(optionsBucket(state, a, [], false)), `${a.userId}: the options bucket from the kept sums`).toEqual(optionFigures({ ...ref, mm: 0n }))
    // Without positions or orders nothing is locked, whatever the marks; the balance stream's last event
    // says what is locked now (a client following it is never left with a stale figure), for holders of
    // option positions and of open option orders alike.
    const locked = positions.length + orders.length === 0 ? 0n : ref.locked
    expect(optionsLocked(state, a), `${a.userId}: the options locked part`).toBe(locked)
    const last = totals.lastBalance.get(a.userId)
    if (last) {
      expect(last, `${a.userId}: the last balance event's options figures`).toEqual({ options: microToString(ref.cash), optionsLocked: microToString(locked) })
    }
    totals.options.accounts++
    if (positions.some((p) => p.lots > 0)) totals.options.long++
    if (positions.some((p) => p.lots < 0)) totals.options.short++
    if (ref.withSells > 0) totals.options.withSells++
    if (ref.buyOrders > 0) totals.options.withBuys++
    if (ref.im > 0n) totals.options.requirement++
    if (ref.available <= 0n) totals.options.exhausted++
    if (open.length === 0) continue

    const rng = mulberry32(userSeed(a.userId, state.now) ^ 0x5bd1e995)
    const m = open[Math.floor(rng() * open.length)]!
    const v = referenceOptionValuation(state, m)!
    const theo = Math.round(v.value / Number(v.spot) / Number(m.spec.tickSize))
    const side = rng() < 0.5 ? 'buy' : 'sell'
    // Up to 20 BTC: large enough that some do not fit.
    const w: HypotheticalOrder = { marketId: m.spec.id, side, lots: 1 + Math.floor(rng() * 2_000), priceTicks: Math.max(1, theo + Math.round((rng() - 0.5) * 0.4 * theo)) }
    const after = referenceOptionMargin(state, a, [w])
    const whatIf = [{ ...w, market: m }]
    expect(optionFigures(optionsBucket(state, a, whatIf)), `${a.userId}: the options bucket with ${described([w])} equals the reference`).toEqual(optionFigures(after))
    expect(optionFigures(optionsBucket(state, a, whatIf, false)), `${a.userId}: the kept sums with ${described([w])}`).toEqual(optionFigures({ ...after, mm: 0n }))
    // Refused when it leaves less than nothing available and less than before; by the side's code.
    const refused = after.available < 0n && after.available < ref.available
    let thrown: unknown = null
    try {
      checkOptionOrders(state, a, whatIf)
    } catch (err) {
      thrown = err
    }
    expect(thrown && (thrown as { code?: string }).code, `${a.userId}: option placement verdict on ${described([w])}`).toBe(
      refused ? (side === 'buy' ? 'INSUFFICIENT_BALANCE' : 'INSUFFICIENT_MARGIN') : null,
    )
    if (!refused) totals.options.accepted++
    else if (side === 'buy') totals.options.refusedBuy++
    else totals.options.refusedSell++
  }
}

/**
 * Market-maker protection (mmp.ts): every state kept is configured or tripped; its sums are its window's;
 * the window runs forward in engine time and is empty when protection is off; no fill left a limit
 * exceeded without a trip (a trip clears the window); protected orders are option orders, and none is
 * open while its owner is frozen on its underlying.
 */
function checkMmp(state: EngineState): void {
  for (const [k, s] of state.mmp) {
    expect(k, 'mmp state keyed by its user and underlying').toBe(`${s.userId}|${s.underlying}`)
    expect(s.intervalMs > 0 || s.trippedAt !== null, `mmp ${k} is configured or tripped`).toBe(true)
    let quantity = 0
    let delta = 0
    let last = -Infinity
    for (const [t, q, d] of s.window) {
      expect(t >= last && t <= state.now, `mmp ${k}: window times run forward and are not ahead of the clock`).toBe(true)
      expect(q, `mmp ${k}: a fill's quantity is positive`).toBeGreaterThan(0)
      last = t
      quantity += q
      delta += d
    }
    expect([s.quantity, s.delta], `mmp ${k}: quantity and delta are the window's sums`).toEqual([quantity, delta])
    if (s.intervalMs === 0) expect([s.window.length, s.quantityLimit, s.deltaLimit], `mmp ${k}: off, nothing counted, no limits`).toEqual([0, 0, 0])
    if (s.quantityLimit > 0) expect(s.quantity, `mmp ${k}: the window's quantity within its limit`).toBeLessThanOrEqual(s.quantityLimit)
    if (s.deltaLimit > 0) expect(Math.abs(s.delta), `mmp ${k}: the window's net delta within its limit`).toBeLessThanOrEqual(s.deltaLimit)
    if (s.trippedAt === null) expect(s.frozenUntil, `mmp ${k}: no freeze without a trip`).toBeNull()
    else {
      expect(s.trippedAt, `mmp ${k}: tripped in the past`).toBeLessThanOrEqual(state.now)
      if (s.frozenUntil !== null) expect(s.frozenUntil - s.trippedAt, `mmp ${k}: frozen for a frozenMs`).toBeGreaterThan(0)
    }
    if (isFrozen(s, state.now)) expect(protectedOrders(state, s.userId, s.underlying), `mmp ${k} frozen: no protected order open`).toEqual([])
  }
  for (const o of state.orders.values()) if (o.mmp) expect(state.markets.get(o.marketId)!.linear, `protected order ${o.id} is on an option market`).toBe(false)
}

/** Ids of the user's open protected orders on the underlying's options. */
function protectedOrders(state: EngineState, userId: string, underlying: string): string[] {
  const ids: string[] = []
  for (const [marketId, orders] of state.accounts.get(userId)?.marketOrders ?? []) {
    const m = state.markets.get(marketId)!
    if (!m.linear && m.spec.family === underlying) for (const o of orders) if (o.mmp) ids.push(o.id)
  }
  return ids
}

/** SetMmpConfig's refusal as the spec's ranges give it (the generator's underlying has options listed). */
function mmpConfigRefusal(c: { intervalMs: number; frozenMs: number; quantityLimit: number; deltaLimit: number }): string | null {
  const count = (n: number, max: number) => Number.isSafeInteger(n) && n >= 0 && n <= max
  if (!count(c.intervalMs, MMP_MAX_INTERVAL_MS) || !count(c.frozenMs, MMP_MAX_FROZEN_MS)) return 'INVALID_REQUEST'
  if (!count(c.quantityLimit, Number.MAX_SAFE_INTEGER) || !count(c.deltaLimit, Number.MAX_SAFE_INTEGER)) return 'INVALID_REQUEST'
  return c.intervalMs > 0 && c.quantityLimit === 0 && c.deltaLimit === 0 ? 'INVALID_REQUEST' : null
}

/**
 * Applies one command and checks what it answered: never INTERNAL_ERROR; a configuration refused exactly
 * when out of range; MMP_FROZEN only for a protected order (an option quote or `mmp: true`) of a user
 * frozen on its underlying when it came, and such an order never taken then; after a trip, none of the
 * user's protected orders on the underlying left open.
 */
export function applyChecked(engine: Engine, env: CommandEnvelope): Reply {
  const { state } = engine
  const cmd = env.cmd
  const marketId = cmd.type === 'PlaceOrder' ? cmd.order.marketId : cmd.type === 'PlaceQuotes' ? cmd.marketId : null
  const market = marketId === null ? undefined : state.markets.get(marketId)
  const guarded = market !== undefined && !market.linear && ((cmd.type === 'PlaceOrder' && cmd.mmp === true) || (cmd.type === 'PlaceQuotes' && cmd.orders.length > 0))
  const s = guarded ? state.mmp.get(`${(cmd as { userId: string }).userId}|${market.spec.family}`) : undefined
  const frozen = s !== undefined && isFrozen(s, Math.max(state.now, env.ts))
  const from = engine.changes.events.length
  const r = engine.apply(env)
  if (!r.ok) expect(r.code, `${cmd.type} ${r.message}`).not.toBe('INTERNAL_ERROR')
  if (cmd.type === 'SetMmpConfig') expect(r.ok ? null : r.code, `SetMmpConfig ${JSON.stringify(cmd)}`).toBe(mmpConfigRefusal(cmd))
  if (!r.ok && r.code === 'MMP_FROZEN') expect(frozen, `${cmd.type} refused MMP_FROZEN: a protected order of a frozen user`).toBe(true)
  if (r.ok && frozen) expect.fail(`${cmd.type} of a frozen user was taken`)
  const events = engine.changes.events
  for (let i = from; i < events.length; i++) {
    const e = events[i]!
    if (e.eventType !== 'MmpTriggered') continue
    const userId = e.stream.slice('orders:'.length)
    const underlying = (e.payload as { underlying: string }).underlying
    expect(protectedOrders(state, userId, underlying), `${cmd.type} tripped ${userId} on ${underlying}: no protected order left open`).toEqual([])
  }
  return r
}
