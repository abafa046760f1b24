// Market-maker protection in the pure engine: which orders it covers, the window of fills on engine
// time, a trip by quantity or by delta cancelling the protected orders in the command of the tripping
// fill, the freeze (timed or until reset), and its state through a snapshot.
import { beforeEach, describe, expect, it } from 'vitest'
import type { Command } from '../../src/engine/commands.js'
import { restoreSnapshot, stateHash, takeSnapshot } from '../../src/engine/snapshot.js'
import { Engine } from '../../src/engine/engine.js'
import { TradingHarness, PERP } from '../support/tradingFixtures.js'

const CALL = 'BTC-2026-12-18-95000-C'
const PUT = 'BTC-2026-12-18-90000-P'
const DEEP_CALL = 'BTC-2026-12-18-70000-C' // delta ≈ 1
const USDC = 1_000_000n
const UNIT = 1_000_000 // limits in millionths of the underlying
let h: TradingHarness

function fundOptions(userId: string, usdc: number): void {
  h.ok({ type: 'Faucet', userId, amountMicro: String(BigInt(usdc) * USDC), dailyCapMicro: '1000000000000000' })
  h.ok({ type: 'Transfer', userId, from: 'wallet', to: 'options', amountMicro: String(BigInt(usdc) * USDC) })
}

const config = (userId: string, c: Partial<Extract<Command, { type: 'SetMmpConfig' }>>) =>
  h.ok({ type: 'SetMmpConfig', userId, underlying: 'BTC', intervalMs: 1_000, frozenMs: 5_000, quantityLimit: 0, deltaLimit: 0, ...c })

/** A ladder of post-only quotes on `marketId`, as /quotes/bulk sends it. */
const quotes = (userId: string, marketId: string, legs: Array<['buy' | 'sell', string, string]>, quoteId = 'q1') =>
  h.send({
    type: 'PlaceQuotes', userId, marketId, quoteId, cancelFirst: true, amend: true, kind: 'option',
    orders: legs.map(([side, price, quantity]) => h.spec({ marketId, side, price, quantity, postOnly: true }, quoteId)),
  })

const take = (userId: string, marketId: string, side: 'buy' | 'sell', price: string, quantity: string, mmp = false) =>
  h.send({ type: 'PlaceOrder', userId, order: h.spec({ marketId, side, price, quantity, timeInForce: 'ioc' }), kind: 'option', mmp })

const openOf = (userId: string) =>
  [...h.engine.state.accounts.get(userId)!.marketOrders.values()].flat().map((o) => `${o.marketId}:${o.side}:${o.priceTicks}`).sort()

beforeEach(() => {
  h = new TradingHarness()
  for (const u of ['mm', 'taker']) {
    h.fund(u)
    fundOptions(u, 200_000)
  }
  h.engine.takeChanges()
})

