// The option mark the board and the engine use: Black-76 value in USDC turned into the quoted price,
// which is in units of the underlying (DESIGN.md §5: price = value_in_USDC / index_spot), on the tick.
import type { Decimal } from 'decimal.js'
import { roundToTick } from '../decimal.js'
import { black76Delta, black76Price, type Black76Input } from './black76.js'

export interface OptionMarkInput extends Black76Input {
  /** Index spot in USDC per unit of underlying, converting the USDC value into underlying units. */
  indexSpot: number
  /** The option's price tick, in units of the underlying. */
  tick: Decimal
}

export interface OptionMark {
  /** Underlying units per contract, on the tick; 0 when the value is under half a tick. */
  price: Decimal
  /** The volatility the mark was priced with (the surface's). */
  iv: number
  /** Discounted forward delta, in units of the underlying per contract. */
  delta: number
}

/**
 * Prices one option. The value is rounded to the nearest tick (ties away from zero), so a far
 * out-of-the-money option worth under half a tick marks at 0 rather than being lifted to one tick;
 * a mark is never negative.
 */
export function optionMark(input: OptionMarkInput): OptionMark {
  const { indexSpot, tick } = input
  if (!(indexSpot > 0) || !Number.isFinite(indexSpot)) throw new RangeError(`optionMark: indexSpot must be positive: ${indexSpot}`)
  const valueUsdc = black76Price(input)
  const price = roundToTick(Math.max(valueUsdc / indexSpot, 0), tick)
  return { price, iv: input.vol, delta: black76Delta(input) }
}
