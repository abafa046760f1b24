// Black-76 for European options on a forward (the BTC options, priced on the matching future's mark
// or on a synthetic forward): value, delta, implied volatility, and the normal distribution they
// need. Floating point is allowed here only (DESIGN.md §3); callers round the outputs to a tick.

// The standard normal CDF from W. J. Cody's ANORM rational approximations (ACM TOMS Algorithm 715):
// near double precision in both tails, which implied-vol round trips need and the common 7.5e-8
// approximations (Abramowitz–Stegun 26.2.17) do not give.
const INV_SQRT_2PI = 0.3989422804014327

// Cody's coefficients for |x| ≤ 0.66291.
const A = [2.2352520354606839287, 161.02823106855587881, 1067.6894854603709582, 18154.981253343561249, 0.065682337918207449113] as const
const B = [47.20258190468824187, 976.09855173777669322, 10260.932208618978205, 45507.789335026729956] as const
// 0.66291 < |x| ≤ sqrt(32).
const C = [
  0.39894151208813466764, 8.8831497943883759412, 93.506656132177855979, 597.27027639480026226, 2494.5375852903726711,
  6848.1904505362823326, 11602.651437647350124, 9842.7148383839780218, 1.0765576773720192317e-8,
] as const
const Dc = [
  22.266688044328115691, 235.38790178262499861, 1519.377599407554805, 6485.558298266760755, 18615.571640885098091,
  34900.952721145977266, 38912.003286093271411, 19685.429676859990727,
] as const
// |x| > sqrt(32).
const P = [0.21589853405795699, 0.1274011611602473639, 0.022235277870649807, 0.001421619193227893466, 2.9112874951168792e-5, 0.02307344176494017303] as const
const Q = [1.28426009614491121, 0.468238212480865118, 0.0659881378689285515, 0.00378239633202758244, 7.29751555083966205e-5] as const

const SMALL = 0.66291
const MEDIUM = Math.sqrt(32)
// Beyond this the lower tail underflows a double.
const TAIL_CUTOFF = 38.5

export function normPdf(x: number): number {
  return INV_SQRT_2PI * Math.exp(-0.5 * x * x)
}

/** e^(−y²/2) with y split at 1/16ths so the large square does not lose the low bits of y. */
function gaussTail(y: number): number {
  const ysq = Math.trunc(y * 16) / 16
  const del = (y - ysq) * (y + ysq)
  return Math.exp(-ysq * ysq * 0.5) * Math.exp(-del * 0.5)
}

/** Upper-tail probability Q(y) = 1 − Φ(y) for y > SMALL. */
function upperTail(y: number): number {
  if (y > TAIL_CUTOFF) return 0
  let ratio: number
  if (y <= MEDIUM) {
    let num = C[8] * y
    let den = y
    for (let i = 0; i < 7; i++) {
      num = (num + (C[i] as number)) * y
      den = (den + (Dc[i] as number)) * y
    }
    ratio = (num + C[7]) / (den + Dc[7])
  } else {
    const xsq = 1 / (y * y)
    let num = P[5] * xsq
    let den = xsq
    for (let i = 0; i < 4; i++) {
      num = (num + (P[i] as number)) * xsq
      den = (den + (Q[i] as number)) * xsq
    }
    ratio = (INV_SQRT_2PI - (xsq * (num + P[4])) / (den + Q[4])) / y
  }
  return gaussTail(y) * ratio
}

/** Φ(x), relative error near double precision across the whole line (including the far tails). */
export function normCdf(x: number): number {
  if (Number.isNaN(x)) return NaN
  const y = Math.abs(x)
  if (y <= SMALL) {
    const xsq = x * x
    let num = A[4] * xsq
    let den = xsq
    for (let i = 0; i < 3; i++) {
      num = (num + (A[i] as number)) * xsq
      den = (den + (B[i] as number)) * xsq
    }
    return 0.5 + (x * (num + A[3])) / (den + B[3])
  }
  const tail = upperTail(y)
  return x > 0 ? 1 - tail : tail
}

export interface Black76Input {
  forward: number
  strike: number
  timeYears: number
  vol: number
  rate: number
  isCall: boolean
}

export type ImpliedVolInput = Omit<Black76Input, 'vol'> & { price: number }

export const MIN_IMPLIED_VOL = 1e-4
export const MAX_IMPLIED_VOL = 5
const VOL_TOLERANCE = 1e-13

/** The forward implied by a spot and a continuously compounded rate: spot·e^(rT). */
export function syntheticForward(spot: number, rate: number, timeYears: number): number {
  return spot * Math.exp(rate * timeYears)
}

function assertInput({ forward, strike, timeYears, rate }: Omit<Black76Input, 'vol' | 'isCall'>): void {
  if (!(forward > 0) || !Number.isFinite(forward)) throw new RangeError(`black76: forward must be positive: ${forward}`)
  if (!(strike > 0) || !Number.isFinite(strike)) throw new RangeError(`black76: strike must be positive: ${strike}`)
  if (!Number.isFinite(timeYears)) throw new RangeError(`black76: timeYears must be finite: ${timeYears}`)
  if (!Number.isFinite(rate)) throw new RangeError(`black76: rate must be finite: ${rate}`)
}

