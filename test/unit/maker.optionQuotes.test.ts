// The simulator's option quotes: around the Black-76 value, a half-spread that grows with vega, a mid
// that leans against inventory (never past the value), strikes within ±20% of the forward.
import { describe, expect, it } from 'vitest'
import { D } from '../../src/domain/decimal.js'
import { optionQuotes, quotesOption, type QuotedOption } from '../../src/roles/maker/optionQuotes.js'

const NOW = Date.UTC(2026, 10, 25, 12)
const base: QuotedOption = {
  marketId: 'BTC-2026-12-18-95000-C', strike: 95_000, isCall: true, expiryMs: Date.UTC(2026, 11, 18, 8), forward: 95_000,
  markPrice: '0.0500', markIv: 0.55, tickSize: '0.0001', stepSize: '0.01', minQuantity: '0.01',
}
const spread = (q: ReturnType<typeof optionQuotes>) => D(q.find((x) => x.side === 'sell')!.price).sub(q.find((x) => x.side === 'buy')!.price).toNumber()
const mid = (q: ReturnType<typeof optionQuotes>) => D(q.find((x) => x.side === 'sell')!.price).add(q.find((x) => x.side === 'buy')!.price).div(2).toNumber()

describe('simulator option quotes', () => {
  it('quotes two levels a side around the value, bids below asks, on the tick and step', () => {
    const q = optionQuotes(base, 95_000, 0.04, NOW, 0)
    expect(q.map((x) => x.side)).toEqual(['buy', 'buy', 'sell', 'sell'])
    const [b1, b2, a1, a2] = q.map((x) => D(x.price))
    expect(b2!.lt(b1!) && b1!.lt('0.05') && D('0.05').lt(a1!) && a1!.lt(a2!)).toBe(true)
    for (const x of q) {
      expect(D(x.price).mod('0.0001').isZero()).toBe(true)
      expect(D(x.quantity).mod('0.01').isZero()).toBe(true)
    }
  })

  it('widens with vega: a longer expiry (more vega) is quoted wider than a short one', () => {
    const short = optionQuotes({ ...base, expiryMs: NOW + 2 * 86_400_000 }, 95_000, 0.04, NOW, 0)
    const long = optionQuotes({ ...base, expiryMs: NOW + 120 * 86_400_000 }, 95_000, 0.04, NOW, 0)
    expect(spread(long)).toBeGreaterThan(spread(short))
  })

  it('leans against inventory: long quotes lower, short higher, never past the value', () => {
    const flat = mid(optionQuotes(base, 95_000, 0.04, NOW, 0))
    const long = optionQuotes(base, 95_000, 0.04, NOW, 5)
    const short = optionQuotes(base, 95_000, 0.04, NOW, -5)
    expect(mid(long)).toBeLessThan(flat)
    expect(mid(short)).toBeGreaterThan(flat)
    const huge = optionQuotes(base, 95_000, 0.04, NOW, 1_000)
    expect(D(huge.find((x) => x.side === 'buy')!.price).lte('0.05') && D(huge.find((x) => x.side === 'sell')!.price).gte('0.05')).toBe(true)
  })

  it('quotes a far wing one-sided rather than bid under a tick, and only strikes within ±20% of the forward', () => {
    const wing = optionQuotes({ ...base, strike: 114_000, markPrice: '0.0001' }, 95_000, 0.04, NOW, 0)
    expect(wing.every((x) => x.side === 'sell')).toBe(true)
    expect([quotesOption({ strike: 114_000, forward: 95_000 }), quotesOption({ strike: 115_000, forward: 95_000 }), quotesOption({ strike: 75_000, forward: 95_000 })]).toEqual([true, false, false])
  })
})
