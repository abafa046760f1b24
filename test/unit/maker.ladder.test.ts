// The liquidity simulator's pure parts: the quote ladder around a mark, and the taker's next order.
import { describe, expect, it } from 'vitest'
import { D, toScaled } from '../../src/domain/decimal.js'
import { mulberry32 } from '../../src/domain/prng.js'
import { buildLadder, DEFAULT_LADDER, type LadderMarket } from '../../src/roles/maker/ladder.js'
import { nextTakerOrder, type TakerMarket } from '../../src/roles/maker/taker.js'

const band = (mark: string, tick: string, bps = 1_000) => ({
  priceBandLow: D(mark).mul(10_000 - bps).div(10_000).div(tick).ceil().mul(tick).toFixed(),
  priceBandHigh: D(mark).mul(10_000 + bps).div(10_000).div(tick).floor().mul(tick).toFixed(),
})
const market = (tickSize: string, stepSize: string, minQuantity: string, mark: string): LadderMarket => ({ tickSize, stepSize, minQuantity, ...band(mark, tickSize) })

const CASES: Array<[string, LadderMarket, string]> = [
  ['BTC perpetual', market('0.1', '0.001', '0.001', '95000'), '95000'],
  ['BTC spot, mark between ticks', market('0.1', '0.001', '0.001', '95012.37'), '95012.37'],
  ['XAUT', market('0.01', '0.01', '0.01', '4012.5'), '4012.5'],
  ['WTIOIL', market('0.01', '0.1', '0.1', '64.87'), '64.87'],
  ['a cheap asset where bps are less than a tick', market('0.01', '1', '5', '0.5'), '0.5'],
  ['a market without a band', { tickSize: '0.5', stepSize: '0.001', minQuantity: '0.002', priceBandLow: null, priceBandHigh: null }, '95000'],
]

