import { describe, expect, it } from 'vitest'
import { DAY_MS, WEEK_MS } from '../../src/domain/calendar.js'
import { D } from '../../src/domain/decimal.js'
import { ROLL_WINDOW_MS, curveIndex, rollWeight } from '../../src/domain/pricing/curveIndex.js'

const F1_EXPIRY = Date.parse('2026-12-25T08:00:00Z')
const F2_EXPIRY = Date.parse('2027-03-26T08:00:00Z')
const F3_EXPIRY = Date.parse('2027-06-25T08:00:00Z')
const WINDOW_END = Date.parse('2026-12-18T08:00:00Z')
const WINDOW_START = Date.parse('2026-12-13T08:00:00Z')
const MID = (WINDOW_START + WINDOW_END) / 2

const formula = (tau: number, k = 3): number => (1 - Math.exp(-k * tau)) / (1 - Math.exp(-k))

describe('rollWeight', () => {
  it('puts the window at the 5 days ending a week before F1 expires', () => {
    expect(WINDOW_END).toBe(F1_EXPIRY - WEEK_MS)
    expect(WINDOW_START).toBe(WINDOW_END - ROLL_WINDOW_MS)
    expect(ROLL_WINDOW_MS).toBe(5 * DAY_MS)
  })

  it.each<[string, number, number]>([
    ['long before the window', F1_EXPIRY - 60 * DAY_MS, 0],
    ['1 ms before the window', WINDOW_START - 1, 0],
    ['exactly at the window start', WINDOW_START, 0],
    ['at the midpoint', MID, formula(0.5)],
    ['one day in', WINDOW_START + DAY_MS, formula(0.2)],
    ['exactly at the window end (the options expiry)', WINDOW_END, 1],
    ['1 ms after the window', WINDOW_END + 1, 1],
    ['between the options and the futures expiry', WINDOW_END + 3 * DAY_MS, 1],
    ['at F1 expiry', F1_EXPIRY, 1],
    ['after F1 expiry (caller late to roll)', F1_EXPIRY + DAY_MS, 1],
  ])('%s', (_label, now, expected) => {
    expect(rollWeight(now, F1_EXPIRY)).toBeCloseTo(expected, 15)
  })

  it('is just above 0 one ms after the start and just below 1 one ms before the end', () => {
    const first = rollWeight(WINDOW_START + 1, F1_EXPIRY)
    expect(first).toBeGreaterThan(0)
    expect(first).toBeCloseTo(formula(1 / ROLL_WINDOW_MS), 15)
    const last = rollWeight(WINDOW_END - 1, F1_EXPIRY)
    expect(last).toBeLessThan(1)
    expect(last).toBeGreaterThan(1 - 1e-8)
  })

  it('midpoint value is (1 − e^(−1.5)) / (1 − e^(−3))', () => {
    expect(rollWeight(MID, F1_EXPIRY)).toBeCloseTo(0.8175744761936437, 14)
  })

  it('increases strictly through the window', () => {
    let prev = 0
    for (let now = WINDOW_START + 60_000; now < WINDOW_END; now += 60_000) {
      const w = rollWeight(now, F1_EXPIRY)
      expect(w).toBeGreaterThan(prev)
      prev = w
    }
    expect(prev).toBeLessThan(1)
  })

  it.each<[number, number]>([
    [0, 0.5],
    [1e-12, 0.5],
    [1, formula(0.5, 1)],
    [3, formula(0.5, 3)],
    [10, formula(0.5, 10)],
    [-3, formula(0.5, -3)],
  ])('with k = %s the midpoint weight is %s', (k, expected) => {
    expect(rollWeight(MID, F1_EXPIRY, k)).toBeCloseTo(expected, 12)
  })

  it('a larger k rolls earlier', () => {
    const at = WINDOW_START + DAY_MS
    expect(rollWeight(at, F1_EXPIRY, 1)).toBeLessThan(rollWeight(at, F1_EXPIRY, 3))
    expect(rollWeight(at, F1_EXPIRY, 3)).toBeLessThan(rollWeight(at, F1_EXPIRY, 10))
  })

  it('honours a custom window length', () => {
    const window = 2 * DAY_MS
    expect(rollWeight(WINDOW_END - window, F1_EXPIRY, 3, window)).toBe(0)
    expect(rollWeight(WINDOW_END - DAY_MS, F1_EXPIRY, 3, window)).toBeCloseTo(formula(0.5), 15)
    expect(rollWeight(WINDOW_START + DAY_MS, F1_EXPIRY, 3, window)).toBe(0)
  })

  it.each<[string, () => number]>([
    ['a non-finite now', () => rollWeight(NaN, F1_EXPIRY)],
    ['a non-finite k', () => rollWeight(MID, F1_EXPIRY, Infinity)],
    ['a zero window', () => rollWeight(MID, F1_EXPIRY, 3, 0)],
    ['a negative window', () => rollWeight(MID, F1_EXPIRY, 3, -1)],
  ])('rejects %s', (_label, call) => {
    expect(call).toThrow(RangeError)
  })
})

