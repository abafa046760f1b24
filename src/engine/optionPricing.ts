// What the engine knows about an option from the marks (DESIGN.md §5): its forward (the matching
// future's mark, or spot·e^(rT) when no future expires a week after it), its smile vol, its Black-76
// value per lot and its risk arrays, cached per pair of marks; its price band; and the premium and fee
// of a fill, which convert underlying units to USDC at the spot index. The valuation time is the newest
// source time of the marks it uses, never a clock, so it is the same on every replay.
import { WEEK_MS } from '../domain/calendar.js'
import { D } from '../domain/decimal.js'
import { DomainError } from '../domain/errors.js'
import type { OptionPricing } from '../domain/market.js'
import { syntheticForward, type Black76Input } from '../domain/pricing/black76.js'
import { optionLotValue, optionRiskArray } from '../domain/pricing/optionRisk.js'
import { YEAR_MS } from '../domain/pricing/optionTheo.js'
import { smileAt, smileVol } from '../domain/pricing/volSurface.js'
import type { Ctx } from './context.js'
import { governingMark } from './margin.js'
import { RATE_ONE, type MarketRuntime } from './marketRuntime.js'
import type { EngineState, Mark } from './state.js'

const DAY_MS = 86_400_000

/** An option's fixed terms, from its spec. */
export interface OptionTerms {
  strike: number
  isCall: boolean
  expiryMs: number
  pricing: OptionPricing
  /** Units of the underlying per lot (the step), and the price tick, as numbers for the band. */
  lotSize: number
  tick: number
}

/** An option valued at a pair of marks: what the margin, the band and the settlement read. */
export interface OptionValuation {
  /** The marks it was built from (a new mark of either builds a new valuation). */
  readonly spotMark: Mark
  readonly forwardMark: Mark
  readonly forward: number
  /** The spot index on the spot market's tick: premiums convert at it. */
  readonly spotTicks: number
  readonly spot: number
  readonly input: Black76Input
  /** Value of one lot, micro-USDC (and as a double, exact: the options bucket sums in doubles). */
  readonly lotValue: bigint
  readonly lotValueNum: number
  /** Per-lot P&L of a long under the 18 scenarios, at the initial and maintenance ranges. */
  readonly im: readonly bigint[]
  readonly mm: readonly bigint[]
  /** The same as doubles (each is an integer well inside 2^53), and the largest magnitude among them:
   * the options bucket sums in doubles while that is exact (optionMargin.ts). */
  readonly imPerLot: Float64Array
  readonly mmPerLot: Float64Array
  readonly maxAbsPerLot: number
}

/** An option's linked markets: the family's spot (the index) and the matching future (or null). */
export interface OptionLinks {
  spot: MarketRuntime
  future: MarketRuntime | null
  /** The number of listed markets when these were looked up: a listing since may add the future. */
  listedCount: number
}

/** Exact micro-USDC per (option tick × lot × spot tick) and per (lot × spot tick), as fractions, and the
 * same as doubles (NaN where a part is not exact in one) for the fast paths. */
export interface OptionFactors {
  premium: [bigint, bigint]
  notional: [bigint, bigint]
  premiumNum: [number, number]
  notionalNum: [number, number]
}

const fraction = (d: InstanceType<typeof D>): [bigint, bigint] => {
  const [n, m] = d.toFraction()
  return [BigInt(n!.toFixed(0)), BigInt(m!.toFixed(0))]
}

export function optionTerms(market: MarketRuntime): OptionTerms {
  const s = market.spec
  if (s.type !== 'option' || !s.pricing) throw new DomainError('NO_RISK_ARRAY', `No pricing for ${s.id}`, { marketId: s.id })
  return { strike: Number(s.strike), isCall: s.optionType === 'call', expiryMs: s.expiryMs!, pricing: s.pricing, lotSize: market.step.toNumber(), tick: market.tick.toNumber() }
}

export function optionLinks(state: EngineState, market: MarketRuntime): OptionLinks {
  const cached = market.optionLinks
  if (cached && (cached.future !== null || cached.listedCount === state.markets.size)) return cached
  let spot: MarketRuntime | undefined
  let future: MarketRuntime | null = null
  const futureExpiry = market.spec.expiryMs! + WEEK_MS
  for (const m of state.markets.values()) {
    if (m.spec.family !== market.spec.family) continue
    if (m.spec.type === 'spot') spot = m
    else if (m.spec.type === 'future' && m.spec.expiryMs === futureExpiry) future = m
  }
  if (!spot) throw new DomainError('NO_RISK_ARRAY', `No index for ${market.spec.id}`, { marketId: market.spec.id })
  return (market.optionLinks = { spot, future, listedCount: state.markets.size })
}

