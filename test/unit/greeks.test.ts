// Black-76 sensitivities: the closed forms against finite differences of the price itself.
import { describe, expect, it } from 'vitest'
import { black76Price, type Black76Input } from '../../src/domain/pricing/black76.js'
import { black76Greeks } from '../../src/domain/pricing/greeks.js'

const base: Black76Input = { forward: 95_000, strike: 100_000, timeYears: 0.2, vol: 0.55, rate: 0.04, isCall: true }
const price = (i: Partial<Black76Input>) => black76Price({ ...base, ...i })

describe('black76Greeks', () => {
  it.each([
    ['an out-of-the-money call', {}],
    ['an in-the-money put', { isCall: false }],
    ['a short-dated at-the-money call', { strike: 95_000, timeYears: 3 / 365 }],
    ['a deep in-the-money put', { isCall: false, strike: 140_000, vol: 0.3 }],
  ])('match finite differences for %s', (_n, over: Partial<Black76Input>) => {
    const i = { ...base, ...over }
    const g = black76Greeks(i)
    const h = i.forward * 1e-4
    const up = price({ ...over, forward: i.forward + h })
    const down = price({ ...over, forward: i.forward - h })
    const mid = price(over)
    expect(g.delta).toBeCloseTo((up - down) / (2 * h), 6)
    expect(g.gamma / ((up - 2 * mid + down) / (h * h))).toBeCloseTo(1, 3)
    const dv = 1e-5
    expect(g.vega).toBeCloseTo(((price({ ...over, vol: i.vol + dv }) - price({ ...over, vol: i.vol - dv })) / (2 * dv)) / 100, 4)
    const dt = 1e-6
    const thetaPerYear = -(price({ ...over, timeYears: i.timeYears + dt }) - price({ ...over, timeYears: i.timeYears - dt })) / (2 * dt)
    expect(g.theta / (thetaPerYear / 365.25)).toBeCloseTo(1, 4)
  })

  it('leaves only the carry at expiry: no gamma, no vega, theta r·V a day', () => {
    const g = black76Greeks({ ...base, strike: 90_000, timeYears: 0 })
    expect(g).toEqual({ delta: 1, gamma: 0, vega: 0, theta: (0.04 * 5_000) / 365.25 })
  })
})
