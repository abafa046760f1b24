import { describe, expect, it } from 'vitest'
import { CATALOG } from '../../src/config/catalog.js'
import { marketsToList, plannedMarkets, strikeGrid } from '../../src/domain/listing.js'
import { canonicalSpec } from '../../src/domain/market.js'
import { invalidSpec } from '../../src/engine/marketRuntime.js'

const at = (iso: string) => Date.parse(iso)
const plan = (nowIso: string, spot = '95000') =>
  plannedMarkets(CATALOG, { nowMs: at(nowIso), spotRef: () => spot, defaultStaleMarkMs: 5_000 })

describe('catalog listing', () => {
  it('lists spot, perpetual and the next two quarterly futures per family, named as the spec says', () => {
    const ids = plan('2026-11-21T12:00:00Z').filter((m) => m.type !== 'option').map((m) => m.id)
    expect(ids).toEqual([
      'BTC-USDC-SPOT', 'BTC-PERP', 'BTC-USDC-2026-12-25', 'BTC-USDC-2027-03-26',
      'XAUT-USDC-SPOT', 'XAUT-USDC-PERP', 'XAUT-USDC-2026-12-25', 'XAUT-USDC-2027-03-26',
      'WTIOIL-USDC-SPOT', 'WTIOIL-USDC-PERP', 'WTIOIL-USDC-2026-12-25', 'WTIOIL-USDC-2027-03-26',
    ])
  })

  it('computes expiries from the date: after the December expiry the June quarter appears', () => {
    const futures = plan('2026-12-25T08:00:00Z').filter((m) => m.type === 'future' && m.family === 'BTC')
    expect(futures.map((m) => [m.id, new Date(m.expiryMs!).toISOString()])).toEqual([
      ['BTC-USDC-2027-03-26', '2027-03-26T08:00:00.000Z'],
      ['BTC-USDC-2027-06-25', '2027-06-25T08:00:00.000Z'],
    ])
  })

  it('lists BTC options for the weeklies, the monthly and the quarterlies on a 5,000 grid within ±40% of each forward, calls and puts', () => {
    const options = plan('2026-11-21T12:00:00Z').filter((m) => m.type === 'option')
    expect(options.every((m) => m.family === 'BTC')).toBe(true)
    const expiries = [...new Set(options.map((m) => new Date(m.expiryMs!).toISOString()))]
    expect(expiries).toEqual(['2026-11-27T08:00:00.000Z', '2026-12-04T08:00:00.000Z', '2026-12-18T08:00:00.000Z', '2027-01-22T08:00:00.000Z', '2027-03-19T08:00:00.000Z'])
    const strikesOf = (day: string) => options.filter((m) => new Date(m.expiryMs!).toISOString().startsWith(day)).map((m) => Number(m.strike))
    // A week out the synthetic forward is about spot; four months out it is 95,000·e^(0.04·0.32) ≈ 96,220.
    expect([Math.min(...strikesOf('2026-11-27')), Math.max(...strikesOf('2026-11-27'))]).toEqual([60_000, 130_000])
    expect([Math.min(...strikesOf('2027-03-19')), Math.max(...strikesOf('2027-03-19'))]).toEqual([60_000, 130_000])
    const futures = plannedMarkets(CATALOG, { nowMs: at('2026-11-21T12:00:00Z'), spotRef: () => '95000', futureRef: (_f, e) => (e === Date.UTC(2027, 2, 26, 8) ? '110000' : null), defaultStaleMarkMs: 5_000 })
    const march = futures.filter((m) => m.type === 'option' && m.id.startsWith('BTC-2027-03-19')).map((m) => Number(m.strike))
    // Drawn around the March future's mark, 110,000: 66,000 … 154,000 on the grid.
    expect([Math.min(...march), Math.max(...march)]).toEqual([70_000, 150_000])
    expect(options).toHaveLength(options.filter((m) => m.optionType === 'call').length * 2)
    expect(options.find((m) => m.id === 'BTC-2026-12-18-100000-C')).toMatchObject({
      strike: '100000', optionType: 'call', tickSize: '0.0001', stepSize: '0.01', takerFeeBps: '3', makerFeeBps: '3',
    })
  })

  it.each([
    ['95000', 5000, 40, ['60000', '130000']],
    ['100000', 5000, 40, ['60000', '140000']],
    ['4000', 200, 10, ['3600', '4000', '4400']],
  ])('draws the strike grid around %s inclusively', (spot, step, pct, expected) => {
    const grid = strikeGrid(spot, step, pct)
    expect(grid[0]).toBe(expected[0])
    expect(grid.at(-1)).toBe(expected.at(-1))
    expect(grid.every((k) => Number(k) % step === 0)).toBe(true)
  })

  it('carries the catalog parameters per family', () => {
    const byId = new Map(plan('2026-11-21T12:00:00Z').map((m) => [m.id, m]))
    expect(byId.get('BTC-PERP')).toMatchObject({ tickSize: '0.1', stepSize: '0.001', takerFeeBps: '5', makerFeeBps: '1', fundingIntervalMs: 300_000, fundingMaxRateBps: '25', priceBandBps: 1000 })
    expect(byId.get('XAUT-USDC-PERP')).toMatchObject({ tickSize: '0.01', stepSize: '0.01', assetClass: 'precious_metals' })
    expect(byId.get('WTIOIL-USDC-SPOT')).toMatchObject({ tickSize: '0.01', stepSize: '0.1', takerFeeBps: '10', makerFeeBps: '5', assetClass: 'energy' })
    for (const m of byId.values()) expect(invalidSpec(m), m.id).toBeNull()
    // An 8-hour period at a 10% band would integrate past 2^53: refused rather than rounded.
    expect(invalidSpec({ ...byId.get('BTC-PERP')!, fundingIntervalMs: 8 * 3_600_000 })).toMatch(/fundingIntervalMs/)
    expect(invalidSpec({ ...byId.get('BTC-PERP')!, fundingIntervalMs: 8 * 3_600_000, priceBandBps: 300 })).toBeNull()
  })

  it('lists only what is missing, and never redraws the strike grid of a listed expiry', () => {
    const listed = plan('2026-11-21T12:00:00Z', '95000')
    const later = plan('2026-11-21T13:00:00Z', '120000')
    expect(marketsToList(later, listed)).toEqual([])
    const withoutWeekly = listed.filter((m) => !m.id.startsWith('BTC-2026-11-27-'))
    const relisted = marketsToList(later, withoutWeekly)
    expect(relisted.length).toBeGreaterThan(0)
    expect(relisted.every((m) => m.id.startsWith('BTC-2026-11-27-'))).toBe(true)
    expect(Number(relisted[0]!.strike)).toBe(75_000) // drawn around the new spot
  })

  it('keeps spec keys in one order whatever order they came in', () => {
    const spec = plan('2026-11-21T12:00:00Z')[0]!
    const shuffled = Object.fromEntries(Object.entries(spec).reverse()) as typeof spec
    expect(JSON.stringify(canonicalSpec(shuffled))).toBe(JSON.stringify(canonicalSpec(spec)))
  })
})