describe('the maker ladder', () => {
  it.each(CASES)('%s: prices on the tick inside the band, bids below the mark below asks, sizes on the step', (_n, m, mark) => {
    for (const seed of [1, 2, 3, 42, 2 ** 31]) {
      const ladder = buildLadder(mark, m, seed)
      const bids = ladder.filter((q) => q.side === 'buy').map((q) => D(q.price))
      const asks = ladder.filter((q) => q.side === 'sell').map((q) => D(q.price))
      expect(bids).toHaveLength(DEFAULT_LADDER.levels)
      expect(asks).toHaveLength(DEFAULT_LADDER.levels)
      for (const q of ladder) {
        expect(toScaled(D(q.price), D(m.tickSize)), q.price).not.toBeNull()
        expect(toScaled(D(q.quantity), D(m.stepSize)), q.quantity).not.toBeNull()
        expect(D(q.quantity).gte(m.minQuantity)).toBe(true)
        expect(D(q.price).gt(0)).toBe(true)
        if (m.priceBandLow !== null) expect(D(q.price).gte(m.priceBandLow) && D(q.price).lte(m.priceBandHigh!)).toBe(true)
      }
      // Best first, strictly: each bid below the one before, each ask above.
      bids.forEach((b, i) => i > 0 && expect(b.lt(bids[i - 1]!)).toBe(true))
      asks.forEach((a, i) => i > 0 && expect(a.gt(asks[i - 1]!)).toBe(true))
      expect(bids[0]!.lt(mark)).toBe(true)
      expect(asks[0]!.gt(mark)).toBe(true)
    }
  })

  it('spreads the best quotes about halfSpreadBps from the mark and sizes levels near their notional', () => {
    const ladder = buildLadder('95000', market('0.1', '0.001', '0.001', '95000'), 7)
    const bestBid = D(ladder[0]!.price)
    const bestAsk = D(ladder[DEFAULT_LADDER.levels]!.price)
    const bpsFrom = (p: InstanceType<typeof D>) => p.sub(95000).abs().div(95000).mul(10_000).toNumber()
    for (const p of [bestBid, bestAsk]) {
      expect(bpsFrom(p)).toBeGreaterThanOrEqual(DEFAULT_LADDER.halfSpreadBps - 0.01)
      expect(bpsFrom(p)).toBeLessThanOrEqual(DEFAULT_LADDER.halfSpreadBps + DEFAULT_LADDER.priceJitterBps + 0.02)
    }
    const notional = D(ladder[0]!.quantity).mul(bestBid).toNumber()
    expect(notional).toBeGreaterThan(DEFAULT_LADDER.levelNotional * (1 - DEFAULT_LADDER.sizeJitter) - 100)
    expect(notional).toBeLessThan(DEFAULT_LADDER.levelNotional * (1 + DEFAULT_LADDER.sizeJitter))
  })

  it('is deterministic for a seed, and another seed moves it a little', () => {
    const m = market('0.1', '0.001', '0.001', '95000')
    expect(buildLadder('95000', m, 99)).toEqual(buildLadder('95000', m, 99))
    expect(buildLadder('95000', m, 99)).not.toEqual(buildLadder('95000', m, 100))
  })

  it('never rounds a cheap asset\'s bid and ask onto the mark or each other', () => {
    const ladder = buildLadder('0.5', market('0.01', '1', '5', '0.5'), 3)
    expect(ladder.filter((q) => q.side === 'buy').map((q) => q.price)).toEqual(['0.49', '0.48', '0.47', '0.46', '0.45'])
    expect(ladder.filter((q) => q.side === 'sell').map((q) => q.price)).toEqual(['0.51', '0.52', '0.53', '0.54', '0.55'])
  })

  it('drops levels outside a narrow band rather than stacking them on its edge', () => {
    const ladder = buildLadder('100', { tickSize: '0.01', stepSize: '0.1', minQuantity: '0.1', priceBandLow: '99.93', priceBandHigh: '100.08' }, 5)
    expect(ladder.length).toBeGreaterThan(0)
    expect(ladder.length).toBeLessThan(2 * DEFAULT_LADDER.levels)
    for (const q of ladder) expect(D(q.price).gte('99.93') && D(q.price).lte('100.08')).toBe(true)
  })

  it.each([['0'], ['-5'], ['NaN']])('quotes nothing around a mark of %s', (mark) => {
    expect(buildLadder(mark, market('0.1', '0.001', '0.001', '95000'), 1)).toEqual([])
  })
})

describe('the taker', () => {
  const markets: TakerMarket[] = [
    { marketId: 'BTC-PERP', type: 'perpetual', stepSize: '0.001', minQuantity: '0.001', mark: '95000' },
    { marketId: 'WTIOIL-USDC-SPOT', type: 'spot', stepSize: '0.1', minQuantity: '0.1', mark: '65' },
  ]

  it('sends small market orders on the step, at least the minimum', () => {
    const rng = mulberry32(1)
    for (let i = 0; i < 200; i++) {
      const o = nextTakerOrder(markets, [], rng)!
      const m = markets.find((x) => x.marketId === o.marketId)!
      expect(o.type).toBe('market')
      expect(toScaled(D(o.quantity), D(m.stepSize))).not.toBeNull()
      expect(D(o.quantity).gte(m.minQuantity)).toBe(true)
      expect(D(o.quantity).mul(m.mark).toNumber()).toBeLessThan(1_600)
      // Nothing held: never a spot sell.
      if (m.type === 'spot') expect(o.side).toBe('buy')
    }
  })

  it('leans toward reducing a large position', () => {
    const rng = mulberry32(2)
    const sides = Array.from({ length: 400 }, () => nextTakerOrder([markets[0]!], [{ marketId: 'BTC-PERP', side: 'long', quantity: '1' }], rng)!.side)
    const sells = sides.filter((s) => s === 'sell').length / sides.length
    expect(sells).toBeGreaterThan(0.8)
  })

  it('has nothing to send without markets', () => {
    expect(nextTakerOrder([], [], mulberry32(1))).toBeNull()
  })
})
