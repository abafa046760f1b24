// priceTicks and quantityLots decide small plain decimals in doubles (positiveCount) and the rest with
// Decimal: for any input they must answer what the Decimal path alone answers, count or refusal.
import { describe, expect, it } from 'vitest'
import { D, parseDecimal, positiveCount, toScaled } from '../../src/domain/decimal.js'
import { DomainError } from '../../src/domain/errors.js'
import type { MarketSpec } from '../../src/domain/market.js'
import { priceTicks, quantityLots } from '../../src/domain/orders.js'

/** The Decimal path alone, as both functions were before the double path. */
function ticksByDecimal(value: unknown, tick: string): number | null {
  const d = parseDecimal(value)
  const t = d && d.gt(0) ? toScaled(d, D(tick)) : null
  return t === null || t <= 0 ? null : t
}
function lotsByDecimal(value: unknown, step: string, min: string): number | null {
  const d = parseDecimal(value)
  const l = d && d.gt(0) ? toScaled(d, D(step)) : null
  return l === null || l <= 0 || d!.lt(D(min)) ? null : l
}

const answer = (f: () => number | null): number | null | string => {
  try {
    return f()
  } catch (err) {
    if (err instanceof DomainError) return err.code
    throw err
  }
}

/** A deterministic generator (no randomness between runs). */
function* values(): Generator<string> {
  let x = 0x2545f491
  const next = () => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) / 2 ** 32
  }
  const digits = (n: number) => Array.from({ length: n }, () => Math.floor(next() * 10)).join('')
  for (let i = 0; i < 3_000; i++) {
    const intLen = Math.floor(next() * 18)
    const fracLen = Math.floor(next() * 19)
    let int = intLen === 0 ? '0' : String(1 + Math.floor(next() * 9)) + digits(intLen - 1)
    if (next() < 0.1) int = '0' + int // not a wire decimal
    let frac = fracLen === 0 ? '' : `.${digits(fracLen)}`
    if (next() < 0.3) frac = frac.replace(/\d+$/, (d) => d.replace(/\d$/, '0').replace(/[1-9]/g, () => (next() < 0.7 ? '0' : '5')))
    yield (next() < 0.05 ? '-' : '') + int + frac
  }
  yield* ['0', '0.0', '-0', '1', '1.', '.5', '1e3', ' 1', '1 ', '0.5', '100000', '100000.5', '99999.25', '0.001', '0.0005', '9007199254740993', '9007199254740992', '900719925474099.3', '123456789012345', '1234567890123456', '0.000000000000001', '00.5', '+1', 'NaN', 'Infinity', '']
}

const units = ['0.5', '0.01', '1', '0.001', '0.0001', '5', '0.1', '0.00001', '25', '0.000000001', '0.25', '10', '0.0000000000000001', '123456789012345']
const mins = ['0.001', '0', '1', '0.0001', '0.00000000000000001', '5']

describe('ticks and lots of a decimal', () => {
  it('answer as the Decimal path does, for every value, tick, step and minimum', () => {
    const spec = (tick: string, step: string, min: string) => ({ tickSize: tick, stepSize: step, minQuantity: min }) as MarketSpec
    let decided = 0
    let inDoubles = 0
    for (const v of values()) {
      for (const [i, unit] of units.entries()) {
        const m = spec(unit, unit, mins[i % mins.length]!)
        expect(answer(() => priceTicks(m, v)), `${v} on ${unit}`).toEqual(answer(() => ticksByDecimal(v, unit)) ?? 'INVALID_PRICE')
        expect(answer(() => quantityLots(m, v)), `${v} by ${unit} from ${m.minQuantity}`).toEqual(answer(() => lotsByDecimal(v, unit, m.minQuantity)) ?? 'INVALID_QUANTITY')
        if (ticksByDecimal(v, unit) !== null) decided++
        if (positiveCount(v, unit) !== undefined) inDoubles++
      }
    }
    // The walk reaches values on the tick, not only refusals, and both paths.
    expect(decided).toBeGreaterThan(300)
    expect(inDoubles).toBeGreaterThan(5_000)
    for (const v of [undefined, null, 5, {}, ['1']] as unknown[]) {
      const m = spec('0.5', '0.001', '0.001')
      expect(answer(() => quantityLots(m, v))).toBe('INVALID_QUANTITY')
      expect(answer(() => priceTicks(m, v))).toBe(v === undefined || v === null ? null : 'INVALID_PRICE')
    }
  })
})
