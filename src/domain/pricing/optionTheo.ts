// Theoretical value of a listed option at a moment: the forward of its expiry (the matching future's
// mark, or the synthetic spot·e^(rT) when no future matches), the smile's vol, Black-76, quoted in
// units of the underlying on the option tick. Shared by the board and the engine's governing marks.
import type { Decimal } from 'decimal.js'
import { syntheticForward } from './black76.js'
import { optionMark, type OptionMark } from './optionPrice.js'
import { smileVol, type SmileParams } from './volSurface.js'

export const YEAR_MS = 365.25 * 24 * 3_600_000

export interface PricePoint {
  price: number
  /** Upstream time, unix ms. */
  sourceTs: number
}

export interface Forward extends PricePoint {
  source: 'future' | 'synthetic'
}

/** The forward for an option expiry; null without the inputs it needs. Carries its input's source time. */
export function optionForward(input: {
  nowMs: number
  expiryMs: number
  rate: number
  spot: PricePoint | null
  matchingFuture: PricePoint | null
}): Forward | null {
  if (input.matchingFuture) return { ...input.matchingFuture, source: 'future' }
  if (!input.spot) return null
  const t = Math.max(0, input.expiryMs - input.nowMs) / YEAR_MS
  return { price: syntheticForward(input.spot.price, input.rate, t), sourceTs: input.spot.sourceTs, source: 'synthetic' }
}

export interface OptionTheoInput {
  nowMs: number
  expiryMs: number
  strike: number
  isCall: boolean
  forward: number
  indexSpot: number
  rate: number
  smile: SmileParams
  tick: Decimal
}

export function optionTheo(i: OptionTheoInput): OptionMark {
  const timeYears = Math.max(0, i.expiryMs - i.nowMs) / YEAR_MS
  const vol = smileVol(i.smile, i.forward, i.strike, timeYears)
  return optionMark({
    forward: i.forward,
    strike: i.strike,
    timeYears,
    vol,
    rate: i.rate,
    isCall: i.isCall,
    indexSpot: i.indexSpot,
    tick: i.tick,
  })
}