describe('curveIndex', () => {
  const tick = new D('0.1')
  const f1 = { price: new D('100000'), expiryMs: F1_EXPIRY, sourceTs: 1_000 }
  const f2 = { price: new D('101000'), expiryMs: F2_EXPIRY, sourceTs: 2_000 }

  it.each<[string, number, string, number]>([
    ['before the window: F1 only', WINDOW_START - DAY_MS, '100000', 0],
    ['at the window start: F1 only', WINDOW_START, '100000', 0],
    ['at the window end: F2 only', WINDOW_END, '101000', 1],
    ['after the window: F2 only', WINDOW_END + DAY_MS, '101000', 1],
  ])('%s', (_label, nowMs, price, weight) => {
    const out = curveIndex({ nowMs, f1, f2, tick })
    expect(out.price.toFixed()).toBe(price)
    expect(out.weight).toBe(weight)
  })

  it('blends inside the window with the formula weight, rounded to the tick', () => {
    const out = curveIndex({ nowMs: MID, f1, f2, tick })
    const w = formula(0.5)
    expect(out.weight).toBeCloseTo(w, 15)
    // 100000 + 1000·0.81757447619... = 100817.57... → 100817.6
    expect(out.price.toFixed()).toBe('100817.6')
  })

  it.each<[string, string, string, number, string, string]>([
    ['an off-tick F1 before the window', '100.04', '101', WINDOW_START, '0.1', '100'],
    ['an off-tick F2 after the window', '100', '100.95', WINDOW_END, '0.1', '101'],
    ['a half tick away from zero', '100.05', '101', 0, '0.1', '100.1'],
    ['a blend onto a coarse tick (108.18 → 108)', '100', '110', MID, '2', '108'],
  ])('rounds %s', (_label, p1, p2, nowMs, tickSize, expected) => {
    const out = curveIndex({ nowMs, f1: { ...f1, price: new D(p1) }, f2: { ...f2, price: new D(p2) }, tick: new D(tickSize) })
    expect(out.price.toFixed()).toBe(expected)
  })

  it('stays on the tick and within half a tick of the exact blend throughout the window', () => {
    for (let now = WINDOW_START; now <= WINDOW_END; now += 3 * 3_600_000) {
      const out = curveIndex({ nowMs: now, f1, f2, tick })
      const exact = f1.price.times(1 - out.weight).plus(f2.price.times(out.weight))
      expect(out.price.div(tick).isInteger()).toBe(true)
      expect(out.price.minus(exact).abs().lte(tick.div(2))).toBe(true)
    }
  })

  it.each<[string, number, number, number, number]>([
    ['F1 only counts before the window, even if F2 is older', WINDOW_START, 5_000, 1_000, 5_000],
    ['both count inside the window: the older (F1)', MID, 1_000, 2_000, 1_000],
    ['both count inside the window: the older (F2)', MID, 3_000, 2_000, 2_000],
    ['F2 only counts after the window, even if F1 is older', WINDOW_END, 1_000, 9_000, 9_000],
  ])('sourceTs: %s', (_label, nowMs, ts1, ts2, expected) => {
    const out = curveIndex({ nowMs, f1: { ...f1, sourceTs: ts1 }, f2: { ...f2, sourceTs: ts2 }, tick })
    expect(out.sourceTs).toBe(expected)
  })

  it.each([WINDOW_START - 1, MID, WINDOW_END + 1])('without an F2 uses F1 alone at %s', (nowMs) => {
    const out = curveIndex({ nowMs, f1, f2: null, tick })
    expect(out).toEqual({ price: new D('100000'), weight: 0, sourceTs: f1.sourceTs })
  })

  it('does not jump when F1 expires and the pair rolls', () => {
    const f3 = { price: new D('102500'), expiryMs: F3_EXPIRY, sourceTs: 3_000 }
    const before = curveIndex({ nowMs: F1_EXPIRY - 1, f1, f2, tick })
    const after = curveIndex({ nowMs: F1_EXPIRY + 1, f1: f2, f2: f3, tick })
    expect(before.price.toFixed()).toBe('101000')
    expect(after.price.toFixed()).toBe('101000')
    expect(after.weight).toBe(0)
    expect(after.sourceTs).toBe(f2.sourceTs)
  })

  it('moves continuously minute by minute through the window', () => {
    let prev = curveIndex({ nowMs: WINDOW_START, f1, f2, tick }).price
    for (let now = WINDOW_START + 60_000; now <= WINDOW_END; now += 60_000) {
      const price = curveIndex({ nowMs: now, f1, f2, tick }).price
      // The steepest slope is k/(1 − e^(−k)) · 1000 / 7200 minutes ≈ 0.44 per minute, plus a tick of rounding.
      expect(price.minus(prev).abs().lte('0.6')).toBe(true)
      prev = price
    }
  })
})
