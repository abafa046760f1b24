// Exact decimal handling at the boundaries: the project's Decimal constructor, strict wire parsing,
// canonical formatting, conversion to scaled integers (ticks, lots) and to bigint micro-USDC, and
// rounding of model floats onto a tick. The engine works in integers; this module is the only
// place where decimal strings and floats are turned into them.
import { Decimal } from 'decimal.js'

// 80 significant digits is far beyond any price × quantity we hold, so money math never rounds
// silently; the exponent limits keep toString() in plain notation.
export const D = Decimal.clone({
  precision: 80,
  rounding: Decimal.ROUND_HALF_EVEN,
  toExpNeg: -100,
  toExpPos: 100,
})
export type D = Decimal
export type { Decimal }

export const MAX_DECIMAL_LENGTH = 64
const DECIMAL_GRAMMAR = /^-?(0|[1-9]\d*)(\.\d+)?$/

export const MICRO = 1_000_000n
const MICRO_DIGITS = 6

// decimal.js computes at the precision of an instance's own constructor; re-wrapping (an exact copy)
// makes a Decimal from another clone compute at D's precision.
function own(d: Decimal): Decimal {
  return d.constructor === D ? d : new D(d)
}

function stripNegativeZero(d: Decimal): Decimal {
  return d.isZero() && d.isNegative() ? new D(0) : d
}

/** Strict wire parser: only plain decimal strings; "-0" parses to 0. Anything else is null. */
export function parseDecimal(input: unknown): Decimal | null {
  if (typeof input !== 'string') return null
  if (input.length === 0 || input.length > MAX_DECIMAL_LENGTH) return null
  if (!DECIMAL_GRAMMAR.test(input)) return null
  return stripNegativeZero(new D(input))
}

/**
 * Canonical wire form: plain notation, no trailing zeros, "-0" written "0". With `scale`, exactly
 * that many decimals, rounded half-even (callers pass values already on their tick or step).
 */
export function formatDecimal(value: Decimal | string | bigint, scale?: number): string {
  const d = Decimal.isDecimal(value) ? own(value) : new D(typeof value === 'bigint' ? value.toString() : value)
  if (!d.isFinite()) throw new RangeError(`formatDecimal: not finite: ${d.toString()}`)
  if (scale === undefined) return stripNegativeZero(d).toFixed()
  if (!Number.isInteger(scale) || scale < 0) throw new RangeError(`formatDecimal: bad scale ${scale}`)
  const rounded = d.toDecimalPlaces(scale, Decimal.ROUND_HALF_EVEN)
  return stripNegativeZero(rounded).toFixed(scale)
}

function assertUnit(unit: Decimal): Decimal {
  const u = own(unit)
  if (!u.isFinite() || u.lte(0)) throw new RangeError(`unit must be positive: ${u.toString()}`)
  return u
}

/** Integer count of `unit` in `d` (price → ticks, quantity → lots); null if not an exact safe multiple. */
export function toScaled(d: Decimal, unit: Decimal): number | null {
  const u = assertUnit(unit)
  const x = own(d)
  if (!x.isFinite()) return null
  const q = x.div(u)
  // The multiply-back guards against a quotient that only looks integral after rounding to 80 digits.
  if (!q.isInteger() || !q.times(u).eq(x)) return null
  if (q.abs().gt(Number.MAX_SAFE_INTEGER)) return null
  return q.isZero() ? 0 : q.toNumber()
}

// A plain non-negative wire decimal of at most 15 digits: its digits as an integer are exact in a double.
const SMALL_DECIMAL = /^(0|[1-9]\d*)(?:\.(\d+))?$/
let smallScale = 0

/** `s`'s digits as an integer (its scale left in smallScale), or -1 when it is not a small plain decimal. */
function smallDigits(s: string): number {
  if (s.length > 16) return -1 // 15 digits and the point
  const m = SMALL_DECIMAL.exec(s)
  if (!m) return -1
  const frac = m[2]
  if (frac === undefined) {
    if (s.length > 15) return -1
    smallScale = 0
    return Number(s)
  }
  smallScale = frac.length
  return Number(m[1]! + frac)
}