/** e^(−rT), with time past expiry treated as expiry. */
function discount(rate: number, timeYears: number): number {
  return Math.exp(-rate * Math.max(timeYears, 0))
}

/** Total standard deviation σ√T, or 0 when the option is at or past expiry or has no vol. */
function stdDev(vol: number, timeYears: number): number {
  if (!Number.isFinite(vol) || vol < 0) throw new RangeError(`black76: vol must be non-negative: ${vol}`)
  return timeYears > 0 ? vol * Math.sqrt(timeYears) : 0
}

/** Discounted option value. With no time or no vol left it is the discounted intrinsic value. */
export function black76Price(input: Black76Input): number {
  assertInput(input)
  const { forward: f, strike: k, timeYears, vol, rate, isCall } = input
  const df = discount(rate, timeYears)
  const s = stdDev(vol, timeYears)
  if (s === 0) return df * Math.max(isCall ? f - k : k - f, 0)
  const d1 = Math.log(f / k) / s + s / 2
  const d2 = d1 - s
  return isCall ? df * (f * normCdf(d1) - k * normCdf(d2)) : df * (k * normCdf(-d2) - f * normCdf(-d1))
}

/**
 * Discounted forward delta ∂V/∂F: e^(−rT)·N(d1) for a call, −e^(−rT)·N(−d1) for a put. With no time
 * or vol left it is the limit: ±e^(−rT) in the money, 0 out of it, ±½e^(−rT) exactly at the money.
 */
export function black76Delta(input: Black76Input): number {
  assertInput(input)
  const { forward: f, strike: k, timeYears, vol, rate, isCall } = input
  const df = discount(rate, timeYears)
  const s = stdDev(vol, timeYears)
  if (s === 0) {
    const inTheMoney = isCall ? f > k : f < k
    const limit = inTheMoney ? 1 : f === k ? 0.5 : 0
    return isCall ? df * limit : limit === 0 ? 0 : -df * limit
  }
  const d1 = Math.log(f / k) / s + s / 2
  // N(−d1) directly rather than 1 − N(d1), which would lose a deep out-of-the-money put's delta.
  return isCall ? df * normCdf(d1) : -df * normCdf(-d1)
}

/** ∂V/∂σ, used as the Newton step of the implied-vol solver. */
function black76Vega(f: number, k: number, timeYears: number, vol: number, df: number): number {
  const s = vol * Math.sqrt(timeYears)
  return df * f * normPdf(Math.log(f / k) / s + s / 2) * Math.sqrt(timeYears)
}

/**
 * The vol in [1e-4, 5] that reproduces `price`, to about 1e-13 in vol. Null when the price breaks
 * the no-arbitrage bounds (at or below discounted intrinsic, which means zero vol, or above the
 * discounted forward for a call or strike for a put), when it lies outside what vols in [1e-4, 5]
 * produce, or when T ≤ 0 (no vol is defined at expiry). Safeguarded Newton: a Newton step when it
 * stays inside the bracket, bisection otherwise, so it always converges.
 */
export function impliedVol(input: ImpliedVolInput): number | null {
  assertInput(input)
  const { price, forward: f, strike: k, timeYears, rate, isCall } = input
  if (!Number.isFinite(price) || !(timeYears > 0)) return null
  const df = discount(rate, timeYears)
  const lower = df * Math.max(isCall ? f - k : k - f, 0)
  const upper = df * (isCall ? f : k)
  if (price <= lower || price > upper) return null
  const priceAt = (vol: number): number => black76Price({ forward: f, strike: k, timeYears, vol, rate, isCall })
  let lo = MIN_IMPLIED_VOL
  let hi = MAX_IMPLIED_VOL
  const fLo = priceAt(lo) - price
  const fHi = priceAt(hi) - price
  if (fLo > 0 || fHi < 0) return null
  if (fLo === 0) return lo
  if (fHi === 0) return hi
  // Brenner–Subrahmanyam's at-the-money estimate is a good first guess; the bracket keeps it sane.
  const guess = (price / (df * f)) * Math.sqrt((2 * Math.PI) / timeYears)
  let vol = guess > lo && guess < hi ? guess : 0.5 * (lo + hi)
  for (let i = 0; i < 200; i++) {
    const diff = priceAt(vol) - price
    if (diff === 0) return vol
    // Price increases with vol, so the sign of the error says which side the root is on.
    if (diff > 0) hi = vol
    else lo = vol
    const vega = black76Vega(f, k, timeYears, vol, df)
    const newton = vol - diff / vega
    const next = vega > 0 && newton > lo && newton < hi ? newton : 0.5 * (lo + hi)
    if (Math.abs(next - vol) < VOL_TOLERANCE || hi - lo < VOL_TOLERANCE) return next
    vol = next
  }
  return vol
}
