// A listed market as the engine holds it: its fixed spec, its trading status, its book and the book's
// sequence, plus the integer scales and rates the hot path needs (decimals stay at the boundary).
import { D, type Decimal } from '../domain/decimal.js'
import { isLinear, type MarketSpec, type MarketStatus } from '../domain/market.js'
import { scaleOf, type Scale } from '../domain/scale.js'
import { OrderBook } from './book/orderBook.js'
import { streams } from './events.js'
import type { PerpState } from './perpetual.js'
import type { TwapState } from './expiry.js'
import type { RiskArrays } from './margin.js'
import type { OptionFactors, OptionLinks, OptionTerms, OptionValuation } from './optionPricing.js'
import type { Counter, CounterSource } from './state.js'
import type { Account } from './account.js'

/** Rates are integers in millionths: a fee of 5 bps is 500, a margin of 10% is 100,000. */
export const RATE_ONE = 1_000_000n

const rate = (value: string, perUnit: number) => BigInt(D(value).mul(perUnit).toFixed(0))

export class MarketRuntime {
  readonly spec: MarketSpec
  status: MarketStatus
  readonly book = new OrderBook()
  /** Sequence of the last book delta; a snapshot carries it, the next delta is bookSeq + 1. */
  bookSeq: number
  settledAtMs: number | null = null
  settlementPrice: string | null = null
  /** Perpetuals: premium EMA and funding accumulator. */
  perp: PerpState | null = null
  /** Futures in their last 30 minutes: the spot TWAP they settle at. */
  twap: TwapState | null = null
  /** Linear derivatives: the risk arrays at the current mark (derived from it, not serialized). */
  risk: RiskArrays | null = null
  /** Options (optionPricing.ts), derived and cached, never serialized: the terms, the linked spot and
   * future, the exact premium factors, and the valuation at the current marks. */
  terms: OptionTerms | null = null
  optionLinks: OptionLinks | null = null
  optionFactors: OptionFactors | null = null
  valuation: OptionValuation | null = null
  /** Options: the accounts with open orders here that the options bucket counts (reservations.ts), so
   * their balances are re-told when the marks move (derived, never serialized). */
  readonly exposed = new Set<Account>()
  readonly tick: Decimal
  readonly step: Decimal
  /** Ticks → price string and lots → quantity string, for events and rows. */
  readonly prices: Scale
  readonly quantities: Scale
  readonly linear: boolean
  /** Micro-USDC of one tick times one lot: notional = ticks × lots × this (linear markets). */
  readonly microPerTickLot: bigint
  readonly minLots: number
  readonly takerFee: bigint
  readonly makerFee: bigint
  readonly initialMargin: bigint
  readonly maintenanceMargin: bigint
  /** This market's public event streams: the book's name (its deltas are numbered by bookSeq), the
   * trades' and prices' counters. */
  readonly streams: { readonly book: string; readonly trades: Counter; readonly prices: Counter }

  constructor(spec: MarketSpec, counters: CounterSource, status: MarketStatus = 'active', bookSeq = 0) {
    this.spec = spec
    this.status = status
    this.bookSeq = bookSeq
    this.tick = D(spec.tickSize)
    this.step = D(spec.stepSize)
    this.prices = scaleOf(spec.tickSize)
    this.quantities = scaleOf(spec.stepSize)
    this.linear = isLinear(spec.type)
    this.microPerTickLot = this.linear ? BigInt(this.tick.mul(this.step).mul(1_000_000).toFixed(0)) : 0n
    this.minLots = D(spec.minQuantity).div(this.step).toNumber()
    this.takerFee = rate(spec.takerFeeBps, 100)
    this.makerFee = rate(spec.makerFeeBps, 100)
    this.initialMargin = rate(spec.initialMarginPct, 10_000)
    this.maintenanceMargin = rate(spec.maintenanceMarginPct, 10_000)
    this.streams = { book: streams.book(spec.id), trades: counters.counter(streams.trades(spec.id)), prices: counters.counter(streams.prices(spec.id)) }
  }

  notional(priceTicks: number, lots: number): bigint {
    return BigInt(priceTicks) * BigInt(lots) * this.microPerTickLot
  }
}

/** ceil(amount × rate / 1e6): fees and margin round in the exchange's favour, by under one micro-USDC. */
export function applyRate(amount: bigint, rateMillionths: bigint): bigint {
  const x = amount * rateMillionths
  return x > 0n ? (x + RATE_ONE - 1n) / RATE_ONE : x / RATE_ONE
}

/** Why a spec cannot be listed, or null when it can. */
export function invalidSpec(spec: MarketSpec): string | null {
  const tick = D(spec.tickSize)
  const step = D(spec.stepSize)
  if (!tick.gt(0) || !step.gt(0)) return 'tick and step must be positive'
  if (!D(spec.minQuantity).gt(0) || !D(spec.minQuantity).mod(step).isZero()) {
    return 'minimum quantity must be a positive multiple of the step'
  }
  // Linear notional must be an integer number of micro-USDC per tick·lot, so fills never round.
  if (spec.type !== 'option' && !tick.mul(step).mul(1_000_000).isInteger()) {
    return 'tick × step must be a whole number of micro-USDC'
  }
  for (const [name, v, perUnit] of [
    ['takerFeeBps', spec.takerFeeBps, 100],
    ['makerFeeBps', spec.makerFeeBps, 100],
    ['initialMarginPct', spec.initialMarginPct, 10_000],
    ['maintenanceMarginPct', spec.maintenanceMarginPct, 10_000],
  ] as const) {
    const d = D(v)
    if (d.isNegative() || !d.mul(perUnit).isInteger()) return `${name} must be non-negative with at most ${Math.log10(perUnit)} decimals`
  }
  if (!Number.isInteger(spec.priceBandBps) || spec.priceBandBps <= 0 || spec.priceBandBps >= 10_000) return 'priceBandBps out of range'
  // Funding integrates premium (≤ the band, in 1e-10) × ms over a period in a double: keep it exact.
  if (spec.type === 'perpetual' && !(spec.fundingIntervalMs! > 0 && spec.fundingIntervalMs! * spec.priceBandBps * 1_000_000 <= Number.MAX_SAFE_INTEGER)) {
    return 'fundingIntervalMs × priceBandBps too large for exact funding integration'
  }
  if ((spec.type === 'future' || spec.type === 'option') && spec.expiryMs === null) return 'expiry required'
  if (spec.type === 'option' && (spec.strike === null || spec.optionType === null)) return 'strike required'
  return null
}
