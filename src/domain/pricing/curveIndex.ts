// The perpetual's index from the quarterly futures curve (DESIGN.md §5): a blend of the front (F1)
// and next (F2) futures marks that rolls from F1 to F2 over the 5 days ending at F1's options
// expiry, so the index is continuous when F1 expires and the caller shifts the pair (F2 becomes F1).
import type { Decimal } from 'decimal.js'
import { D, quantize } from '../decimal.js'
import { DAY_MS, WEEK_MS } from '../calendar.js'

export const ROLL_K = 3
export const ROLL_WINDOW_MS = 5 * DAY_MS

/**
 * Weight of F2 at `nowMs`: 0 up to and including the window start, (1 − e^(−kτ)) / (1 − e^(−k))
 * inside it (τ the elapsed fraction), 1 from the window end onwards. It stays 1 past F1's expiry, so
 * a caller that shifts the pair late still gets F2 and no jump. k = 0 is the linear limit w = τ.
 */
export function rollWeight(nowMs: number, f1ExpiryMs: number, k = ROLL_K, windowMs = ROLL_WINDOW_MS): number {
  if (!Number.isFinite(nowMs) || !Number.isFinite(f1ExpiryMs)) throw new RangeError('rollWeight: times must be finite')
  if (!Number.isFinite(k)) throw new RangeError(`rollWeight: k must be finite: ${k}`)
  if (!(windowMs > 0) || !Number.isFinite(windowMs)) throw new RangeError(`rollWeight: bad window ${windowMs}`)
  const end = f1ExpiryMs - WEEK_MS
  const start = end - windowMs
  if (nowMs <= start) return 0
  if (nowMs >= end) return 1
  const tau = (nowMs - start) / windowMs
  if (k === 0) return tau
  // expm1 keeps the ratio accurate for small k, where 1 − e^(−k) cancels.
  return Math.expm1(-k * tau) / Math.expm1(-k)
}

export interface CurveLeg {
  price: Decimal
  expiryMs: number
  sourceTs: number
}

export interface CurveIndexInput {
  nowMs: number
  f1: CurveLeg
  f2: CurveLeg | null
  tick: Decimal
}

export interface CurveIndex {
  price: Decimal
  /** The weight F2 actually carried in `price` (0 when f2 is missing). */
  weight: number
  /** Oldest sourceTs among the legs that carry weight, so staleness propagates (fail closed). */
  sourceTs: number
}

/**
 * index = (1 − w)·F1 + w·F2, rounded to the nearest tick (ties away from zero). Without an F2 the
 * index is F1 alone whatever the calendar says: weight 0, F1's sourceTs.
 */
export function curveIndex(input: CurveIndexInput): CurveIndex {
  const { nowMs, f1, f2, tick } = input
  const w = f2 === null ? 0 : rollWeight(nowMs, f1.expiryMs)
  if (f2 === null || w === 0) return { price: quantize(f1.price, tick), weight: 0, sourceTs: f1.sourceTs }
  if (w === 1) return { price: quantize(f2.price, tick), weight: 1, sourceTs: f2.sourceTs }
  const wd = new D(w)
  const blended = new D(1).minus(wd).times(f1.price).plus(wd.times(f2.price))
  return { price: quantize(blended, tick), weight: w, sourceTs: Math.min(f1.sourceTs, f2.sourceTs) }
}
