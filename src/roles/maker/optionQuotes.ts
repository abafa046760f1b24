// The liquidity simulator's option quotes: for every listed option whose strike is within ±20% of its
// expiry's forward, a bid and an ask ladder around its Black-76 value (the board's theoretical mark),
// with a half-spread that grows with the option's vega (a market maker charges for the vol risk it
// takes) and a mid that leans against the house's inventory in that option (long: lower, to sell it;
// short: higher, to buy back), by a share of vega per contract held. Pure: the same inputs give the
// same quotes. Floats only inside Black-76's vega; prices are worked in ticks.
import { D, formatDecimal } from '../../domain/decimal.js'
import { black76Greeks } from '../../domain/pricing/greeks.js'
import { YEAR_MS } from '../../domain/pricing/optionTheo.js'
import type { LadderQuote } from './ladder.js'

export interface QuotedOption {
  marketId: string
  strike: number
  isCall: boolean
  expiryMs: number
  /** The expiry's forward (the board's expiryForwards). */
  forward: number
  /** The board's Black-76 value in units of the underlying, on the tick, and its vol. */
  markPrice: string
  markIv: number
  tickSize: string
  stepSize: string
  minQuantity: string
}

export interface OptionQuoteParams {
  /** Strikes quoted: |strike / forward − 1| at most this. */
  moneyness: number
  levels: number
  /** Half-spread in vol points of vega, plus a floor in ticks. */
  halfSpreadVols: number
  minHalfSpreadTicks: number
  /** Mid shift per contract of inventory, in vol points of vega, capped at the half-spread. */
  skewVolsPerContract: number
  /** Contracts at the best level; level i carries (1 + i) times it. */
  size: string
}

export const DEFAULT_OPTION_QUOTES: OptionQuoteParams = {
  moneyness: 0.2,
  levels: 2,
  halfSpreadVols: 0.5,
  minHalfSpreadTicks: 2,
  skewVolsPerContract: 0.25,
  size: '0.5',
}

/** Whether the simulator quotes this option: strike within ±moneyness of the forward, a value to quote around. */
export const quotesOption = (o: Pick<QuotedOption, 'strike' | 'forward'>, p = DEFAULT_OPTION_QUOTES) => Math.abs(o.strike / o.forward - 1) <= p.moneyness

/**
 * Bids best first, then asks best first, every bid below every ask; a bid that would be under one tick
 * is left out (a far wing is then quoted one-sided). `position` is the house's signed contracts held,
 * `spot` the index (vega in USDC converts to underlying units at it), `rate` the family's rate.
 */
export function optionQuotes(o: QuotedOption, spot: number, rate: number, nowMs: number, position: number, p = DEFAULT_OPTION_QUOTES): LadderQuote[] {
  const tick = D(o.tickSize)
  const theo = D(o.markPrice).div(tick).toNumber()
  const timeYears = Math.max(0, o.expiryMs - nowMs) / YEAR_MS
  if (!(spot > 0) || !(o.markIv > 0) || timeYears === 0) return []
  const vega = black76Greeks({ forward: o.forward, strike: o.strike, timeYears, vol: o.markIv, rate, isCall: o.isCall }).vega / spot / tick.toNumber()
  const half = Math.max(p.minHalfSpreadTicks, p.halfSpreadVols * vega)
  const skew = Math.max(-half, Math.min(half, -position * p.skewVolsPerContract * vega))
  const mid = theo + skew
  const gap = Math.max(1, half / 2)
  const size = (i: number) => formatDecimal(D.max(D(p.size).mul(1 + i), D(o.minQuantity)).div(o.stepSize).floor().mul(o.stepSize))
  const bids: LadderQuote[] = []
  const asks: LadderQuote[] = []
  let lastBid = Infinity
  let lastAsk = -Infinity
  for (let i = 0; i < p.levels; i++) {
    const bid = Math.min(Math.floor(mid - half - i * gap), lastBid - 1)
    const ask = Math.max(Math.ceil(mid + half + i * gap), lastAsk + 1, bid + 1)
    lastBid = bid
    lastAsk = ask
    if (bid >= 1) bids.push({ side: 'buy', price: formatDecimal(D(bid).mul(tick)), quantity: size(i) })
    asks.push({ side: 'sell', price: formatDecimal(D(ask).mul(tick)), quantity: size(i) })
  }
  return [...bids, ...asks]
}
