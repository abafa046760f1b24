// Perpetuals (DESIGN.md §5, §7). The mark is the futures-curve index plus an EMA of the book's mid
// premium over it (bounded by the price band); funding integrates the mark's premium over the index
// through each period and settles it at the period's end: longs pay shorts when positive, clamped to
// the market's maximum rate. All of it happens inside engine commands at their timestamps (marks and
// the scheduler's Tick), in integers, so it is exactly once and identical on every replay.
import { D } from '../domain/decimal.js'
import { scaleOf } from '../domain/scale.js'
import { engineId } from '../domain/ids.js'
import { curveIndex } from '../domain/pricing/curveIndex.js'
import type { Account } from './account.js'
import type { Ctx } from './context.js'
import { streams } from './events.js'
import { move } from './ledger.js'
import type { MarketRuntime } from './marketRuntime.js'

/** Samples the premium EMA averages over: one per Tick (each second) and per mark of the family, so at
 * most about a minute's worth, less while the feed marks more often. */
export const PREMIUM_EMA_SAMPLES = 60
/** Fractions (premium over index, funding rates) are integers in units of 1e-10. */
export const FRACTION_SCALE = 10_000_000_000

export interface PerpState {
  /** EMA of the book's mid premium over the index, in millionths of a tick. */
  premiumEma: number
  /** End of the funding period being accumulated, unix ms. */
  periodEnd: number
  /** Σ premium fraction × ms over the period so far (fraction in 1e-10). */
  accum: number
  /** Time up to which `accum` is integrated. */
  accumTo: number
  /** The mark's premium fraction over the index in effect since `accumTo` (1e-10). */
  current: number
}

export interface FundingRow {
  id: string
  userId: string
  marketId: string
  periodEnd: number
  /** Rate in 1e-10. */
  rate: number
  /** Signed position in lots at settlement. */
  lots: number
  markTicks: number
  /** Signed micro-USDC from the holder's side: negative when paid. */
  amount: bigint
  at: number
}

export function newPerpState(market: MarketRuntime, now: number): PerpState {
  const interval = market.spec.fundingIntervalMs!
  return { premiumEma: 0, periodEnd: (Math.floor(now / interval) + 1) * interval, accum: 0, accumTo: now, current: 0 }
}

/** The family's front and next futures still trading at the engine's time, nearest first. */
function liveFutures(ctx: Ctx, family: string): MarketRuntime[] {
  const out: MarketRuntime[] = []
  for (const m of ctx.state.markets.values()) {
    if (m.spec.family === family && m.spec.type === 'future' && m.status !== 'settled' && m.spec.expiryMs! > ctx.now) out.push(m)
  }
  return out.sort((a, b) => a.spec.expiryMs! - b.spec.expiryMs!)
}

function perpetualOf(ctx: Ctx, family: string): MarketRuntime | undefined {
  for (const m of ctx.state.markets.values()) if (m.spec.family === family && m.spec.type === 'perpetual') return m
  return undefined
}

/** The curve index on the perpetual's tick, with the oldest weighted input's time; null without F1's mark. */
function index(ctx: Ctx, perp: MarketRuntime): { ticks: number; sourceTs: number } | null {
  const [f1, f2] = liveFutures(ctx, perp.spec.family)
  const m1 = f1 && ctx.state.marks.get(f1.spec.id)
  if (!f1 || !m1) return null
  const m2 = f2 && ctx.state.marks.get(f2.spec.id)
  const i = curveIndex({
    nowMs: ctx.now,
    f1: { price: D(m1.price), expiryMs: f1.spec.expiryMs!, sourceTs: m1.sourceTs },
    f2: f2 && m2 ? { price: D(m2.price), expiryMs: f2.spec.expiryMs!, sourceTs: m2.sourceTs } : null,
    tick: perp.tick,
  })
  return { ticks: i.price.div(perp.tick).toNumber(), sourceTs: i.sourceTs }
}

/**
 * Recomputes the family's perpetual: integrates funding up to now (settling any period that ended),
 * samples the book's premium into the EMA, and sets the mark (index + EMA premium, inside the band).
 * `setMark` records a changed mark; it returns false when nothing moved.
 */