/** The valuation at the current marks, or null when a mark it needs is missing (no risk array). */
export function valuationOf(state: EngineState, market: MarketRuntime): OptionValuation | null {
  const links = optionLinks(state, market)
  const spotMark = state.marks.get(links.spot.spec.id)
  const forwardMark = links.future ? state.marks.get(links.future.spec.id) : spotMark
  if (!spotMark || !forwardMark) return null
  const v = market.valuation
  if (v && v.spotMark === spotMark && v.forwardMark === forwardMark) return v
  return (market.valuation = value(market, links, spotMark, forwardMark))
}

function value(market: MarketRuntime, links: OptionLinks, spotMark: Mark, forwardMark: Mark): OptionValuation {
  const terms = (market.terms ??= optionTerms(market))
  const asOf = Math.max(spotMark.sourceTs, forwardMark.sourceTs)
  const left = Math.max(0, terms.expiryMs - asOf)
  const timeYears = left / YEAR_MS
  const spot = Number(spotMark.price)
  const forward = links.future ? Number(forwardMark.price) : syntheticForward(spot, terms.pricing.rate, timeYears)
  const vol = smileVol(smileAt(terms.pricing.volSurface, left / DAY_MS), forward, terms.strike, timeYears)
  const input: Black76Input = { forward, strike: terms.strike, timeYears, vol, rate: terms.pricing.rate, isCall: terms.isCall }
  const range = (pct: string) => Number(pct) / 100
  const im = optionRiskArray(input, terms.lotSize, range(market.spec.initialMarginPct))
  const mm = optionRiskArray(input, terms.lotSize, range(market.spec.maintenanceMarginPct))
  const imPerLot = Float64Array.from(im, Number)
  const mmPerLot = Float64Array.from(mm, Number)
  let maxAbsPerLot = 0
  for (const x of [...imPerLot, ...mmPerLot]) maxAbsPerLot = Math.max(maxAbsPerLot, Math.abs(x))
  const lotValue = optionLotValue(input, terms.lotSize)
  return {
    spotMark,
    forwardMark,
    forward,
    spot,
    spotTicks: D(spotMark.price).div(links.spot.tick).toDecimalPlaces(0, D.ROUND_HALF_UP).toNumber(),
    input,
    lotValue,
    lotValueNum: Number(lotValue),
    im,
    mm,
    imPerLot,
    mmPerLot,
    maxAbsPerLot,
  }
}

/** The valuation an order is judged by: both marks fresh (fail closed), else the mark's code. */
export function governingValuation(ctx: Ctx, market: MarketRuntime): OptionValuation {
  const links = optionLinks(ctx.state, market)
  if (links.future) governingMark(ctx, links.future)
  governingMark(ctx, links.spot)
  const v = valuationOf(ctx.state, market)
  if (!v) throw new DomainError('NO_RISK_ARRAY', `No risk array for ${market.spec.id}`, { marketId: market.spec.id })
  return v
}

/** The band an option order's price must lie in: its value ± the band's share of the forward, both in
 * underlying units (an option's own value may be near zero, so the band cannot be a share of it). */
export function optionBand(market: MarketRuntime, v: OptionValuation): { bandLow: number; bandHigh: number } {
  const { tick, lotSize } = (market.terms ??= optionTerms(market))
  const theo = Math.round(Number(v.lotValue) / 1_000_000 / v.spot / (lotSize * tick))
  const width = Math.ceil(((market.spec.priceBandBps / 10_000) * v.forward) / v.spot / tick)
  return { bandLow: Math.max(1, theo - width), bandHigh: theo + width }
}

const asDoubles = ([n, d]: [bigint, bigint]): [number, number] => [n < EXACT ? Number(n) : NaN, d < EXACT ? Number(d) : NaN]

