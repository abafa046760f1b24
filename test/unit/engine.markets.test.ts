import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/engine/engine.js'
import { stateHash } from '../../src/engine/snapshot.js'
import { catalogAt, envelope, T0 } from '../support/engineFixtures.js'

function listed(): Engine {
  const engine = new Engine()
  const reply = engine.apply(envelope({ type: 'ListMarkets', markets: catalogAt() }, T0))
  expect(reply.ok).toBe(true)
  engine.takeChanges()
  return engine
}

describe('engine: market lifecycle', () => {
  it('lists every catalog market once, with a status event and a row each', () => {
    const engine = new Engine()
    const markets = catalogAt()
    const reply = engine.apply(envelope({ type: 'ListMarkets', markets }, T0))
    expect(reply).toEqual({ ok: true, value: { listed: markets.map((m) => m.id) } })
    const changes = engine.takeChanges()
    expect(changes.markets.size).toBe(markets.length)
    expect(changes.events.map((e) => e.eventType)).toEqual(markets.map(() => 'MarketStatus'))
    expect(changes.events.map((e) => e.eventSeq)).toEqual(markets.map((_, i) => i + 1))
    expect(engine.state.markets.get('BTC-PERP')!.spec.listedAtMs).toBe(T0)

    const again = engine.apply(envelope({ type: 'ListMarkets', markets }, T0 + 1))
    expect(again).toEqual({ ok: true, value: { listed: [] } })
    expect(engine.takeChanges().events).toHaveLength(0)
  })

  it('refuses a batch with an invalid spec and lists none of it', () => {
    const engine = new Engine()
    const [good, bad] = catalogAt()
    const reply = engine.apply(envelope({ type: 'ListMarkets', markets: [good!, { ...bad!, tickSize: '0.0000001', stepSize: '0.0000001' }] }, T0))
    expect(reply).toMatchObject({ ok: false, code: 'INVALID_REQUEST' })
    expect(engine.state.markets.size).toBe(0)
  })

  it('halts and resumes a market, emitting a status event only on change', () => {
    const engine = listed()
    expect(engine.apply(envelope({ type: 'SetMarketStatus', marketId: 'BTC-PERP', status: 'halted' }, T0 + 1))).toEqual({
      ok: true,
      value: { marketId: 'BTC-PERP', status: 'halted' },
    })
    expect(engine.state.markets.get('BTC-PERP')!.status).toBe('halted')
    engine.apply(envelope({ type: 'SetMarketStatus', marketId: 'BTC-PERP', status: 'halted' }, T0 + 2))
    engine.apply(envelope({ type: 'SetMarketStatus', marketId: 'BTC-PERP', status: 'active' }, T0 + 3))
    const events = engine.takeChanges().events
    expect(events.map((e) => (e.payload as { status: string }).status)).toEqual(['halted', 'active'])
  })

  it('answers MARKET_NOT_FOUND for an unknown market and changes nothing', () => {
    const engine = listed()
    const before = stateHash(engine.state)
    const reply = engine.apply(envelope({ type: 'SetMarketStatus', marketId: 'NOPE', status: 'halted' }, T0))
    expect(reply).toMatchObject({ ok: false, code: 'MARKET_NOT_FOUND' })
    expect(stateHash(engine.state)).toBe(before)
  })

  it('expires a future only at or after its expiry, and a settled market stays settled', () => {
    const engine = listed()
    const future = catalogAt().find((m) => m.type === 'future')!
    expect(engine.apply(envelope({ type: 'ExpireMarket', marketId: future.id }, future.expiryMs! - 1))).toMatchObject({ ok: false, code: 'INVALID_REQUEST' })
    expect(engine.apply(envelope({ type: 'ExpireMarket', marketId: future.id }, future.expiryMs!))).toEqual({
      ok: true,
      value: { marketId: future.id, status: 'settled' },
    })
    const m = engine.state.markets.get(future.id)!
    expect(m.settledAtMs).toBe(future.expiryMs)
    expect(engine.apply(envelope({ type: 'SetMarketStatus', marketId: future.id, status: 'active' }, future.expiryMs! + 1))).toMatchObject({
      ok: false,
      code: 'MARKET_HALTED',
    })
  })

  it('keeps its clock monotonic when command times go backwards', () => {
    const engine = listed()
    engine.apply(envelope({ type: 'SetMarketStatus', marketId: 'BTC-PERP', status: 'halted' }, T0 + 5_000))
    engine.apply(envelope({ type: 'SetMarketStatus', marketId: 'BTC-PERP', status: 'active' }, T0 + 1_000))
    expect(engine.state.now).toBe(T0 + 5_000)
    expect(engine.takeChanges().events.every((e) => e.engineTs === T0 + 5_000)).toBe(true)
  })

  it('answers an unknown command type with INVALID_REQUEST', () => {
    const engine = listed()
    const reply = engine.apply(envelope({ type: 'Nope' } as never, T0))
    expect(reply).toMatchObject({ ok: false, code: 'INVALID_REQUEST' })
  })

  it('queues a reply only for commands that name a reply channel', () => {
    const engine = listed()
    engine.apply(envelope({ type: 'SetMarketStatus', marketId: 'BTC-PERP', status: 'halted' }, T0, { id: 'a', replyTo: 'node-1' }))
    engine.apply(envelope({ type: 'SetMarketStatus', marketId: 'BTC-PERP', status: 'active' }, T0, { id: 'b' }))
    expect(engine.takeChanges().replies).toEqual([
      { replyTo: 'node-1', id: 'a', reply: { ok: true, value: { marketId: 'BTC-PERP', status: 'halted' } } },
    ])
  })
})
