// The simulator's taker: what small market order to send next. The house alone cannot make trades (self-
// trade prevention cancels its own resting order instead of filling it), so a second ordinary user
// takes from its ladders now and then, and the book prints trades and candles. Sides are random but lean
// toward reducing what the taker already holds, so its positions (and the house's opposite ones) stay
// small for as long as the simulator runs. Pure: the draws come from the caller's seeded generator.
import { D, formatDecimal } from '../../domain/decimal.js'
import type { Rng } from '../../domain/prng.js'

export interface TakerMarket {
  marketId: string
  type: 'spot' | 'perpetual' | 'future'
  stepSize: string
  minQuantity: string
  mark: string
}

export interface TakerPosition {
  marketId: string
  side: 'long' | 'short'
  quantity: string
}

export interface TakerParams {
  /** USDC notional of one order, uniform between these. */
  minNotional: number
  maxNotional: number
  /** At this position notional the taker reduces with probability 0.5 + maxLean. */
  leanNotional: number
  maxLean: number
}

export const DEFAULT_TAKER: TakerParams = { minNotional: 200, maxNotional: 1_500, leanNotional: 20_000, maxLean: 0.4 }

export interface TakerOrder {
  marketId: string
  side: 'buy' | 'sell'
  type: 'market'
  quantity: string
}

export function nextTakerOrder(markets: readonly TakerMarket[], positions: readonly TakerPosition[], rng: Rng, p: TakerParams = DEFAULT_TAKER): TakerOrder | null {
  if (markets.length === 0) return null
  const m = markets[Math.floor(rng() * markets.length)]!
  const mark = D(m.mark)
  if (!mark.gt(0)) return null
  const step = D(m.stepSize)
  const notional = p.minNotional + (p.maxNotional - p.minNotional) * rng()
  const lots = D.max(D(notional.toFixed(2)).div(mark).div(step).floor(), D(m.minQuantity).div(step).ceil())
  const quantity = lots.mul(step)

  const pos = positions.find((x) => x.marketId === m.marketId)
  const held = pos ? D(pos.quantity).mul(pos.side === 'long' ? 1 : -1) : D(0)
  const lean = Math.min(1, held.abs().mul(mark).div(p.leanNotional).toNumber()) * p.maxLean
  const reduceSide = held.gt(0) ? 'sell' : 'buy'
  let side: 'buy' | 'sell' = held.isZero() ? (rng() < 0.5 ? 'buy' : 'sell') : rng() < 0.5 + lean ? reduceSide : reduceSide === 'sell' ? 'buy' : 'sell'
  // Spot is fully funded: the taker can only sell what it holds.
  if (m.type === 'spot' && side === 'sell' && held.lt(quantity)) side = 'buy'
  return { marketId: m.marketId, side, type: 'market', quantity: formatDecimal(quantity) }
}
