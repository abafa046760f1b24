import { describe, expect, it } from 'vitest'
import { D } from '../../src/domain/decimal.js'
import { black76Delta, black76Price } from '../../src/domain/pricing/black76.js'
import { optionMark, type OptionMarkInput } from '../../src/domain/pricing/optionPrice.js'

const tick = new D('0.0001')
const base: OptionMarkInput = {
  forward: 101000,
  strike: 100000,
  timeYears: 0.25,
  vol: 0.6,
  rate: 0.04,
  isCall: true,
  indexSpot: 99000,
  tick,
}

describe('optionMark', () => {
  // Expected values: an independent mpmath Black-76 value divided by the index spot, then rounded.
  it.each<[number, boolean, string]>([
    [100000, true, '0.1249'], // 12365.42 USDC / 99000 = 0.124903…
    [100000, false, '0.1149'], // 11375.37 / 99000 = 0.114903…
    [80000, false, '0.0335'], // 3319.72 / 99000 = 0.033532…
    [130000, true, '0.0381'], // 3775.55 / 99000 = 0.038137…
    [200000, true, '0.0017'], // 163.64 / 99000 = 0.001653…
  ])('K=%s call=%s marks at %s BTC', (strike, isCall, expected) => {
    const mark = optionMark({ ...base, strike, isCall })
    expect(mark.price.toFixed()).toBe(expected)
  })

  it('returns the price as a D on the tick, the input vol as iv and the Black-76 delta', () => {
    const mark = optionMark(base)
    expect(mark.price.constructor).toBe(D)
    expect(mark.price.div(tick).isInteger()).toBe(true)
    expect(mark.iv).toBe(0.6)
    expect(mark.delta).toBe(black76Delta(base))
  })

  it('pays back the USDC value within half a tick when multiplied by the index spot', () => {
    for (const strike of [60000, 90000, 100000, 110000, 140000]) {
      for (const isCall of [true, false]) {
        const input = { ...base, strike, isCall }
        const mark = optionMark(input)
        const premium = mark.price.times(input.indexSpot).toNumber()
        expect(Math.abs(premium - black76Price(input))).toBeLessThanOrEqual((0.0001 / 2) * input.indexSpot + 1e-9)
      }
    }
  })

  it.each<[string, Partial<OptionMarkInput>, string]>([
    ['a far out-of-the-money call worth under half a tick marks at 0', { strike: 400000, timeYears: 0.02 }, '0'],
    ['an expired out-of-the-money call marks at 0', { strike: 110000, timeYears: 0 }, '0'],
    // 100005 − 100000 = 5 USDC, / 100000 = 0.00005: exactly half a tick, away from zero.
    ['half a tick rounds up to one tick', { forward: 100005, strike: 100000, timeYears: 0, indexSpot: 100000 }, '0.0001'],
    // 4 USDC / 100000 = 0.00004: under half a tick, not lifted to one tick.
    ['under half a tick rounds to 0', { forward: 100004, strike: 100000, timeYears: 0, indexSpot: 100000 }, '0'],
    // 10000 USDC intrinsic / 100000 spot.
    ['an expired in-the-money put is its intrinsic value in BTC', { forward: 90000, strike: 100000, timeYears: 0, isCall: false, indexSpot: 100000 }, '0.1'],
    ['a coarser tick', { tick: new D('0.005') }, '0.125'],
  ])('%s', (_label, overrides, expected) => {
    expect(optionMark({ ...base, ...overrides }).price.toFixed()).toBe(expected)
  })

  it('is never negative', () => {
    for (const strike of [10000, 100000, 1000000]) {
      for (const isCall of [true, false]) {
        expect(optionMark({ ...base, strike, isCall, rate: 0.5, timeYears: 3 }).price.isNegative()).toBe(false)
      }
    }
  })

  it.each([0, -1, NaN, Infinity])('rejects an index spot of %s', (indexSpot) => {
    expect(() => optionMark({ ...base, indexSpot })).toThrow(RangeError)
  })
})
