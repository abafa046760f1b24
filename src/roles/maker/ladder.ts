// The liquidity simulator's quote ladder: N bids and N asks around a mark, spread and level gaps in basis
// points, prices on the market's tick and inside its price band, sizes on its step and at least its
// minimum, with a little seeded jitter so the book looks alive. Pure: the same inputs and seed give the
// same ladder. Prices are worked in decimal ticks; floats only draw the jitter and the bps offsets.
import { D, formatDecimal } from '../../domain/decimal.js'
import { mulberry32 } from '../../domain/prng.js'

export interface LadderMarket {
  tickSize: string
  stepSize: string
  minQuantity: string
  /** The band an order price must fall in (GET /perps/markets); null when unknown. */
  priceBandLow: string | null
  priceBandHigh: string | null
}

export interface LadderParams {
  /** Levels per side. */
  levels: number
  /** From the mark to the best bid and to the best ask. */
  halfSpreadBps: number
  /** Between consecutive levels of one side. */
  levelGapBps: number
  /** Random extra offset of each level, 0 to this. */
  priceJitterBps: number
  /** USDC notional of the best level; level i carries (1 + sizeGrowth·i) times it. */
  levelNotional: number
  sizeGrowth: number
  /** Each size is scaled by a uniform draw in [1 − sizeJitter, 1 + sizeJitter]. */
  sizeJitter: number
}

export const DEFAULT_LADDER: LadderParams = {
  levels: 5,
  halfSpreadBps: 4,
  levelGapBps: 3,
  priceJitterBps: 1,
  levelNotional: 4_000,
  sizeGrowth: 0.5,
  sizeJitter: 0.3,
}

export interface LadderQuote {
  side: 'buy' | 'sell'
  price: string
  quantity: string
}

/** 4 decimals of a bps float, as an exact decimal: the only place floats meet prices. */
const bps = (x: number) => D(x.toFixed(4)).div(10_000)

/**
 * Bids best first, then asks best first. Every bid is below `mark` and every ask above it (so bids are
 * below asks), each side strictly monotone; levels outside the band are dropped, never moved onto it.
 * Empty when the mark is not positive.
 */
export function buildLadder(mark: string, market: LadderMarket, seed: number, p: LadderParams = DEFAULT_LADDER): LadderQuote[] {
  const mid = D(mark)
  if (!mid.isFinite() || !mid.gt(0)) return []
  const tick = D(market.tickSize)
  const step = D(market.stepSize)
  const minLots = D(market.minQuantity).div(step).ceil()
  const midTicks = mid.div(tick)
  const low = market.priceBandLow === null ? D(1) : D.max(1, D(market.priceBandLow).div(tick).ceil())
  const high = market.priceBandHigh === null ? null : D(market.priceBandHigh).div(tick).floor()
  const inBand = (t: D) => t.gte(low) && (high === null || t.lte(high))
  const rng = mulberry32(seed)

  const size = (level: number, priceTicks: D) => {
    const scale = (1 + p.sizeGrowth * level) * (1 - p.sizeJitter + 2 * p.sizeJitter * rng())
    const lots = D(p.levelNotional).mul(D(scale.toFixed(6))).div(priceTicks.mul(tick)).div(step).floor()
    return formatDecimal(D.max(lots, minLots).mul(step))
  }

  const bids: LadderQuote[] = []
  const asks: LadderQuote[] = []
  // Exclusive bounds: the best bid sits at least a tick below the mark, the best ask a tick above.
  let lastBid = midTicks.ceil()
  let lastAsk = midTicks.floor()
  for (let i = 0; i < p.levels; i++) {
    const offset = (jitter: number) => bps(p.halfSpreadBps + p.levelGapBps * i + p.priceJitterBps * jitter)
    const bid = D.min(midTicks.mul(D(1).sub(offset(rng()))).floor(), lastBid.sub(1))
    const ask = D.max(midTicks.mul(D(1).add(offset(rng()))).ceil(), lastAsk.add(1))
    lastBid = bid
    lastAsk = ask
    // Sizes are drawn whether or not the level survives the band, so a level's size does not depend on
    // whether its neighbours were dropped.
    const bidSize = size(i, D.max(bid, 1))
    const askSize = size(i, ask)
    if (bid.gte(1) && inBand(bid)) bids.push({ side: 'buy', price: formatDecimal(bid.mul(tick)), quantity: bidSize })
    if (inBand(ask)) asks.push({ side: 'sell', price: formatDecimal(ask.mul(tick)), quantity: askSize })
  }
  return [...bids, ...asks]
}