describe('market-maker protection', () => {
  it('trips on the fill that takes the window past its quantity limit and cancels every protected order on the underlying in that command', () => {
    config('mm', { quantityLimit: 1.5 * UNIT })
    expect(quotes('mm', CALL, [['sell', '0.0500', '1'], ['sell', '0.0510', '1'], ['sell', '0.0520', '1'], ['buy', '0.0400', '1']]).ok).toBe(true)
    expect(quotes('mm', PUT, [['sell', '0.0300', '1'], ['buy', '0.0200', '1']]).ok).toBe(true)
    // Unprotected: an ordinary option order and a linear one.
    expect(h.send({ type: 'PlaceOrder', userId: 'mm', order: h.spec({ marketId: CALL, side: 'buy', price: '0.0390', quantity: '1' }), kind: 'option' }).ok).toBe(true)
    h.placeOk('mm', { marketId: PERP, side: 'buy', price: '90000', quantity: '0.01' })
    h.engine.takeChanges()

    // The taker sweeps up to 0.0520 for 3: the first ask fills (1 ≤ 1.5), the second takes it to 2 and trips.
    const r = take('taker', CALL, 'buy', '0.0520', '3')
    expect(r.ok && (r.value as any).filledQuantity).toBe('2')
    const changes = h.engine.takeChanges()
    const trip = changes.events.filter((e) => e.eventType === 'MmpTriggered')
    expect(trip).toHaveLength(1)
    expect(trip[0]).toMatchObject({ stream: 'orders:mm', payload: { underlying: 'BTC', reason: 'quantity', quantity: '2', frozenUntil: new Date(h.now + 5_000).toISOString() } })
    expect((trip[0]!.payload as any).canceledIds).toHaveLength(4)
    const canceled = changes.orders.filter((o) => o.userId === 'mm' && o.status === 'canceled')
    expect(canceled.map((o) => o.cancelReason)).toEqual(['mmp', 'mmp', 'mmp', 'mmp'])
    // Left: the two unprotected orders.
    expect(openOf('mm')).toEqual([`${CALL}:buy:390`, `${PERP}:buy:900000`])
    expect(h.engine.state.markets.get(CALL)!.book.bestAsk()).toBeUndefined()
  })

  it('refuses new protected orders with MMP_FROZEN until frozenMs has passed on engine time, and takes unprotected ones', () => {
    config('mm', { quantityLimit: 0.5 * UNIT, frozenMs: 5_000 })
    quotes('mm', CALL, [['sell', '0.0500', '1']])
    expect(take('taker', CALL, 'buy', '0.0500', '1').ok).toBe(true)
    const refused = quotes('mm', CALL, [['sell', '0.0500', '1']])
    expect(refused).toMatchObject({ ok: false, code: 'MMP_FROZEN', details: { underlying: 'BTC' } })
    expect(h.send({ type: 'PlaceOrder', userId: 'mm', order: h.spec({ marketId: PUT, side: 'sell', price: '0.0300', quantity: '1' }), kind: 'option', mmp: true }))
      .toMatchObject({ ok: false, code: 'MMP_FROZEN' })
    expect(h.send({ type: 'PlaceOrder', userId: 'mm', order: h.spec({ marketId: PUT, side: 'sell', price: '0.0300', quantity: '1' }), kind: 'option' }).ok).toBe(true)
    h.tick(4_999)
    h.marks({ BTC: '95000' })
    expect(quotes('mm', CALL, [['sell', '0.0500', '1']])).toMatchObject({ ok: false, code: 'MMP_FROZEN' })
    h.tick(1)
    h.marks({ BTC: '95000' })
    expect(quotes('mm', CALL, [['sell', '0.0500', '1']]).ok).toBe(true)
  })

  it('freezes until a reset when frozenMs is 0', () => {
    config('mm', { quantityLimit: 0.5 * UNIT, frozenMs: 0 })
    quotes('mm', CALL, [['sell', '0.0500', '1']])
    take('taker', CALL, 'buy', '0.0500', '1')
    h.tick(3_600_000)
    h.marks({ BTC: '95000' })
    expect(quotes('mm', CALL, [['sell', '0.0500', '1']])).toMatchObject({ ok: false, code: 'MMP_FROZEN' })
    expect(h.ok({ type: 'ResetMmp', userId: 'mm', underlying: 'BTC' })).toMatchObject({ frozen: false, trippedAt: null, enabled: true })
    expect(quotes('mm', CALL, [['sell', '0.0500', '1']]).ok).toBe(true)
  })

  it('trips on the absolute net delta: short deep calls add up, a hedge the other way takes it back', () => {
    config('mm', { deltaLimit: 1.5 * UNIT })
    quotes('mm', DEEP_CALL, [['sell', '0.2700', '1'], ['sell', '0.2710', '1'], ['buy', '0.2500', '1']])
    // Short one deep call (delta ≈ −1), then buy one back (≈ +1): net ≈ 0.
    take('taker', DEEP_CALL, 'buy', '0.2700', '1')
    take('taker', DEEP_CALL, 'sell', '0.2500', '1')
    const s = h.engine.state.mmp.get('mm|BTC')!
    expect(s.trippedAt).toBeNull()
    expect(Math.abs(s.delta)).toBeLessThan(0.05 * UNIT)
    expect(s.quantity).toBe(2 * UNIT)
    quotes('mm', DEEP_CALL, [['sell', '0.2700', '1'], ['sell', '0.2710', '1']])
    const r = take('taker', DEEP_CALL, 'buy', '0.2710', '2')
    expect(r.ok && (r.value as any).filledQuantity).toBe('2')
    const trip = h.engine.takeChanges().events.find((e) => e.eventType === 'MmpTriggered')
    expect(trip?.payload).toMatchObject({ reason: 'delta' })
    expect(Number((trip!.payload as any).delta)).toBeLessThan(-1.5)
  })

  it('counts only the fills inside the interval, on engine time', () => {
    config('mm', { quantityLimit: 1.5 * UNIT, intervalMs: 1_000 })
    quotes('mm', CALL, [['sell', '0.0500', '1'], ['sell', '0.0510', '1']])
    take('taker', CALL, 'buy', '0.0500', '1')
    h.tick(1_000)
    h.marks({ BTC: '95000' })
    take('taker', CALL, 'buy', '0.0510', '1')
    const s = h.engine.state.mmp.get('mm|BTC')!
    expect([s.trippedAt, s.quantity, s.window.length]).toEqual([null, UNIT, 1])
  })

  it('protects an order sent with mmp: true (its fills count, a trip cancels it) and refuses the flag on a linear market', () => {
    config('mm', { quantityLimit: 1.5 * UNIT })
    expect(h.send({ type: 'PlaceOrder', userId: 'mm', order: h.spec({ marketId: PUT, side: 'sell', price: '0.0300', quantity: '1' }), kind: 'option', mmp: true }).ok).toBe(true)
    quotes('mm', CALL, [['sell', '0.0500', '2']])
    take('taker', CALL, 'buy', '0.0500', '2')
    expect(openOf('mm')).toEqual([])
    expect(h.send({ type: 'PlaceOrder', userId: 'mm', order: h.spec({ marketId: PERP, side: 'buy', price: '90000', quantity: '0.01' }), mmp: true }))
      .toMatchObject({ ok: false, code: 'INVALID_REQUEST' })
  })

  it('does not let a protected taker rest once its own fills tripped its owner', () => {
    config('taker', { quantityLimit: 0.5 * UNIT })
    quotes('mm', CALL, [['sell', '0.0500', '1']])
    const r = h.send({ type: 'PlaceOrder', userId: 'taker', order: h.spec({ marketId: CALL, side: 'buy', price: '0.0500', quantity: '2' }), kind: 'option', mmp: true })
    expect(r).toMatchObject({ ok: true, value: { status: 'canceled', cancelReason: 'mmp', filledQuantity: '1' } })
  })

  it('counts nothing without a configuration, and refuses configurations out of range', () => {
    quotes('mm', CALL, [['sell', '0.0500', '1']])
    take('taker', CALL, 'buy', '0.0500', '1')
    expect(h.engine.state.mmp.size).toBe(0)
    for (const bad of [{ intervalMs: -1 }, { intervalMs: 3_600_001 }, { frozenMs: 86_400_001 }, { quantityLimit: 0, deltaLimit: 0 }, { quantityLimit: 0.5 }]) {
      expect(h.send({ type: 'SetMmpConfig', userId: 'mm', underlying: 'BTC', intervalMs: 1_000, frozenMs: 0, quantityLimit: UNIT, deltaLimit: 0, ...bad })).toMatchObject({ ok: false, code: 'INVALID_REQUEST' })
    }
    expect(h.send({ type: 'SetMmpConfig', userId: 'mm', underlying: 'XAUT', intervalMs: 1_000, frozenMs: 0, quantityLimit: UNIT, deltaLimit: 0 })).toMatchObject({ ok: false, code: 'INVALID_REQUEST' })
    // intervalMs 0 turns it off; an untripped state then leaves the engine.
    config('mm', { quantityLimit: UNIT })
    config('mm', { intervalMs: 0 })
    expect(h.engine.state.mmp.size).toBe(0)
  })

  it('keeps its configuration, window and freeze through a snapshot', () => {
    config('mm', { quantityLimit: 1.5 * UNIT, frozenMs: 0 })
    config('taker', { deltaLimit: 10 * UNIT })
    quotes('mm', CALL, [['sell', '0.0500', '1'], ['sell', '0.0510', '1']])
    take('taker', CALL, 'buy', '0.0500', '1')
    const before = stateHash(h.engine.state)
    const restored = restoreSnapshot(JSON.parse(JSON.stringify(takeSnapshot(h.engine.state))))
    expect(stateHash(restored)).toBe(before)
    expect(restored.mmp.get('mm|BTC')).toMatchObject({ quantity: UNIT, window: [[h.now, UNIT, expect.any(Number)]] })
    expect([...restored.orders.values()].every((o) => o.mmp)).toBe(true)
    // The restored engine trips exactly as the original.
    const copy = new Engine(restored)
    const order = h.spec({ marketId: CALL, side: 'buy', price: '0.0510', quantity: '1', timeInForce: 'ioc' })
    const cmd = { id: 'x', ts: h.now, cmd: { type: 'PlaceOrder', userId: 'taker', order, kind: 'option' } } as const
    h.engine.apply(structuredClone(cmd))
    copy.apply(structuredClone(cmd))
    expect(stateHash(copy.state)).toBe(stateHash(h.engine.state))
    expect(h.engine.state.mmp.get('mm|BTC')!.trippedAt).toBe(h.now)
  })
})
