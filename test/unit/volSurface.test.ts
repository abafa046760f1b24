import { describe, expect, it } from 'vitest'
import { DEFAULT_MAX_VOL, DEFAULT_MIN_VOL, smileVol, type SmileParams } from '../../src/domain/pricing/volSurface.js'

const flat: SmileParams = { atmVol: 0.6, skew: 0, smile: 0 }

describe('smileVol', () => {
  it.each<[string, SmileParams, number, number, number, number]>([
    ['at the money it is the ATM vol', { atmVol: 0.6, skew: -0.1, smile: 0.05 }, 100, 100, 0.25, 0.6],
    ['a flat surface is flat', flat, 100, 150, 1, 0.6],
    // m = ln(1.2)/√0.25 = 0.364643…, vol = 0.6 − 0.1·m + 0.05·m²
    ['the formula off the money', { atmVol: 0.6, skew: -0.1, smile: 0.05 }, 100, 120, 0.25, 0.5701839186555633],
    ['skew only', { atmVol: 0.5, skew: 0.2, smile: 0 }, 100, 100 * Math.exp(0.1), 1, 0.52],
    ['smile only', { atmVol: 0.5, skew: 0, smile: 0.5 }, 100, 100 * Math.exp(-0.2), 1, 0.52],
  ])('%s', (_label, params, forward, strike, timeYears, expected) => {
    expect(smileVol(params, forward, strike, timeYears)).toBeCloseTo(expected, 12)
  })

  it('is symmetric in log-moneyness without skew', () => {
    const params = { atmVol: 0.5, skew: 0, smile: 0.3 }
    for (const x of [0.05, 0.2, 0.5]) {
      expect(smileVol(params, 100, 100 * Math.exp(x), 0.5)).toBeCloseTo(smileVol(params, 100, 100 * Math.exp(-x), 0.5), 14)
      expect(smileVol(params, 100, 100 * Math.exp(x), 0.5)).toBeGreaterThan(0.5)
    }
  })

  it.each<[number, 'lower' | 'higher']>([
    [-0.1, 'lower'],
    [0.1, 'higher'],
  ])('with skew %s the dearer wing is the %s strikes', (skew, dearer) => {
    const params = { atmVol: 0.5, skew, smile: 0 }
    const low = smileVol(params, 100, 80, 0.5)
    const high = smileVol(params, 100, 125, 0.5)
    if (dearer === 'lower') expect(low).toBeGreaterThan(high)
    else expect(high).toBeGreaterThan(low)
  })

  it('scales moneyness by √T, so the same strike is nearer the money further out', () => {
    const params = { atmVol: 0.5, skew: -0.1, smile: 0 }
    expect(smileVol(params, 100, 80, 0.1)).toBeGreaterThan(smileVol(params, 100, 80, 1))
  })

  it('floors the scaling time at one day', () => {
    const params = { atmVol: 0.5, skew: -0.02, smile: 0.01 }
    const oneDay = smileVol(params, 100, 95, 1 / 365)
    expect(smileVol(params, 100, 95, 0)).toBe(oneDay)
    expect(smileVol(params, 100, 95, 1e-6)).toBe(oneDay)
    expect(smileVol(params, 100, 95, -1)).toBe(oneDay)
  })

  it.each<[string, SmileParams, number, number]>([
    ['to the default ceiling', { atmVol: 0.5, skew: 0, smile: 10 }, 300, DEFAULT_MAX_VOL],
    ['to the default floor', { atmVol: 0.5, skew: -5, smile: 0 }, 200, DEFAULT_MIN_VOL],
    ['a too-low ATM vol to the floor', { atmVol: 0.01, skew: 0, smile: 0 }, 100, DEFAULT_MIN_VOL],
    ['to a custom ceiling', { atmVol: 0.5, skew: 0, smile: 10, maxVol: 1.2 }, 300, 1.2],
    ['to a custom floor', { atmVol: 0.1, skew: 0, smile: 0, minVol: 0.2 }, 100, 0.2],
  ])('clamps %s', (_label, params, strike, expected) => {
    expect(smileVol(params, 100, strike, 0.25)).toBe(expected)
  })

  it('never leaves [minVol, maxVol] across strikes and times', () => {
    const params = { atmVol: 0.8, skew: -0.3, smile: 0.4, minVol: 0.1, maxVol: 2 }
    for (const strike of [1, 10, 50, 90, 100, 110, 200, 1000, 1e6]) {
      for (const t of [0, 0.001, 0.1, 1, 5]) {
        const v = smileVol(params, 100, strike, t)
        expect(v).toBeGreaterThanOrEqual(0.1)
        expect(v).toBeLessThanOrEqual(2)
      }
    }
  })

  it.each<[string, SmileParams, number, number, number]>([
    ['a zero forward', flat, 0, 100, 1],
    ['a negative strike', flat, 100, -1, 1],
    ['a NaN time', flat, 100, 100, NaN],
    ['a NaN ATM vol', { ...flat, atmVol: NaN }, 100, 100, 1],
    ['minVol above maxVol', { ...flat, minVol: 2, maxVol: 1 }, 100, 100, 1],
    ['a zero minVol', { ...flat, minVol: 0 }, 100, 100, 1],
  ])('rejects %s', (_label, params, forward, strike, timeYears) => {
    expect(() => smileVol(params, forward, strike, timeYears)).toThrow(RangeError)
  })
})
