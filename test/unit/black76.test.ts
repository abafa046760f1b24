import { describe, expect, it } from 'vitest'
import {
  MAX_IMPLIED_VOL,
  black76Delta,
  black76Price,
  impliedVol,
  normCdf,
  normPdf,
  syntheticForward,
  type Black76Input,
} from '../../src/domain/pricing/black76.js'

const relClose = (actual: number, expected: number, rel: number): void => {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(rel * Math.max(Math.abs(expected), Number.MIN_VALUE))
}

describe('normCdf', () => {
  // Reference values from mpmath.ncdf at 40 digits.
  it.each<[number, number]>([
    [0, 0.5],
    [0.5, 0.6914624612740131],
    [-0.5, 0.3085375387259869],
    [1, 0.8413447460685429],
    [-1, 0.15865525393145705],
    [1.96, 0.9750021048517795],
    [-1.96, 0.024997895148220435],
    [3, 0.9986501019683699],
    [-3, 0.0013498980316300946],
    [6, 0.9999999990134123],
    [-6, 9.86587645037698e-10],
    [-10, 7.619853024160525e-24],
    [-20, 2.7536241186062337e-89],
    [-37.5, 4.605353009581955e-308],
  ])('Φ(%s) = %s to 1e-14 relative', (x, expected) => {
    relClose(normCdf(x), expected, 1e-14)
  })

  it('saturates in the far tails', () => {
    expect(normCdf(-40)).toBe(0)
    expect(normCdf(40)).toBe(1)
    expect(normCdf(-Infinity)).toBe(0)
    expect(normCdf(Infinity)).toBe(1)
    expect(normCdf(NaN)).toBeNaN()
  })

  it('is symmetric and increasing', () => {
    let prev = 0
    for (let x = -8; x <= 8; x += 0.01) {
      expect(normCdf(x) + normCdf(-x)).toBeCloseTo(1, 15)
      expect(normCdf(x)).toBeGreaterThanOrEqual(prev)
      prev = normCdf(x)
    }
  })

  it('normPdf(0) = 1/√(2π)', () => {
    expect(normPdf(0)).toBeCloseTo(1 / Math.sqrt(2 * Math.PI), 16)
  })
})

