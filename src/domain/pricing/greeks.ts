// Black-76 sensitivities of one unit of an option, closed form: what a position's risk figures (the
// account reads' delta, gamma, vega and theta) are made of. Sticky strike: the vol is held where the
// smile put it, so these are the model's partial derivatives at that vol.
import { black76Delta, black76Price, normPdf, type Black76Input } from './black76.js'

export interface Greeks {
  /** ∂V/∂F: underlying units per unit of underlying held. */
  delta: number
  /** ∂²V/∂F²: delta's change per 1 USDC move of the forward. */
  gamma: number
  /** ∂V/∂σ per volatility point (σ + 0.01), in USDC. */
  vega: number
  /** −∂V/∂T per calendar day (the value one day of time takes away), in USDC. */
  theta: number
}

const DAYS_PER_YEAR = 365.25

/**
 * With time and vol left: gamma = e^(−rT)·φ(d1)/(F·σ√T), vega = e^(−rT)·F·φ(d1)·√T, and
 * theta = −∂V/∂T = −e^(−rT)·F·φ(d1)·σ/(2√T) + r·V. At expiry (or with no vol) the value is the
 * discounted intrinsic value: gamma and vega are 0 and theta is r·V.
 */
export function black76Greeks(input: Black76Input): Greeks {
  const { forward: f, strike: k, timeYears, vol, rate } = input
  const value = black76Price(input)
  const delta = black76Delta(input)
  if (!(timeYears > 0) || !(vol > 0)) return { delta, gamma: 0, vega: 0, theta: (rate * value) / DAYS_PER_YEAR }
  const sqrtT = Math.sqrt(timeYears)
  const s = vol * sqrtT
  const df = Math.exp(-rate * timeYears)
  const pdf = normPdf(Math.log(f / k) / s + s / 2)
  return {
    delta,
    gamma: (df * pdf) / (f * s),
    vega: (df * f * pdf * sqrtT) / 100,
    theta: ((-df * f * pdf * vol) / (2 * sqrtT) + rate * value) / DAYS_PER_YEAR,
  }
}