export function refreshPerpetual(ctx: Ctx, family: string, setMark: (perp: MarketRuntime, markTicks: number, indexTicks: number, sourceTs: number) => boolean): void {
  const perp = perpetualOf(ctx, family)
  if (!perp?.perp || perp.status === 'settled') return
  advanceFunding(ctx, perp)
  const idx = index(ctx, perp)
  if (!idx) return
  const s = perp.perp
  const band = Math.floor((idx.ticks * perp.spec.priceBandBps) / 10_000)
  const bid = perp.book.bestBid()
  const ask = perp.book.bestAsk()
  const sample = bid !== undefined && ask !== undefined ? (bid + ask) * 500_000 - idx.ticks * 1_000_000 : 0
  const bounded = Math.max(-band * 1_000_000, Math.min(band * 1_000_000, sample))
  s.premiumEma += Math.trunc((bounded - s.premiumEma) / PREMIUM_EMA_SAMPLES)
  const markTicks = idx.ticks + Math.round(s.premiumEma / 1_000_000)
  s.current = Math.trunc(((markTicks - idx.ticks) * FRACTION_SCALE) / idx.ticks)
  ctx.changes.markets.add(perp.spec.id)
  if (setMark(perp, markTicks, idx.ticks, idx.sourceTs)) {
    const m = ctx.state.marks.get(perp.spec.id)!
    ctx.emit(perp.streams.prices, 'PerpPrice', { kind: 'price', symbol: perp.spec.id, price: m.price, tsMs: ctx.now }, idx.sourceTs)
  }
}

/** Integrates the premium up to the engine's time, settling every funding period that ended on the way. */
export function advanceFunding(ctx: Ctx, perp: MarketRuntime): void {
  const s = perp.perp!
  const interval = perp.spec.fundingIntervalMs!
  while (ctx.now >= s.periodEnd) {
    s.accum += s.current * (s.periodEnd - s.accumTo)
    settleFunding(ctx, perp, s.periodEnd, periodRate(perp, s.accum))
    s.accum = 0
    s.accumTo = s.periodEnd
    s.periodEnd += interval
  }
  s.accum += s.current * (ctx.now - s.accumTo)
  s.accumTo = ctx.now
  ctx.changes.markets.add(perp.spec.id)
}

/** The running estimate of the current period's rate (1e-10), for market statistics. */
export function estimatedRate(perp: MarketRuntime, now: number): number {
  const s = perp.perp!
  return periodRate(perp, s.accum + s.current * Math.max(0, now - s.accumTo))
}

/** A funding cap in basis points as a rate in 1e-10, by its decimal string (markets share a handful). */
const maxRates = new Map<string, number>()
function maxRateOf(bps: string): number {
  let rate = maxRates.get(bps)
  if (rate === undefined) maxRates.set(bps, (rate = D(bps).mul(FRACTION_SCALE / 10_000).toNumber()))
  return rate
}

/** A period's rate (1e-10) from its premium integrated over time, clamped to the market's maximum. */
function periodRate(perp: MarketRuntime, accum: number): number {
  const maxRate = maxRateOf(perp.spec.fundingMaxRateBps ?? '0')
  return Math.max(-maxRate, Math.min(maxRate, Math.trunc(accum / perp.spec.fundingIntervalMs!)))
}

const RATE_UNIT = scaleOf('0.0000000001')

/** A rate in 1e-10 (an integer: rates are truncated) as a decimal string: its digits shifted, no decimal
 * arithmetic (the market statistics' mirror formats one per batch). */
export const rateString = (rate: number) => RATE_UNIT.format(rate)

/**
 * Pays funding for one period at the current mark: positive rate, longs pay shorts. Payers are rounded
 * up and receivers down (the remainder stays in clearing), through the clearing account.
 */
function settleFunding(ctx: Ctx, perp: MarketRuntime, periodEnd: number, rate: number): void {
  const markTicks = ctx.state.markTicks.get(perp.spec.id)?.ticks
  if (rate === 0 || markTicks === undefined) return
  const absRate = BigInt(Math.abs(rate))
  const scale = BigInt(FRACTION_SCALE)
  const holders: Array<[Account, number]> = []
  for (const account of ctx.state.accounts.values()) {
    const p = account.positions.get(perp.spec.id)
    if (p && p.lots !== 0) holders.push([account, p.lots])
  }
  holders.sort(([a], [b]) => (a.userId < b.userId ? -1 : 1))
  for (const [account, lots] of holders) {
    const p = account.positions.get(perp.spec.id)!
    const due = perp.notional(markTicks, Math.abs(lots)) * absRate
    const pays = lots > 0 === rate > 0
    const amount = pays ? -((due + scale - 1n) / scale) : due / scale
    if (amount === 0n) continue
    const id = engineId(ctx.now, ctx.state.next('funding'))
    if (pays) move(ctx, account, 'perps', ctx.state.system, 'clearing', -amount, 'funding', id)
    else move(ctx, ctx.state.system, 'clearing', account, 'perps', amount, 'funding', id)
    p.funding += amount
    if (p.marginMode === 'isolated') p.isolatedMargin = p.isolatedMargin + amount > 0n ? p.isolatedMargin + amount : 0n
    p.updatedAt = ctx.now
    ctx.touchPosition(p)
    ctx.changes.funding.push({ id, userId: account.userId, marketId: perp.spec.id, periodEnd, rate, lots, markTicks, amount, at: ctx.now })
  }
  ctx.emit(ctx.state.counter(streams.funding(perp.spec.id)), 'FundingSettled', { marketId: perp.spec.id, periodEnd, rate: rateString(rate), markPrice: perp.prices.format(markTicks) })
}