describe('black76Price', () => {
  // Reference values from an independent mpmath implementation at 30 digits.
  it.each<[number, number, number, number, number, number, number]>([
    [100, 100, 1, 0.2, 0, 7.965567455405797, 7.965567455405797],
    [100, 110, 0.5, 0.3, 0.05, 4.62851246261809, 14.381611582901417],
    [90000, 120000, 0.1, 0.6, 0.04, 552.8107454802397, 30433.050425799986],
    [3, 2, 2, 1.5, 0.01, 2.2539406671518676, 1.2737419938451122],
  ])('F=%s K=%s T=%s σ=%s r=%s: call %s, put %s', (forward, strike, timeYears, vol, rate, call, put) => {
    relClose(black76Price({ forward, strike, timeYears, vol, rate, isCall: true }), call, 1e-13)
    relClose(black76Price({ forward, strike, timeYears, vol, rate, isCall: false }), put, 1e-13)
  })

  it('matches Black–Scholes on a spot via the synthetic forward (Hull: S=42, K=40, r=10%, σ=20%, T=0.5)', () => {
    const forward = syntheticForward(42, 0.1, 0.5)
    const base = { forward, strike: 40, timeYears: 0.5, vol: 0.2, rate: 0.1 }
    relClose(black76Price({ ...base, isCall: true }), 4.759422392871533, 1e-13)
    relClose(black76Price({ ...base, isCall: false }), 0.8085993729000936, 1e-13)
  })

  it('satisfies put–call parity C − P = e^(−rT)(F − K) over a grid', () => {
    for (const strike of [50, 80, 100, 125, 200]) {
      for (const timeYears of [0.001, 0.1, 1, 3]) {
        for (const vol of [0.01, 0.3, 1.5]) {
          for (const rate of [0, 0.04, -0.01]) {
            const base = { forward: 100, strike, timeYears, vol, rate }
            const diff = black76Price({ ...base, isCall: true }) - black76Price({ ...base, isCall: false })
            expect(diff).toBeCloseTo(Math.exp(-rate * timeYears) * (100 - strike), 11)
          }
        }
      }
    }
  })

  it('lies within the no-arbitrage bounds and increases with vol', () => {
    for (const strike of [50, 100, 200]) {
      for (const isCall of [true, false]) {
        let prev = -1
        for (const vol of [0.05, 0.1, 0.3, 0.6, 1, 2, 4]) {
          const p = black76Price({ forward: 100, strike, timeYears: 1, vol, rate: 0.04, isCall })
          const df = Math.exp(-0.04)
          expect(p).toBeGreaterThanOrEqual(df * Math.max(isCall ? 100 - strike : strike - 100, 0) - 1e-12)
          expect(p).toBeLessThanOrEqual(df * (isCall ? 100 : strike))
          expect(p).toBeGreaterThan(prev)
          prev = p
        }
      }
    }
  })

  it.each<[string, Partial<Black76Input>, number]>([
    ['T = 0, call in the money', { timeYears: 0, strike: 90 }, 10],
    ['T = 0, call out of the money', { timeYears: 0, strike: 110 }, 0],
    ['T = 0, put in the money', { timeYears: 0, strike: 110, isCall: false }, 10],
    ['T < 0 is treated as expired, undiscounted', { timeYears: -0.1, strike: 90, rate: 0.5 }, 10],
    ['vol = 0, call in the money, discounted', { vol: 0, strike: 90, rate: 0.04 }, 10 * Math.exp(-0.04)],
    ['vol = 0, put out of the money', { vol: 0, strike: 90, isCall: false }, 0],
    ['vol = 0, at the money', { vol: 0, strike: 100 }, 0],
  ])('expiry limit: %s', (_label, overrides, expected) => {
    const input: Black76Input = { forward: 100, strike: 100, timeYears: 1, vol: 0.5, rate: 0, isCall: true, ...overrides }
    expect(black76Price(input)).toBeCloseTo(expected, 12)
  })

  it('converges to intrinsic value as T → 0', () => {
    for (const [strike, isCall, intrinsic] of [[90, true, 10], [110, true, 0], [110, false, 10], [90, false, 0]] as const) {
      const p = black76Price({ forward: 100, strike, timeYears: 1e-9, vol: 0.8, rate: 0, isCall })
      expect(p).toBeCloseTo(intrinsic, 12)
    }
    // At the money the value shrinks like 0.4·F·σ·√T.
    const atm = black76Price({ forward: 100, strike: 100, timeYears: 1e-8, vol: 0.8, rate: 0, isCall: true })
    expect(atm).toBeCloseTo(100 * 0.8 * 1e-4 / Math.sqrt(2 * Math.PI), 9)
  })

  it.each<[string, Partial<Black76Input>]>([
    ['a zero forward', { forward: 0 }],
    ['a negative strike', { strike: -1 }],
    ['a NaN time', { timeYears: NaN }],
    ['a negative vol', { vol: -0.1 }],
    ['an infinite rate', { rate: Infinity }],
  ])('rejects %s', (_label, overrides) => {
    const input: Black76Input = { forward: 100, strike: 100, timeYears: 1, vol: 0.5, rate: 0, isCall: true, ...overrides }
    expect(() => black76Price(input)).toThrow(RangeError)
    expect(() => black76Delta(input)).toThrow(RangeError)
  })
})

describe('black76Delta', () => {
  it.each<[number, number, number, number, number, number, number]>([
    [100, 100, 1, 0.2, 0, 0.539827837277029, -0.460172162722971],
    [100, 110, 0.5, 0.3, 0.05, 0.35668306364318114, -0.6186268483851515],
    [90000, 120000, 0.1, 0.6, 0.04, 0.07729780535424714, -0.9187101839897444],
  ])('F=%s K=%s T=%s σ=%s r=%s: call %s, put %s', (forward, strike, timeYears, vol, rate, call, put) => {
    relClose(black76Delta({ forward, strike, timeYears, vol, rate, isCall: true }), call, 1e-13)
    relClose(black76Delta({ forward, strike, timeYears, vol, rate, isCall: false }), put, 1e-13)
  })

  it('is bounded, signed, and call − put = e^(−rT), and matches a finite difference of the price', () => {
    for (const strike of [50, 90, 100, 110, 200]) {
      for (const timeYears of [0.01, 0.5, 2]) {
        for (const vol of [0.1, 0.8]) {
          const base = { forward: 100, strike, timeYears, vol, rate: 0.04 }
          const df = Math.exp(-0.04 * timeYears)
          const call = black76Delta({ ...base, isCall: true })
          const put = black76Delta({ ...base, isCall: false })
          expect(call).toBeGreaterThanOrEqual(0)
          expect(call).toBeLessThanOrEqual(df)
          expect(put).toBeLessThanOrEqual(0)
          expect(put).toBeGreaterThanOrEqual(-df)
          expect(call - put).toBeCloseTo(df, 14)
          const h = 1e-4
          const fd =
            (black76Price({ ...base, forward: 100 + h, isCall: true }) - black76Price({ ...base, forward: 100 - h, isCall: true })) / (2 * h)
          expect(call).toBeCloseTo(fd, 6)
        }
      }
    }
  })

  it.each<[number, boolean, number]>([
    [90, true, 1],
    [110, true, 0],
    [100, true, 0.5],
    [90, false, 0],
    [110, false, -1],
    [100, false, -0.5],
  ])('at expiry, K=%s call=%s has delta %s (F=100)', (strike, isCall, expected) => {
    expect(black76Delta({ forward: 100, strike, timeYears: 0, vol: 0.5, rate: 0.04, isCall })).toBe(expected)
    expect(black76Delta({ forward: 100, strike, timeYears: 1, vol: 0, rate: 0, isCall })).toBe(expected)
  })
})

