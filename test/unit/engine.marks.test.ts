import { describe, expect, it } from 'vitest'
import { D } from '../../src/domain/decimal.js'
import { curveIndex, rollWeight } from '../../src/domain/pricing/curveIndex.js'
import { Engine } from '../../src/engine/engine.js'
import { stateHash } from '../../src/engine/snapshot.js'
import { btcLegs, catalogAt, envelope, T0 } from '../support/engineFixtures.js'

const DAY = 86_400_000

function listed(nowMs = T0): Engine {
  const engine = new Engine()
  expect(engine.apply(envelope({ type: 'ListMarkets', markets: catalogAt(nowMs) }, nowMs)).ok).toBe(true)
  engine.takeChanges()
  return engine
}

const mark = (marketId: string, price: string, sourceTs: number, source = 'push') => ({ marketId, price, source, sourceTs })

describe('engine: marks', () => {
  const { spot, perp, f1, f2 } = btcLegs(catalogAt())

  it('takes spot and futures marks with price, source and source time, and writes a history row each', () => {
    const engine = listed()
    const reply = engine.apply(envelope({ type: 'UpdateMarks', marks: [mark(spot, '95000.10', T0 - 20), mark(f1.id, '95500', T0 - 10)] }, T0))
    expect(reply).toEqual({ ok: true, value: { accepted: 2 } })
    expect(engine.state.marks.get(spot)).toEqual({ marketId: spot, price: '95000.1', indexPrice: null, source: 'push', sourceTs: T0 - 20, engineTs: T0 })
    const changes = engine.takeChanges()
    expect(changes.marks.map((m) => m.marketId)).toEqual([spot, f1.id, perp])
  })

  it.each([
    ['an unknown market', mark('NOPE-SPOT', '1', T0), 'MARKET_NOT_FOUND'],
    ['a perpetual (its mark is derived)', mark('BTC-PERP', '1', T0), 'INVALID_REQUEST'],
    ['an option (its mark is derived)', mark('BTC-2026-12-18-95000-C', '0.01', T0), 'INVALID_REQUEST'],
    ['a zero price', mark(spot, '0', T0), 'INVALID_REQUEST'],
    ['a negative price', mark(spot, '-1', T0), 'INVALID_REQUEST'],
    ['an exponent', mark(spot, '1e5', T0), 'INVALID_REQUEST'],
    ['more than 18 decimals', mark(spot, '1.0000000000000000001', T0), 'INVALID_REQUEST'],
    ['a fractional source time', mark(spot, '1', T0 + 0.5), 'INVALID_REQUEST'],
    ['an uppercase source', mark(spot, '1', T0, 'PUSH'), 'INVALID_REQUEST'],
    ['a source time more than a second ahead of the engine', mark(spot, '1', T0 + 1_001), 'INVALID_REQUEST'],
  ])('refuses %s and applies nothing of the batch', (_name, bad, code) => {
    const engine = listed()
    const before = stateHash(engine.state)
    const reply = engine.apply(envelope({ type: 'UpdateMarks', marks: [mark(spot, '95000', T0), bad] }, T0))
    expect(reply).toMatchObject({ ok: false, code })
    expect(stateHash(engine.state)).toBe(before)
    expect(engine.takeChanges().marks).toHaveLength(0)
  })

  it('ignores an observation older than the one it holds', () => {
    const engine = listed()
    engine.apply(envelope({ type: 'UpdateMarks', marks: [mark(spot, '95000', T0)] }, T0))
    const reply = engine.apply(envelope({ type: 'UpdateMarks', marks: [mark(spot, '94000', T0 - 1)] }, T0 + 1))
    expect(reply).toEqual({ ok: true, value: { accepted: 0 } })
    expect(engine.state.marks.get(spot)!.price).toBe('95000')
  })

  it('derives the perpetual from the front future outside the roll window, carrying its source time', () => {
    const engine = listed()
    engine.apply(envelope({ type: 'UpdateMarks', marks: [mark(f1.id, '95500.3', T0 - 700), mark(f2.id, '96400', T0 - 100)] }, T0))
    expect(engine.state.marks.get(perp)).toMatchObject({ price: '95500.3', indexPrice: '95500.3', source: 'curve', sourceTs: T0 - 700 })
    const priceEvents = engine.takeChanges().events.filter((e) => e.eventType === 'PerpPrice')
    expect(priceEvents).toHaveLength(1)
    expect(priceEvents[0]).toMatchObject({
      stream: 'prices:BTC-PERP',
      eventSeq: 1,
      engineTs: T0,
      sourceTs: T0 - 700,
      payload: { kind: 'price', symbol: 'BTC-PERP', price: '95500.3', tsMs: T0 },
    })
  })

  it('has no perpetual mark without a front-future mark', () => {
    const engine = listed()
    engine.apply(envelope({ type: 'UpdateMarks', marks: [mark(spot, '95000', T0), mark(f2.id, '96400', T0)] }, T0))
    expect(engine.state.marks.has(perp)).toBe(false)
  })

  it('blends into the next future inside the roll window exactly as the roll formula, on the tick', () => {
    const windowStart = f1.expiryMs! - 7 * DAY - 5 * DAY
    for (const t of [windowStart, windowStart + 1, windowStart + 2.5 * DAY, f1.expiryMs! - 7 * DAY, f1.expiryMs! - DAY]) {
      const engine = listed()
      engine.apply(envelope({ type: 'UpdateMarks', marks: [mark(f1.id, '95000', t - 50), mark(f2.id, '97000', t - 10)] }, t))
      const w = rollWeight(t, f1.expiryMs!)
      const expected = curveIndex({
        nowMs: t,
        f1: { price: D(95000), expiryMs: f1.expiryMs!, sourceTs: t - 50 },
        f2: { price: D(97000), expiryMs: f2.expiryMs!, sourceTs: t - 10 },
        tick: D('0.1'),
      })
      const got = engine.state.marks.get(perp)!
      expect(got.price).toBe(expected.price.toFixed())
      // Only legs that carry weight age the derived mark.
      expect(got.sourceTs).toBe(w === 0 ? t - 50 : w === 1 ? t - 10 : t - 50)
      if (w > 0 && w < 1) expect(Number(got.price)).toBeCloseTo(95000 + w * 2000, 0)
    }
  })

  it('rolls across an expiry without a jump: the old next future becomes the front', () => {
    const engine = listed()
    const before = f1.expiryMs! - 1
    engine.apply(envelope({ type: 'UpdateMarks', marks: [mark(f1.id, '95000', before), mark(f2.id, '97000', before)] }, before))
    expect(engine.state.marks.get(perp)!.price).toBe('97000')
    engine.apply(envelope({ type: 'ExpireMarket', marketId: f1.id }, f1.expiryMs!))
    // The next quarter is listed by the listing job; its mark arrives with the feed.
    const next = catalogAt(f1.expiryMs!).find((m) => m.family === 'BTC' && m.type === 'future' && m.expiryMs! > f2.expiryMs!)!
    engine.apply(envelope({ type: 'ListMarkets', markets: [next] }, f1.expiryMs!))
    engine.apply(envelope({ type: 'UpdateMarks', marks: [mark(f2.id, '97000', f1.expiryMs! + 1), mark(next.id, '99000', f1.expiryMs! + 1)] }, f1.expiryMs! + 1))
    expect(engine.state.marks.get(perp)!.price).toBe('97000')
  })

  it('numbers events per stream', () => {
    const engine = listed()
    for (let i = 1; i <= 3; i++) {
      engine.apply(envelope({ type: 'UpdateMarks', marks: [mark(f1.id, String(95000 + i), T0 + i)] }, T0 + i))
    }
    const events = engine.takeChanges().events
    expect(events.filter((e) => e.stream === 'prices:BTC-PERP').map((e) => e.eventSeq)).toEqual([1, 2, 3])
    expect(events.filter((e) => e.stream === 'marks:BTC').map((e) => e.eventSeq)).toEqual([1, 2, 3, 4, 5, 6])
  })
})
