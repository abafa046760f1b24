// Conditional orders: stops triggered by the mark, take-profit / stop-loss pairs armed by fills.
import { beforeEach, describe, expect, it } from 'vitest'
import { isUlid } from '../../src/domain/ids.js'
import { Engine } from '../../src/engine/engine.js'
import { restoreSnapshot, serializeSnapshot, stateHash } from '../../src/engine/snapshot.js'
import { orderView } from '../../src/engine/views.js'
import { envelope } from '../support/engineFixtures.js'
import { PERP, TradingHarness } from '../support/tradingFixtures.js'

let h: TradingHarness
const order = (id: string) => h.engine.state.orders.get(id)
const book = () => h.engine.state.markets.get(PERP)!.book
const position = (u: string) => h.engine.state.accounts.get(u)!.positions.get(PERP)?.lots ?? 0
/** The open take-profit / stop-loss children of an order: found by parentOrderId, not by their ids. */
const children = (parentId: string) => {
  const open = [...h.engine.state.accounts.get('alice')!.marketOrders.get(PERP)!].filter((o) => o.parentOrderId === parentId)
  return { tp: open.find((o) => o.takeProfitTicks !== null), sl: open.find((o) => o.stopLossTicks !== null), count: open.length }
}

beforeEach(() => {
  h = new TradingHarness()
  for (const u of ['alice', 'bob', 'mm']) h.fund(u)
  // liquidity on both sides, well away from the mark
  h.placeOk('mm', { side: 'sell', price: '97000', quantity: '5' })
  h.placeOk('mm', { side: 'buy', price: '93000', quantity: '5' })
})

describe('stop orders', () => {
  it('wait outside the book until the mark crosses the stop, then trade as placed', () => {
    const stop = h.placeOk('alice', { side: 'buy', type: 'market', quantity: '0.5', stopPrice: '96000' })
    expect(stop).toMatchObject({ status: 'open', stopPrice: '96000', triggeredAt: null, filledQuantity: '0' })
    expect(book().get(stop.id)).toBeUndefined()
    h.marks({ BTC: '95900' })
    expect(order(stop.id)!.triggeredAt).toBeNull()
    // The perpetual's mark is the index plus a small premium EMA: move the index through the stop.
    h.marks({ BTC: '96100' })
    const changes = h.engine.takeChanges()
    const fired = changes.orders.find((o) => o.id === stop.id)!
    expect(fired).toMatchObject({ status: 'filled', filledLots: 500, triggeredAt: h.now })
    expect(changes.fills.filter((f) => f.orderId === stop.id).map((f) => f.priceTicks)).toEqual([970_000])
    expect(position('alice')).toBe(500)
  })

  it('refuse a stop that would fire at once', () => {
    expect(h.place('alice', { side: 'buy', type: 'market', quantity: '0.5', stopPrice: '94000' })).toMatchObject({ ok: false, code: 'INVALID_PRICE' })
    expect(h.place('alice', { side: 'sell', type: 'market', quantity: '0.5', stopPrice: '96000' })).toMatchObject({ ok: false, code: 'INVALID_PRICE' })
  })

  it('end rejected, with the refusal as the reason, when the triggered order fails its checks', () => {
    const stop = h.placeOk('alice', { side: 'sell', type: 'market', quantity: '0.5', stopPrice: '94000', reduceOnly: true })
    h.marks({ BTC: '93900' })
    expect(h.engine.takeChanges().orders.find((o) => o.id === stop.id)).toMatchObject({ status: 'rejected', cancelReason: 'REDUCE_ONLY_VIOLATION', triggeredAt: h.now })
    expect(order(stop.id)).toBeUndefined()
  })

  it('can be cancelled while waiting', () => {
    const stop = h.placeOk('alice', { side: 'buy', price: '96500', quantity: '0.5', stopPrice: '96000' })
    expect(h.ok({ type: 'CancelOrder', userId: 'alice', orderId: stop.id })).toMatchObject({ status: 'canceled', triggeredAt: null })
    h.marks({ BTC: '96100' })
    expect(position('alice')).toBe(0)
  })
})