const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15]

/**
 * A wire decimal `value` as a count of `unit` where doubles decide it exactly: both plain decimals of at
 * most 15 digits and, brought to one scale, safe integers (their product by a power of ten is then exact).
 * Answers as `parseDecimal(value)` > 0 and `toScaled(that, D(unit))` do together: the count, or null
 * (not positive, or not a whole number of units); undefined when doubles cannot decide it, and the
 * caller takes the Decimal path. When `atLeast` is given, a value below it is null too.
 */
export function positiveCount(value: unknown, unit: string, atLeast?: string): number | null | undefined {
  if (typeof value !== 'string') return undefined
  let v = smallDigits(value)
  if (v < 0) return undefined
  const vScale = smallScale
  let u = smallDigits(unit)
  if (u <= 0) return undefined
  const uScale = smallScale
  const scale = Math.max(vScale, uScale)
  v *= POW10[scale - vScale]!
  u *= POW10[scale - uScale]!
  if (!Number.isSafeInteger(v) || !Number.isSafeInteger(u)) return undefined
  if (atLeast !== undefined) {
    let min = smallDigits(atLeast)
    if (min < 0 || smallScale > scale) return undefined
    min *= POW10[scale - smallScale]!
    if (!Number.isSafeInteger(min)) return undefined
    if (v < min) return null
  }
  if (v === 0 || v % u !== 0) return null
  return v / u
}

/** Inverse of toScaled: n units of `unit` as an exact Decimal. */
export function fromScaled(n: number | bigint, unit: Decimal): Decimal {
  if (typeof n === 'number' && !Number.isSafeInteger(n)) throw new RangeError(`fromScaled: not a safe integer: ${n}`)
  const u = assertUnit(unit)
  return stripNegativeZero(new D(n.toString()).times(u))
}

/** USDC amount → bigint micro-USDC. 'exact' returns null when d has more than 6 decimals. */
export function toMicro(d: Decimal, rounding: 'floor' | 'ceil' | 'exact'): bigint | null {
  const x = own(d)
  if (!x.isFinite()) return null
  const scaled = x.times(MICRO.toString())
  let whole: Decimal
  if (rounding === 'floor') whole = scaled.floor()
  else if (rounding === 'ceil') whole = scaled.ceil()
  else if (scaled.isInteger()) whole = scaled
  else return null
  return BigInt(whole.toFixed(0))
}

/** bigint micro-USDC → canonical decimal string (1500000n → "1.5", -1n → "-0.000001"). */
export function microToString(m: bigint): string {
  const sign = m < 0n ? '-' : ''
  const abs = m < 0n ? -m : m
  const whole = (abs / MICRO).toString()
  const frac = (abs % MICRO).toString().padStart(MICRO_DIGITS, '0').replace(/0+$/, '')
  return frac.length > 0 ? `${sign}${whole}.${frac}` : `${sign}${whole}`
}

/** Nearest multiple of `unit`, ties away from zero. */
export function quantize(d: Decimal, unit: Decimal): Decimal {
  const u = assertUnit(unit)
  const x = own(d)
  if (!x.isFinite()) throw new RangeError(`quantize: not finite: ${x.toString()}`)
  return stripNegativeZero(x.div(u).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).times(u))
}

/**
 * A pricing model's float onto the nearest tick, ties away from zero. The float is read through its
 * shortest round-trip decimal form (0.1 is "0.1"), so ties are judged on the value the model meant,
 * not on its binary approximation.
 */
export function roundToTick(price: number, tick: Decimal): Decimal {
  if (!Number.isFinite(price)) throw new RangeError(`roundToTick: not finite: ${price}`)
  return quantize(new D(price), tick)
}

/** A pricing model's float as an integer number of ticks (see roundToTick). */
export function ticksFromFloat(price: number, tick: Decimal): number {
  const ticks = toScaled(roundToTick(price, tick), tick)
  if (ticks === null) throw new RangeError(`ticksFromFloat: ${price} is beyond the safe integer range in ticks`)
  return ticks
}