function factors(market: MarketRuntime, spot: MarketRuntime): OptionFactors {
  if (market.optionFactors) return market.optionFactors
  const premium = fraction(market.tick.mul(market.step).mul(spot.tick).mul(1_000_000))
  const notional = fraction(market.step.mul(spot.tick).mul(1_000_000))
  return (market.optionFactors = { premium, notional, premiumNum: asDoubles(premium), notionalNum: asDoubles(notional) })
}

/** Integers below this in magnitude are exact in doubles, and so is any sum of two of them. */
const EXACT_NUM = 2 ** 52
const EXACT = BigInt(EXACT_NUM)

/**
 * ⌊x / d⌋, or ⌈x / d⌉ when `up`, of integers 0 ≤ x < 2^52 and 0 < d < 2^52, exact: a quotient that is not
 * an integer k lies at least 1/d from it, a relative gap of 1/(k·d) ≥ 1/x > 2^-52, wider than the half unit
 * in the last place a double division may round by, so the rounded quotient stays on the same side of k.
 */
export const divRounded = (x: number, d: number, up: boolean): number => (up ? Math.ceil(x / d) : Math.floor(x / d))

/** The premium of `lots` at `priceTicks` with the index at `spotTicks`, micro-USDC, rounded half up once. */
export function premiumOf(market: MarketRuntime, spot: MarketRuntime, priceTicks: number | bigint, lots: number, spotTicks: number): bigint {
  const [n, d] = factors(market, spot).premium
  const x = BigInt(priceTicks) * BigInt(lots) * BigInt(spotTicks) * n
  return (2n * x + d) / (2n * d)
}

/** The premium of open orders worth `tickLots` (Σ price × lots), rounded `up` or down. */
export function premiumOfTickLots(market: MarketRuntime, spot: MarketRuntime, tickLots: bigint, spotTicks: number, up: boolean): bigint {
  const [n, d] = factors(market, spot).premium
  const x = tickLots * BigInt(spotTicks) * n
  return up ? (x + d - 1n) / d : x / d
}

/** premiumOfTickLots in doubles (tickLots ≥ 0), no bigint made: the same figure while every product stays
 * below 2^52, else null. */
export function premiumOfTickLotsNum(market: MarketRuntime, spot: MarketRuntime, tickLots: number, spotTicks: number, up: boolean): number | null {
  const [n, d] = factors(market, spot).premiumNum
  // Positive integer factors: no partial product exceeds the whole, so one bound check covers them all.
  const x = tickLots * spotTicks * n
  return x < EXACT_NUM && d < EXACT_NUM ? divRounded(x, d, up) : null
}

/** An option fee (DESIGN.md §4, issue 15): `rate` (millionths) of the underlying notional, lots × index,
 * capped at 12.5% of the premium; each rounded up, in the exchange's favour. */
export function optionFee(market: MarketRuntime, spot: MarketRuntime, lots: number, spotTicks: number, premium: bigint, rate: bigint): bigint {
  const [n, d] = factors(market, spot).notional
  const den = d * RATE_ONE
  const onNotional = (BigInt(lots) * BigInt(spotTicks) * n * rate + den - 1n) / den
  const cap = (premium * PREMIUM_FEE_CAP + RATE_ONE - 1n) / RATE_ONE
  return onNotional < cap ? onNotional : cap
}

/** The fee cap, in millionths of the premium (12.5%). */
export const PREMIUM_FEE_CAP = 125_000n

/** The fee open buys of `lots` would pay at most (the uncapped taker fee), rounded up. */
export function maxOptionFee(market: MarketRuntime, spot: MarketRuntime, lots: number, spotTicks: number): bigint {
  const [n, d] = factors(market, spot).notional
  const den = d * RATE_ONE
  return (BigInt(lots) * BigInt(spotTicks) * n * maxFeeRate(market) + den - 1n) / den
}

const maxFeeRate = (market: MarketRuntime): bigint => (market.takerFee > market.makerFee ? market.takerFee : market.makerFee)

/** maxOptionFee in doubles, no bigint made: the same figure while every product stays below 2^52, else null. */
export function maxOptionFeeNum(market: MarketRuntime, spot: MarketRuntime, lots: number, spotTicks: number): number | null {
  const [n, d] = factors(market, spot).notionalNum
  const x = lots * spotTicks * n * Number(maxFeeRate(market))
  const den = d * Number(RATE_ONE)
  return x < EXACT_NUM && den < EXACT_NUM ? divRounded(x, den, true) : null
}