describe('impliedVol', () => {
  it('round-trips to 1e-8 over a grid', () => {
    const failures: string[] = []
    let checked = 0
    for (const strike of [60, 80, 95, 100, 105, 125, 160]) {
      for (const timeYears of [1 / 365, 0.02, 0.1, 0.5, 1, 3]) {
        for (const vol of [0.05, 0.15, 0.4, 0.8, 1.5, 3]) {
          for (const rate of [0, 0.04]) {
            for (const isCall of [true, false]) {
              const base = { forward: 100, strike, timeYears, rate, isCall }
              const price = black76Price({ ...base, vol })
              const intrinsic = Math.exp(-rate * timeYears) * Math.max(isCall ? 100 - strike : strike - 100, 0)
              // Skip cases where the price, as a double, does not pin vol down to 1e-8: no visible time
              // value, or a vol change of 1e-9 moves the price by less than a few ulps.
              const h = vol * 1e-6
              const vega = (black76Price({ ...base, vol: vol + h }) - black76Price({ ...base, vol: vol - h })) / (2 * h)
              if (price - intrinsic < 1e-9 || vega * 1e-9 < 8 * Number.EPSILON * price) continue
              checked += 1
              const iv = impliedVol({ ...base, price })
              if (iv === null || Math.abs(iv - vol) > 1e-8) failures.push(`${JSON.stringify(base)} vol=${vol} → ${iv}`)
            }
          }
        }
      }
    }
    expect(failures).toEqual([])
    expect(checked).toBeGreaterThan(800)
  })

  it('recovers the reference vol from the reference price', () => {
    const iv = impliedVol({ price: 7.965567455405797, forward: 100, strike: 100, timeYears: 1, rate: 0, isCall: true })
    expect(iv).toBeCloseTo(0.2, 12)
  })

  it('solves the solver bounds themselves', () => {
    const base = { forward: 100, strike: 100, timeYears: 1, rate: 0, isCall: true }
    expect(impliedVol({ ...base, price: black76Price({ ...base, vol: MAX_IMPLIED_VOL }) })).toBeCloseTo(MAX_IMPLIED_VOL, 10)
    expect(impliedVol({ ...base, price: black76Price({ ...base, vol: 1e-4 }) })).toBeCloseTo(1e-4, 10)
  })

  const base = { forward: 100, timeYears: 1, rate: 0.04 }
  const df = Math.exp(-0.04)
  it.each<[string, number, number, boolean]>([
    ['a call below discounted intrinsic', 90, 10 * df - 0.01, true],
    ['a call exactly at intrinsic (zero vol)', 90, 10 * df, true],
    ['a call above the discounted forward', 90, 100 * df + 0.01, true],
    ['a put below discounted intrinsic', 110, 10 * df - 0.01, false],
    ['a put above the discounted strike', 110, 110 * df + 0.01, false],
    ['an out-of-the-money call at zero', 110, 0, true],
    ['a negative price', 110, -1, true],
    ['a NaN price', 100, NaN, true],
    ['a price needing more than 500% vol', 100, 99 * df, true],
    ['a price needing less than 0.01% vol', 100, 1e-6, true],
  ])('is null for %s', (_label, strike, price, isCall) => {
    expect(impliedVol({ ...base, strike, price, isCall })).toBeNull()
  })

  it.each([0, -1])('is null at or past expiry (T = %s)', (timeYears) => {
    expect(impliedVol({ price: 1, forward: 100, strike: 100, timeYears, rate: 0, isCall: true })).toBeNull()
  })
})

describe('syntheticForward', () => {
  it.each<[number, number, number, number]>([
    [100, 0.04, 0, 100],
    [100, 0, 2, 100],
    [100, 0.04, 1, 100 * Math.exp(0.04)],
    [60000, 0.04, 0.25, 60000 * Math.exp(0.01)],
    [100, -0.02, 0.5, 100 * Math.exp(-0.01)],
  ])('spot %s, r %s, T %s → %s', (spot, rate, timeYears, expected) => {
    expect(syntheticForward(spot, rate, timeYears)).toBeCloseTo(expected, 9)
  })
})