describe('take-profit and stop-loss', () => {
  it('arm a reduce-only pair sized to the parent\'s fills, and the one that fires cancels the other', () => {
    h.placeOk('bob', { side: 'sell', price: '95100', quantity: '0.3' })
    const parent = h.placeOk('alice', { side: 'buy', price: '95100', quantity: '1', takeProfitPrice: '96000', stopLossPrice: '94000' })
    const { tp, sl, count } = children(parent.id)
    expect(count).toBe(2)
    // ids of their own: ULIDs like every order id (SPEC.md), distinct; the link to the parent is parentOrderId
    for (const child of [tp!, sl!]) {
      expect(isUlid(child.id)).toBe(true)
      expect(order(child.id)).toBe(child)
    }
    expect(tp!.id).not.toBe(sl!.id)
    expect(tp).toMatchObject({ side: 'sell', reduceOnly: true, lots: 300, parentOrderId: parent.id, stopTicks: 960_000, triggeredAt: null })
    expect(sl).toMatchObject({ side: 'sell', reduceOnly: true, lots: 300, parentOrderId: parent.id, stopTicks: 940_000 })
    // the rest of the parent fills later (in two fills): the pair follows, and no second pair appears
    h.placeOk('bob', { side: 'sell', price: '95100', quantity: '0.3' })
    h.placeOk('bob', { side: 'sell', price: '95100', quantity: '0.4' })
    expect(children(parent.id)).toEqual({ tp, sl, count: 2 })
    expect([tp!.lots, sl!.lots]).toEqual([1_000, 1_000])
    // the mark rises to the take-profit: it sells the position; the stop-loss is cancelled
    h.placeOk('mm', { side: 'buy', price: '95900', quantity: '2' })
    h.marks({ BTC: '96000' })
    const changes = h.engine.takeChanges()
    expect(changes.orders.find((o) => o.id === tp!.id)).toMatchObject({ status: 'filled', filledLots: 1_000 })
    expect(changes.orders.find((o) => o.id === sl!.id)).toMatchObject({ status: 'canceled', cancelReason: 'oco' })
    expect(position('alice')).toBe(0)
  })

  it('cancel as a pair, and a later fill of the parent does not arm a second pair', () => {
    h.placeOk('bob', { side: 'sell', price: '95100', quantity: '0.4' })
    const parent = h.placeOk('alice', { side: 'buy', price: '95100', quantity: '1', takeProfitPrice: '96000', stopLossPrice: '94000' })
    h.placeOk('alice', { side: 'sell', type: 'market', quantity: '0.1', stopPrice: '93000', reduceOnly: true }) // no parent: not a sibling
    const { tp, sl } = children(parent.id)
    const reply = h.ok({ type: 'CancelOrder', userId: 'alice', orderId: sl!.id }) as any
    expect(reply).toMatchObject({ id: sl!.id, status: 'canceled', parentOrderId: parent.id })
    expect(order(tp!.id)).toBeUndefined()
    expect(order(sl!.id)).toBeUndefined()
    expect(h.engine.takeChanges().orders.find((o) => o.id === tp!.id)).toMatchObject({ status: 'canceled', cancelReason: 'user' })
    expect(children(parent.id).count).toBe(0)
    expect(h.engine.state.accounts.get('alice')!.marketOrders.get(PERP)!.filter((o) => o.stopTicks === 930_000)).toHaveLength(1)
    // the parent fills again: the cancelled pair stays cancelled
    h.placeOk('bob', { side: 'sell', price: '95100', quantity: '0.6' })
    expect(order(parent.id)).toBeUndefined() // filled
    expect(children(parent.id).count).toBe(0)
  })

  it('show their parent in the order view, and an order without one shows null', () => {
    h.placeOk('bob', { side: 'sell', price: '95100', quantity: '0.5' })
    const parent = h.placeOk('alice', { side: 'buy', price: '95100', quantity: '1', takeProfitPrice: '96000', stopLossPrice: '94000' })
    expect(parent).toMatchObject({ parentOrderId: null, filledQuantity: '0.5' })
    const { tp, sl } = children(parent.id)
    const market = h.engine.state.markets.get(PERP)!
    expect(orderView(tp!, market)).toMatchObject({ id: tp!.id, parentOrderId: parent.id, takeProfitPrice: '96000', stopLossPrice: null })
    expect(orderView(sl!, market)).toMatchObject({ id: sl!.id, parentOrderId: parent.id, takeProfitPrice: null, stopLossPrice: '94000' })
    const changed = h.engine.takeChanges().orders.filter((o) => o.parentOrderId === parent.id)
    expect(changed.map((o) => o.id).sort()).toEqual([tp!.id, sl!.id].sort())
    h.marks({ BTC: '96100' })
    const fired = h.engine.takeChanges().orders.find((o) => o.id === tp!.id)
    expect(fired).toMatchObject({ parentOrderId: parent.id, triggeredAt: h.now })
  })

  it('must sit on the profitable and the losing side of the order\'s price', () => {
    expect(h.place('alice', { side: 'buy', price: '95100', quantity: '1', takeProfitPrice: '95000' })).toMatchObject({ ok: false, code: 'INVALID_PRICE' })
    expect(h.place('alice', { side: 'sell', price: '95100', quantity: '1', stopLossPrice: '95000' })).toMatchObject({ ok: false, code: 'INVALID_PRICE' })
    expect(h.place('alice', { side: 'buy', price: '95100', quantity: '1', takeProfitPrice: '96000', reduceOnly: true })).toMatchObject({ ok: false, code: 'INVALID_REQUEST' })
  })

  it('survive a snapshot: a restored engine fires them the same way', () => {
    h.placeOk('bob', { side: 'sell', price: '95100', quantity: '1' })
    h.placeOk('alice', { side: 'buy', price: '95100', quantity: '1', takeProfitPrice: '96000', stopLossPrice: '94000' })
    h.placeOk('alice', { side: 'sell', type: 'market', quantity: '0.1', stopPrice: '93500', reduceOnly: true })
    const restored = new Engine(restoreSnapshot(JSON.parse(serializeSnapshot(h.engine.state))))
    expect(stateHash(restored.state)).toBe(stateHash(h.engine.state))
    const drop = { type: 'UpdateMarks' as const, marks: [h.legs.f1.id, h.legs.f2.id, 'BTC-USDC-SPOT'].map((marketId) => ({ marketId, price: '93400', source: 'test', sourceTs: h.now })) }
    h.engine.apply(envelope(drop, h.now))
    restored.apply(envelope(drop, h.now))
    expect(stateHash(restored.state)).toBe(stateHash(h.engine.state))
    expect(position('alice')).toBe(0) // the stop-loss fired (the reduce-only stop found nothing left)
  })
})
