// The per-expiry volatility smile (DESIGN.md §5: "a simple skewed smile is enough"): a quadratic in
// time-scaled log-moneyness, clamped so extreme strikes never get absurd or non-positive vols.

export interface SmileParams {
  atmVol: number
  /** Slope per unit of m; negative makes low strikes dearer (the usual equity/crypto put skew). */
  skew: number
  /** Curvature per unit of m²; positive lifts both wings. */
  smile: number
  minVol?: number
  maxVol?: number
}

export const DEFAULT_MIN_VOL = 0.05
export const DEFAULT_MAX_VOL = 3
// Moneyness is scaled by at least a day's √T so it does not blow up as expiry approaches.
const MIN_SCALING_YEARS = 1 / 365

/** vol = atmVol + skew·m + smile·m², m = ln(K/F)/√max(T, 1/365), clamped to [minVol, maxVol]. */
export function smileVol(params: SmileParams, forward: number, strike: number, timeYears: number): number {
  const { atmVol, skew, smile, minVol = DEFAULT_MIN_VOL, maxVol = DEFAULT_MAX_VOL } = params
  if (!(forward > 0) || !(strike > 0)) throw new RangeError(`smileVol: forward and strike must be positive`)
  if (![atmVol, skew, smile, minVol, maxVol, timeYears].every(Number.isFinite)) throw new RangeError('smileVol: non-finite input')
  if (!(minVol > 0) || minVol > maxVol) throw new RangeError(`smileVol: bad clamp [${minVol}, ${maxVol}]`)
  const m = Math.log(strike / forward) / Math.sqrt(Math.max(timeYears, MIN_SCALING_YEARS))
  const vol = atmVol + skew * m + smile * m * m
  return Math.min(maxVol, Math.max(minVol, vol))
}

/** The smile for an expiry `tenorDays` away: the first surface entry whose tenor covers it, else the last. */
export function smileAt<S extends { tenorDays: number }>(surface: readonly S[], tenorDays: number): S {
  return surface.find((s) => tenorDays <= s.tenorDays) ?? surface[surface.length - 1]!
}
