// Preview runs exactly the placement checks: an approved preview is followed by an accepted order,
// a refused one by the same code; and a preview changes nothing.
import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/engine/engine.js'
import { takeSnapshot } from '../../src/engine/snapshot.js'
import { T0 } from '../support/engineFixtures.js'
import { RandomTrading } from '../support/randomTrading.js'
import { PERP, TradingHarness } from '../support/tradingFixtures.js'

/** The whole state but the clock (a preview, like any command, moves the engine's time). */
const withoutClock = (e: Engine) => JSON.stringify({ ...takeSnapshot(e.state), now: 0 })

describe('preview', () => {
  it('agrees with placement on thousands of random orders, and never changes the state', () => {
    const gen = new RandomTrading(77, T0)
    const engine = new Engine()
    for (const env of gen.setup()) engine.apply(env)
    let agreed = 0
    const codes = new Set<string>()
    for (let i = 0; i < 6_000; i++) {
      const env = gen.next(engine.state)
      if (env.cmd.type !== 'PlaceOrder') {
        engine.apply(env)
        continue
      }
      const check = agreed % 20 === 0
      const before = check ? withoutClock(engine) : ''
      const preview = engine.apply({ ...env, id: `${env.id}-p`, cmd: { ...env.cmd, type: 'PreviewOrder' } })
      if (check) expect(withoutClock(engine)).toBe(before)
      expect(preview.ok).toBe(true)
      const p = (preview as { value: { approved: boolean; reason: string | null } }).value
      const placed = engine.apply(env)
      expect([p.approved, p.reason]).toEqual([placed.ok, placed.ok ? null : placed.code])
      if (!placed.ok) codes.add(placed.code)
      agreed++
    }
    expect(agreed).toBeGreaterThan(3_000)
    for (const code of ['POST_ONLY_WOULD_CROSS', 'INSUFFICIENT_BALANCE', 'REDUCE_ONLY_VIOLATION', 'INVALID_PRICE']) expect(codes.has(code), code).toBe(true)
  })

  it('reports the margin impact, the fee and an estimated liquidation price', () => {
    const h = new TradingHarness()
    h.fund('alice', 10_000)
    h.fund('mm')
    h.placeOk('mm', { side: 'sell', price: '95000', quantity: '5' })
    const p = h.ok({ type: 'PreviewOrder', userId: 'alice', order: h.spec({ side: 'buy', price: '95000', quantity: '1' }) })
    // IM 10% and MM 5% of 95,000; taker 5 bps; with 10,000 of equity the long is liquidated where
    // 10,000 + (P − 95,000) = 5% × P, at P = 85,000 / 0.95 ≈ 89,473.7.
    expect(p).toMatchObject({ approved: true, reason: null, marginImpact: { initialMargin: '9500', maintenanceMargin: '4750' }, estimatedFee: '47.5', liquidationPrice: '89473.7' })
    const refused = h.ok({ type: 'PreviewOrder', userId: 'alice', order: h.spec({ side: 'buy', price: '95000', quantity: '2' }) })
    expect(refused).toMatchObject({ approved: false, reason: 'INSUFFICIENT_MARGIN', marginImpact: { initialMargin: '19000' } })
    // a long this well funded has no liquidation price
    h.fund('rich', 1_000_000)
    expect(h.ok({ type: 'PreviewOrder', userId: 'rich', order: h.spec({ side: 'buy', price: '95000', quantity: '1' }) }).liquidationPrice).toBeNull()
    expect(h.engine.state.accounts.get('alice')!.positions.get(PERP)).toBeUndefined()
  })

  it('refuses what placement refuses outside the random stream: a halted market for a stop order, an id in use', () => {
    const h = new TradingHarness()
    h.fund('alice')
    const resting = h.spec({ side: 'buy', price: '94000', quantity: '1' })
    h.ok({ type: 'PlaceOrder', userId: 'alice', order: resting })
    expect(h.ok({ type: 'PreviewOrder', userId: 'alice', order: resting })).toMatchObject({ approved: false, reason: 'INVALID_REQUEST' })
    h.ok({ type: 'SetMarketStatus', marketId: PERP, status: 'halted' })
    const stop = h.spec({ side: 'buy', type: 'market', quantity: '0.5', stopPrice: '96000' })
    expect(h.ok({ type: 'PreviewOrder', userId: 'alice', order: stop })).toMatchObject({ approved: false, reason: 'MARKET_HALTED' })
    expect(h.send({ type: 'PlaceOrder', userId: 'alice', order: stop })).toMatchObject({ ok: false, code: 'MARKET_HALTED' })
  })
})
