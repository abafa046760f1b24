// Linear trading in the pure engine: matching, fees, positions, PnL, every refusal, reservations.
import { beforeEach, describe, expect, it } from 'vitest'
import { SYSTEM_USER } from '../../src/domain/buckets.js'
import { stateHash, restoreSnapshot, serializeSnapshot } from '../../src/engine/snapshot.js'
import { Engine } from '../../src/engine/engine.js'
import { envelope } from '../support/engineFixtures.js'
import { openOrderCount, PERP, SPOT, TradingHarness } from '../support/tradingFixtures.js'

const USDC = 1_000_000n
let h: TradingHarness

beforeEach(() => {
  h = new TradingHarness()
  for (const u of ['alice', 'bob', 'carol']) h.fund(u)
})

const totalBalances = () => {
  let sum = 0n
  for (const a of h.engine.state.accounts.values()) for (const v of a.balances.values()) sum += v
  return sum
}

describe('order events', () => {
  it('show the order as it stood when emitted, though the order changes afterwards', () => {
    h.engine.takeChanges()
    const placed = h.placeOk('alice', { side: 'buy', price: '95000', quantity: '0.3' })
    h.placeOk('bob', { side: 'sell', price: '95000', quantity: '0.1' })
    h.send({ type: 'ModifyOrder', userId: 'alice', orderId: placed.id, priceTicks: 949_000, lots: null })
    h.send({ type: 'CancelOrder', userId: 'alice', orderId: placed.id })
    const updates = h.engine
      .takeChanges()
      .events.filter((e) => e.eventType === 'OrderUpdate' && (e.payload as { toJSON(): { id: string } }).toJSON().id === placed.id)
      .map((e) => JSON.parse(JSON.stringify(e.payload)) as Record<string, unknown>)
    expect(updates.map((u) => [u.status, u.price, u.filledQuantity, u.cancelReason])).toEqual([
      ['open', '95000', '0', null],
      ['open', '95000', '0.1', null],
      ['open', '94900', '0.1', null],
      ['canceled', '94900', '0.1', 'user'],
    ])
    expect(updates[0]).toEqual({ ...placed, updatedAt: updates[0]!.updatedAt })
  })
})

describe('a batch\'s changes', () => {
  it('list each changed order, position and account once, however often it changed, and again in the next batch', () => {
    h.engine.takeChanges()
    const ask = h.placeOk('alice', { side: 'sell', price: '95000', quantity: '0.3' })
    h.placeOk('bob', { side: 'buy', price: '95000', quantity: '0.1' })
    h.placeOk('bob', { side: 'buy', price: '95000', quantity: '0.1' })
    const first = h.engine.takeChanges()
    expect(first.orders.filter((o) => o.id === ask.id)).toHaveLength(1)
    expect(first.orders.map((o) => o.userId).sort()).toEqual(['alice', 'bob', 'bob'])
    expect(first.positions.map((p) => [p.userId, p.marketId]).sort()).toEqual([['alice', PERP], ['bob', PERP]])
    expect(first.balances.map((a) => a.userId).sort()).toEqual([SYSTEM_USER, 'alice', 'bob'].sort())
    // Written as it stands at the end of the batch: filled twice.
    expect(first.orders.find((o) => o.id === ask.id)).toMatchObject({ filledLots: 200, status: 'open' })

    h.placeOk('carol', { side: 'buy', price: '95000', quantity: '0.1' })
    const second = h.engine.takeChanges()
    expect(second.orders.filter((o) => o.id === ask.id)).toMatchObject([{ filledLots: 300, status: 'filled' }])
    expect(second.positions.map((p) => p.userId).sort()).toEqual(['alice', 'carol'])
    expect(second.balances.map((a) => a.userId).sort()).toEqual([SYSTEM_USER, 'alice', 'carol'].sort())
  })
})

describe('matching', () => {
  it('trades at the resting price in price-time priority, filling makers in order', () => {
    h.placeOk('alice', { side: 'sell', price: '95100', quantity: '0.3' })
    h.placeOk('bob', { side: 'sell', price: '95050', quantity: '0.1' })
    h.placeOk('carol', { side: 'sell', price: '95100', quantity: '0.2' })
    const taker = h.placeOk('carol', { side: 'buy', price: '95100', quantity: '0.5' })
    // bob's better price first, then alice (earlier) at 95100; carol's own ask is cancelled, not hit,
    // and the rest of her bid rests.
    expect(taker).toMatchObject({ status: 'open', filledQuantity: '0.4' })
    const fills = h.engine.takeChanges().fills.filter((f) => f.role === 'maker')
    expect(fills.map((f) => [f.userId, f.priceTicks / 10, f.lots / 1000])).toEqual([
      ['bob', 95050, 0.1],
      ['alice', 95100, 0.3],
    ])
  })

  it('rests the unfilled remainder of a gtc limit order', () => {
    h.placeOk('alice', { side: 'sell', price: '95100', quantity: '0.1' })
    const o = h.placeOk('bob', { side: 'buy', price: '95100', quantity: '0.4' })
    expect(o).toMatchObject({ status: 'open', filledQuantity: '0.1', quantity: '0.4' })
    expect(h.engine.state.markets.get(PERP)!.book.depth(0)).toEqual([[951000, 300]])
  })

  it('charges taker and maker fees per market in bps, rounded up to the micro-USDC', () => {
    h.placeOk('alice', { side: 'sell', price: '95100', quantity: '0.2' })
    h.placeOk('bob', { side: 'buy', price: '95100', quantity: '0.2' })
    // notional 19,020 USDC: taker 5 bps = 9.51, maker 1 bp = 1.902
    expect(h.balance('bob', 'perps')).toBe(100_000n * USDC - 9_510_000n)
    expect(h.balance('alice', 'perps')).toBe(100_000n * USDC - 1_902_000n)
    expect(h.balance(SYSTEM_USER, 'fees')).toBe(9_510_000n + 1_902_000n)
    expect(totalBalances()).toBe(0n)
  })

  it('opens long and short positions and realizes PnL through the clearing account on close', () => {
    h.placeOk('alice', { side: 'sell', price: '95000', quantity: '1' })
    h.placeOk('bob', { side: 'buy', price: '95000', quantity: '1' })
    const pos = (u: string) => h.engine.state.accounts.get(u)!.positions.get(PERP)!
    expect([pos('bob').lots, pos('alice').lots]).toEqual([1000, -1000])
    h.marks({ BTC: '96000' })
    h.placeOk('carol', { side: 'buy', price: '96000', quantity: '1' })
    const before = h.balance('bob', 'perps')
    h.placeOk('bob', { side: 'sell', price: '96000', quantity: '1', reduceOnly: true, type: 'market' })
    expect(pos('bob')).toMatchObject({ lots: 0, cost: 0n, realized: 1_000n * USDC })
    // +1,000 USDC PnL, −9.60 taker fee on a 96,000 notional.
    expect(h.balance('bob', 'perps') - before).toBe(1_000n * USDC - 48_000_000n)
    expect(h.balance(SYSTEM_USER, 'clearing')).toBe(-1_000n * USDC)
    expect(totalBalances()).toBe(0n)
  })

  it('flips a position through zero with the remainder opened at the trade price', () => {
    h.placeOk('alice', { side: 'sell', price: '95000', quantity: '1' })
    h.placeOk('bob', { side: 'buy', price: '95000', quantity: '1' })
    h.placeOk('carol', { side: 'buy', price: '95100', quantity: '3' })
    h.placeOk('bob', { side: 'sell', price: '95100', quantity: '3' })
    expect(h.engine.state.accounts.get('bob')!.positions.get(PERP)).toMatchObject({ lots: -2000, cost: 190_200n * USDC, realized: 100n * USDC })
  })

  it('cancels the remainder of an ioc order and of a market order', () => {
    h.placeOk('alice', { side: 'sell', price: '95100', quantity: '0.1' })
    expect(h.placeOk('bob', { side: 'buy', price: '95200', quantity: '0.3', timeInForce: 'ioc' })).toMatchObject({ status: 'canceled', filledQuantity: '0.1', cancelReason: 'ioc_unfilled' })
    h.placeOk('alice', { side: 'sell', price: '95100', quantity: '0.1' })
    expect(h.placeOk('bob', { side: 'buy', type: 'market', quantity: '0.3' })).toMatchObject({ status: 'canceled', filledQuantity: '0.1', type: 'market', price: null })
  })

  it('fills a fok order completely or cancels it with nothing filled', () => {
    h.placeOk('alice', { side: 'sell', price: '95100', quantity: '0.2' })
    expect(h.placeOk('bob', { side: 'buy', price: '95100', quantity: '0.3', timeInForce: 'fok' })).toMatchObject({ status: 'canceled', filledQuantity: '0' })
    expect(h.placeOk('bob', { side: 'buy', price: '95100', quantity: '0.2', timeInForce: 'fok' })).toMatchObject({ status: 'filled', filledQuantity: '0.2' })
  })

  it('stops a market order at the price band around the mark', () => {
    h.placeOk('alice', { side: 'sell', price: '104500', quantity: '0.1' })
    h.placeOk('alice', { side: 'sell', price: '104400', quantity: '0.1' })
    // band high = 95,000 × 1.10 = 104,500: both levels are inside; the mark moves and the band with it.
    h.marks({ BTC: '94950' })
    const o = h.placeOk('bob', { side: 'buy', type: 'market', quantity: '0.2' })
    expect(o).toMatchObject({ status: 'canceled', filledQuantity: '0.1' })
  })

  it('never trades a user with itself: the resting own order is cancelled and matching goes on', () => {
    h.placeOk('alice', { side: 'sell', price: '95050', quantity: '0.1' })
    h.placeOk('bob', { side: 'sell', price: '95100', quantity: '0.1' })
    const o = h.placeOk('alice', { side: 'buy', price: '95100', quantity: '0.1' })
    expect(o).toMatchObject({ status: 'filled' })
    const changes = h.engine.takeChanges()
    expect([...changes.orders.values()].find((x) => x.userId === 'alice' && x.side === 'sell')).toMatchObject({ status: 'canceled', cancelReason: 'self_trade' })
    expect(changes.fills.filter((f) => f.role === 'maker').map((f) => f.userId)).toEqual(['bob'])
  })
})

describe('refusals change nothing', () => {
  const refused = (userId: string, req: Parameters<TradingHarness['place']>[1], code: string) => {
    const before = stateHash(h.engine.state)
    const r = h.place(userId, req)
    expect(r).toMatchObject({ ok: false, code })
    expect(stateHash(h.engine.state)).toBe(before)
    return r
  }

  it('refuses a post-only order that would cross', () => {
    h.placeOk('alice', { side: 'sell', price: '95100', quantity: '0.1' })
    refused('bob', { side: 'buy', price: '95100', quantity: '0.1', postOnly: true }, 'POST_ONLY_WOULD_CROSS')
    expect(h.placeOk('bob', { side: 'buy', price: '95099.9', quantity: '0.1', postOnly: true }).status).toBe('open')
  })

  it('refuses a reduce-only order that would open or grow a position', () => {
    refused('bob', { side: 'buy', price: '95000', quantity: '0.1', reduceOnly: true }, 'REDUCE_ONLY_VIOLATION')
    h.placeOk('alice', { side: 'sell', price: '95000', quantity: '0.1' })
    h.placeOk('bob', { side: 'buy', price: '95000', quantity: '0.1' })
    refused('bob', { side: 'buy', price: '95000', quantity: '0.1', reduceOnly: true }, 'REDUCE_ONLY_VIOLATION')
    refused('bob', { side: 'sell', price: '95000', quantity: '0.2', reduceOnly: true }, 'REDUCE_ONLY_VIOLATION')
    expect(h.place('bob', { side: 'sell', price: '95000', quantity: '0.1', reduceOnly: true }).ok).toBe(true)
  })

  it('never lets stacked reduce-only orders grow or flip a position: once it shrinks, the newest are reduced or cancelled', () => {
    const lots = (u: string) => h.engine.state.accounts.get(u)!.positions.get(PERP)?.lots ?? 0
    h.placeOk('alice', { side: 'sell', price: '95000', quantity: '0.3' })
    h.placeOk('bob', { side: 'buy', price: '95000', quantity: '0.3' })
    expect(lots('bob')).toBe(300)
    // Five reduce-only sells of the whole position, each admissible on its own.
    const stacked = [0, 1, 2, 3, 4].map(() => h.placeOk('bob', { side: 'sell', price: '95100', quantity: '0.3', reduceOnly: true }))
    h.engine.takeChanges()
    const taker = h.placeOk('carol', { side: 'buy', price: '95100', quantity: '1.5', timeInForce: 'ioc' })
    expect(taker).toMatchObject({ filledQuantity: '0.3', status: 'canceled' })
    expect(lots('bob')).toBe(0)
    const orders = h.engine.takeChanges().orders
    const status = (id: string) => orders.find((o) => o.id === id)
    expect(status(stacked[0].id)).toMatchObject({ status: 'filled' })
    for (const o of stacked.slice(1)) expect(status(o.id)).toMatchObject({ status: 'canceled', cancelReason: 'reduce_only' })

    // Shrunk but not closed: the newest is cut to what is left, the older keeps its place.
    h.placeOk('alice', { side: 'sell', price: '95000', quantity: '0.3' })
    h.placeOk('bob', { side: 'buy', price: '95000', quantity: '0.3' })
    const older = h.placeOk('bob', { side: 'sell', price: '95200', quantity: '0.2', reduceOnly: true })
    const newer = h.placeOk('bob', { side: 'sell', price: '95300', quantity: '0.2', reduceOnly: true })
    h.placeOk('bob', { side: 'sell', price: '95100', quantity: '0.2' })
    h.placeOk('carol', { side: 'buy', price: '95100', quantity: '0.2' })
    expect(lots('bob')).toBe(100)
    const book = h.engine.state.markets.get(PERP)!.book
    expect(book.get(older.id)).toMatchObject({ remaining: 100 })
    expect(book.get(newer.id)).toBeUndefined()
    expect(h.engine.state.orders.get(newer.id)).toBeUndefined()
  })

  it('refuses a reused clientOrderId, naming the existing order', () => {
    const first = h.placeOk('bob', { side: 'buy', price: '94000', quantity: '0.1', clientOrderId: 'abc-1' })
    h.placeOk('bob', { side: 'buy', price: '94000', quantity: '0.1', clientOrderId: 'abc-2' })
    h.send({ type: 'CancelOrder', userId: 'bob', orderId: first.id })
    const r = refused('bob', { side: 'buy', price: '94000', quantity: '0.1', clientOrderId: 'abc-1' }, 'DUPLICATE_CLIENT_ORDER_ID')
    expect(r).toMatchObject({ details: { existingOrderId: first.id } })
    // Another user may use the same clientOrderId.
    expect(h.place('alice', { side: 'buy', price: '94000', quantity: '0.1', clientOrderId: 'abc-1' }).ok).toBe(true)
  })

  it('refuses orders on a halted market with MARKET_HALTED', () => {
    h.ok({ type: 'SetMarketStatus', marketId: PERP, status: 'halted' })
    refused('bob', { side: 'buy', price: '95000', quantity: '0.1' }, 'MARKET_HALTED')
  })

  it('refuses when the governing mark is missing or stale (fail closed)', () => {
    const resting = h.placeOk('bob', { side: 'buy', price: '94000', quantity: '0.2' })
    h.tick(5_001)
    h.ok({ type: 'Tick' }) // moves the engine clock, so only the refusal is compared
    refused('bob', { side: 'buy', price: '95000', quantity: '0.1' }, 'STALE_MARK_PRICE')
    // A modify that adds risk is refused too; one that only lowers the quantity goes through.
    const modify = (priceTicks: number | null, lots: number | null) => h.send({ type: 'ModifyOrder', userId: 'bob', orderId: resting.id, priceTicks, lots })
    expect(modify(null, 300)).toMatchObject({ ok: false, code: 'STALE_MARK_PRICE' })
    expect(modify(939_000, null)).toMatchObject({ ok: false, code: 'STALE_MARK_PRICE' })
    expect(modify(null, 100)).toMatchObject({ ok: true })
    const fresh = new TradingHarness()
    fresh.fund('bob')
    expect(fresh.place('bob', { marketId: 'BTC-USDC-2027-03-26', side: 'buy', price: '95000', quantity: '0.1' }).ok).toBe(true)
    fresh.ok({ type: 'ListMarkets', markets: [{ ...fresh.engine.state.markets.get(SPOT)!.spec, id: 'BTC-USDC-2099-12-25', type: 'future', expiryMs: Date.UTC(2099, 11, 25, 8) }] })
    expect(fresh.place('bob', { marketId: 'BTC-USDC-2099-12-25', side: 'buy', price: '95000', quantity: '0.1' })).toMatchObject({ ok: false, code: 'MISSING_MARK_PRICE' })
  })

  it('refuses prices outside the ±10% band with the band in details', () => {
    const r = refused('bob', { side: 'buy', price: '104500.1', quantity: '0.1' }, 'INVALID_PRICE')
    expect(r).toMatchObject({ details: { priceBandLow: '85500', priceBandHigh: '104500' } })
    expect(h.place('bob', { side: 'buy', price: '104500', quantity: '0.1' }).ok).toBe(true)
  })

  it('refuses an order beyond the margin, with required and available initial margin', () => {
    // 100,000 USDC at 10% IM carries about 1,000,000 of notional: 11 BTC at 95,000 is too much.
    const r = refused('bob', { side: 'buy', price: '95000', quantity: '11' }, 'INSUFFICIENT_MARGIN')
    expect(r).toMatchObject({ details: { requiredIm: '104500', availableIm: '100000' } })
  })

  it('refuses spot orders the spot bucket or the holding cannot fund', () => {
    refused('bob', { marketId: SPOT, side: 'buy', price: '95000', quantity: '2' }, 'INSUFFICIENT_BALANCE')
    refused('bob', { marketId: SPOT, side: 'sell', price: '95000', quantity: '0.001' }, 'INSUFFICIENT_BALANCE')
  })

  it('refuses an unknown market and an account that does not exist', () => {
    refused('bob', { marketId: 'BTC-2026-12-18-100000-C', side: 'buy', price: '0.01', quantity: '0.01' }, 'INVALID_MARKET_ID')
    expect(h.place('nobody', { side: 'buy', price: '95000', quantity: '0.1' })).toMatchObject({ ok: false, code: 'ACCOUNT_NOT_FOUND' })
  })
})

describe('spot', () => {
  it('moves USDC and the asset between the two sides, fully funded, with fees', () => {
    h.ok({ type: 'Genesis', userId: 'maker', usdcMicro: '0', holdings: [{ marketId: SPOT, lots: 2_000 }] })
    h.ok({ type: 'Faucet', userId: 'maker', amountMicro: String(1_000n * USDC), dailyCapMicro: String(100_000n * USDC) })
    h.ok({ type: 'Transfer', userId: 'maker', from: 'wallet', to: 'spot', amountMicro: String(1_000n * USDC) })
    h.placeOk('maker', { marketId: SPOT, side: 'sell', price: '95000', quantity: '1' })
    // a resting sell holds its base
    expect(h.engine.state.accounts.get('maker')!.baseLocked.get(SPOT)).toBe(1_000)
    h.placeOk('bob', { marketId: SPOT, side: 'buy', price: '95000', quantity: '0.5' })
    // 47,500 + 10 bps taker (47.5)
    expect(h.balance('bob', 'spot')).toBe(100_000n * USDC - 47_500n * USDC - 47_500_000n)
    expect(h.balance('maker', 'spot')).toBe(1_000n * USDC + 47_500n * USDC - 23_750_000n)
    expect(h.engine.state.accounts.get('bob')!.holding(SPOT)).toBe(500)
    expect(h.engine.state.accounts.get('maker')!.holding(SPOT)).toBe(1_500)
    expect(totalBalances()).toBe(0n)
  })

  it('reserves USDC for a resting buy and releases it on cancel', () => {
    const o = h.placeOk('bob', { marketId: SPOT, side: 'buy', price: '90000', quantity: '0.5' })
    // 45,000 + the 10 bps taker fee
    expect(h.engine.state.accounts.get('bob')!.spotLocked).toBe(45_045n * USDC)
    expect(h.send({ type: 'Transfer', userId: 'bob', from: 'spot', to: 'wallet', amountMicro: String(60_000n * USDC) })).toMatchObject({ ok: false, code: 'INSUFFICIENT_BALANCE' })
    h.ok({ type: 'CancelOrder', userId: 'bob', orderId: o.id })
    expect(h.engine.state.accounts.get('bob')!.spotLocked).toBe(0n)
  })
})

describe('order lifecycle', () => {
  it('cancels an open order, then answers ORDER_NOT_FOUND for it and for a stranger\'s', () => {
    const o = h.placeOk('bob', { side: 'buy', price: '94000', quantity: '0.1' })
    expect(h.send({ type: 'CancelOrder', userId: 'alice', orderId: o.id })).toMatchObject({ ok: false, code: 'ORDER_NOT_FOUND' })
    expect(h.ok({ type: 'CancelOrder', userId: 'bob', orderId: o.id })).toMatchObject({ status: 'canceled', cancelReason: 'user' })
    expect(h.send({ type: 'CancelOrder', userId: 'bob', orderId: o.id })).toMatchObject({ ok: false, code: 'ORDER_NOT_FOUND' })
    expect(h.engine.state.accounts.get('bob')!.exposure.size).toBe(0)
  })

  it('modifies: a smaller quantity keeps time priority, a new price loses it', () => {
    const a = h.placeOk('alice', { side: 'buy', price: '94000', quantity: '0.3' })
    h.placeOk('bob', { side: 'buy', price: '94000', quantity: '0.3' })
    h.ok({ type: 'ModifyOrder', userId: 'alice', orderId: a.id, priceTicks: null, lots: 200 })
    const book = h.engine.state.markets.get(PERP)!.book
    expect([...book.orders()].map((o) => o.owner)).toEqual(['alice', 'bob'])
    h.ok({ type: 'ModifyOrder', userId: 'alice', orderId: a.id, priceTicks: 940_010, lots: null })
    h.ok({ type: 'ModifyOrder', userId: 'alice', orderId: a.id, priceTicks: 940_000, lots: null })
    expect([...book.orders()].map((o) => o.owner)).toEqual(['bob', 'alice'])
  })

  it('refuses a modify below the filled quantity and trades a modify that now crosses', () => {
    h.placeOk('alice', { side: 'sell', price: '95100', quantity: '0.1' })
    const o = h.placeOk('bob', { side: 'buy', price: '95100', quantity: '0.3' })
    expect(h.send({ type: 'ModifyOrder', userId: 'bob', orderId: o.id, priceTicks: null, lots: 100 })).toMatchObject({ ok: false, code: 'INVALID_QUANTITY' })
    h.placeOk('carol', { side: 'sell', price: '95200', quantity: '0.2' })
    expect(h.ok({ type: 'ModifyOrder', userId: 'bob', orderId: o.id, priceTicks: 952_000, lots: null })).toMatchObject({ status: 'filled', filledQuantity: '0.3' })
  })

  it('cancels all by market, quote id or client order id, oldest first', () => {
    const a = h.placeOk('bob', { side: 'buy', price: '94000', quantity: '0.1' })
    const b = h.placeOk('bob', { marketId: 'XAUT-USDC-PERP', side: 'buy', price: '3900', quantity: '1' })
    const c = h.placeOk('bob', { side: 'buy', price: '94100', quantity: '0.1', clientOrderId: 'x' })
    expect(h.ok({ type: 'CancelAll', userId: 'bob', clientOrderId: 'x' })).toEqual({ canceled: 1, ids: [c.id] })
    expect(h.ok({ type: 'CancelAll', userId: 'bob', marketId: PERP })).toEqual({ canceled: 1, ids: [a.id] })
    expect(h.ok({ type: 'CancelAll', userId: 'bob' })).toEqual({ canceled: 1, ids: [b.id] })
    expect(h.ok({ type: 'CancelAll', userId: 'bob' })).toEqual({ canceled: 0, ids: [] })
  })

  it('fires the dead man\'s switch on the first tick past its deadline, and not after a disarm', () => {
    h.placeOk('bob', { side: 'buy', price: '94000', quantity: '0.1' })
    expect(h.ok({ type: 'CancelAllAfter', userId: 'bob', timeoutMs: 5_000 })).toMatchObject({ timeoutMs: 5_000 })
    h.tick(4_999)
    expect(h.ok({ type: 'Tick' })).toEqual({ deadmanFired: 0 })
    h.tick(1)
    expect(h.ok({ type: 'Tick' })).toEqual({ deadmanFired: 1 })
    expect(openOrderCount(h.engine.state.accounts.get('bob')!)).toBe(0)
    h.ok({ type: 'CancelAllAfter', userId: 'bob', timeoutMs: 1_000 })
    h.ok({ type: 'CancelAllAfter', userId: 'bob', timeoutMs: 0 })
    h.tick(10_000)
    expect(h.ok({ type: 'Tick' })).toEqual({ deadmanFired: 0 })
    expect(h.send({ type: 'CancelAllAfter', userId: 'bob', timeoutMs: 10 })).toMatchObject({ ok: false, code: 'INVALID_REQUEST' })
  })
})

describe('quotes', () => {
  it('rests both sides of a two-sided quote, or neither', () => {
    const specs = (bid: string, ask: string) => [h.spec({ side: 'buy', price: bid, quantity: '0.1', postOnly: true }, 'q1'), h.spec({ side: 'sell', price: ask, quantity: '0.1', postOnly: true }, 'q1')]
    h.placeOk('alice', { side: 'sell', price: '95100', quantity: '0.1' })
    expect(h.send({ type: 'PlaceQuotes', userId: 'bob', marketId: PERP, quoteId: 'q1', orders: specs('94900', '95100'), cancelFirst: false })).toMatchObject({ ok: true })
    expect(h.send({ type: 'PlaceQuotes', userId: 'bob', marketId: PERP, quoteId: 'q1', orders: specs('95100', '95300'), cancelFirst: false })).toMatchObject({ ok: false, code: 'POST_ONLY_WOULD_CROSS' })
    expect(openOrderCount(h.engine.state.accounts.get('bob')!)).toBe(2)
    expect(h.send({ type: 'PlaceQuotes', userId: 'bob', marketId: PERP, quoteId: 'q1', orders: specs('95000', '94990'), cancelFirst: false })).toMatchObject({ ok: false, code: 'INVALID_PRICE' })
  })

  it('refuses a clientOrderId given twice in one quote as malformed, and one already used with the order holding it', () => {
    const quote = (cids: [string, string]) => [
      h.spec({ side: 'buy', price: '94900', quantity: '0.1', postOnly: true, clientOrderId: cids[0] }, 'q2'),
      h.spec({ side: 'sell', price: '95100', quantity: '0.1', postOnly: true, clientOrderId: cids[1] }, 'q2'),
    ]
    const send = (cids: [string, string]) => h.send({ type: 'PlaceQuotes', userId: 'bob', marketId: PERP, quoteId: 'q2', orders: quote(cids), cancelFirst: false })
    const twice = send(['same', 'same'])
    expect(twice).toMatchObject({ ok: false, code: 'INVALID_REQUEST' })
    expect(twice).not.toHaveProperty('details')
    const held = h.placeOk('bob', { side: 'buy', price: '94000', quantity: '0.1', clientOrderId: 'taken' })
    expect(send(['fresh', 'taken'])).toMatchObject({ ok: false, code: 'DUPLICATE_CLIENT_ORDER_ID', details: { existingOrderId: held.id } })
    expect(openOrderCount(h.engine.state.accounts.get('bob')!)).toBe(1)
  })

  it('bulk: cancels the caller\'s orders on the market first, then posts the batch atomically', () => {
    const old = h.placeOk('bob', { side: 'buy', price: '94000', quantity: '0.1' })
    const batch = [94_500, 94_600, 94_700].map((p) => h.spec({ side: 'buy', price: String(p), quantity: '0.1', postOnly: true }, 'mm'))
    const r = h.ok({ type: 'PlaceQuotes', userId: 'bob', marketId: PERP, quoteId: 'mm', orders: batch, cancelFirst: true })
    expect(r.canceled).toEqual([old.id])
    expect(r.results).toHaveLength(3)
    const tooMuch = [h.spec({ side: 'buy', price: '94000', quantity: '20', postOnly: true }, 'mm')]
    expect(h.send({ type: 'PlaceQuotes', userId: 'bob', marketId: PERP, quoteId: 'mm', orders: tooMuch, cancelFirst: true })).toMatchObject({ ok: false, code: 'INSUFFICIENT_MARGIN' })
    expect(openOrderCount(h.engine.state.accounts.get('bob')!)).toBe(3) // nothing cancelled by the refused call
  })
})

describe('bulk amend (cancelAll with amend)', () => {
  type Leg = [side: 'buy' | 'sell', price: string, quantity?: string]
  const ladder = (harness: TradingHarness, legs: Leg[], quoteId = 'mm', marketId = PERP) =>
    legs.map(([side, price, quantity]) => harness.spec({ marketId, side, price, quantity: quantity ?? '0.1', postOnly: true }, quoteId))
  const bulk = (harness: TradingHarness, legs: Leg[], amend: boolean, marketId = PERP, quoteId = 'mm') =>
    harness.send({ type: 'PlaceQuotes', userId: 'bob', marketId, quoteId, orders: ladder(harness, legs, quoteId, marketId), cancelFirst: true, amend })
  const quoteOk = (harness: TradingHarness, legs: Leg[], amend: boolean, marketId = PERP) => {
    const r = bulk(harness, legs, amend, marketId)
    if (!r.ok) throw new Error(`quote refused: ${r.code} ${r.message}`)
    return r.value as { canceled: string[]; results: Array<{ side: string; response: { id: string; price: string; quantity: string; status: string } }> }
  }
  const ids = (r: { results: Array<{ response: { id: string } }> }) => r.results.map((l) => l.response.id)
  /** What bob's orders hold: cross exposure per market, spot and base locks, open orders by id. */
  const holdings = (harness: TradingHarness) => {
    const a = harness.engine.state.accounts.get('bob')!
    return {
      exposure: [...a.exposure.values()].map((e) => [e.market.spec.id, e.buyLots, e.sellLots, e.buyTickLots, e.sellTickLots]),
      spotLocked: a.spotLocked,
      baseLocked: [...a.baseLocked],
      isolated: a.isolatedOrderMargin,
    }
  }

  for (const market of [PERP, SPOT]) {
    it(`${market}: moves the ladder through its own old prices by amending in place: same ids, surplus cancelled, the rest new, no self-trade`, () => {
      const genesis = (harness: TradingHarness) => harness.ok({ type: 'Genesis', userId: 'bob', usdcMicro: '0', holdings: [{ marketId: SPOT, lots: 2_000 }] })
      genesis(h)
      const first = quoteOk(h, [['buy', '94900'], ['buy', '94800'], ['buy', '94700'], ['sell', '95100'], ['sell', '95200']], false, market)
      const [b1, b2, b3, a1, a2] = ids(first)
      // Up by 250: the new bids sit above the old best ask, which a one-by-one requote would have hit.
      const moved = quoteOk(h, [['buy', '95150'], ['buy', '95140', '0.2'], ['sell', '95300'], ['sell', '95400'], ['sell', '95500']], true, market)
      expect(ids(moved).slice(0, 4)).toEqual([b1, b2, a1, a2])
      expect(ids(moved)[4]).not.toBe(first.results[4]!.response.id)
      expect(moved.canceled).toEqual([b3])
      expect(moved.results.map((l) => [l.response.price, l.response.quantity, l.response.status])).toEqual([
        ['95150', '0.1', 'open'], ['95140', '0.2', 'open'], ['95300', '0.1', 'open'], ['95400', '0.1', 'open'], ['95500', '0.1', 'open'],
      ])
      const book = h.engine.state.markets.get(market)!.book
      expect(book.depth(0).map(([p]) => p)).toEqual([951500, 951400])
      expect(book.depth(1).map(([p]) => p)).toEqual([953000, 954000, 955000])
      expect(openOrderCount(h.engine.state.accounts.get('bob')!)).toBe(5)
      expect(h.engine.state.accounts.get('bob')!.positions.get(market)?.lots ?? 0).toBe(market === SPOT ? 2_000 : 0) // nothing traded

      // What the orders hold is exactly what the same ladder placed fresh holds.
      const fresh = new TradingHarness()
      fresh.fund('bob')
      genesis(fresh)
      quoteOk(fresh, [['buy', '95150'], ['buy', '95140', '0.2'], ['sell', '95300'], ['sell', '95400'], ['sell', '95500']], false, market)
      expect(holdings(h)).toEqual(holdings(fresh))
    })
  }

  it('keeps time priority for a smaller size at the same price, touches nothing unchanged, and re-enters a larger one', () => {
    const first = quoteOk(h, [['buy', '94900', '0.3'], ['buy', '94800'], ['sell', '95100']], false)
    const seq = (id: string) => h.engine.state.orders.get(id)!.seq
    const before = ids(first).map(seq)
    h.placeOk('carol', { side: 'buy', price: '94900', quantity: '0.1', postOnly: true })
    const r = quoteOk(h, [['buy', '94900', '0.2'], ['buy', '94800', '0.2'], ['sell', '95100']], true)
    expect(ids(r)).toEqual(ids(first))
    const after = ids(r).map(seq)
    expect(after[0]).toBe(before[0]) // reduced in place: still ahead of carol
    expect(after[1]).toBeGreaterThan(before[1]!) // grew: re-entered
    expect(after[2]).toBe(before[2])
    expect([...h.engine.state.markets.get(PERP)!.book.orders()].filter((o) => o.price === 949000).map((o) => o.owner)).toEqual(['bob', 'carol'])
  })

  it('never reuses an order with a fill, a clientOrderId or another quoteId: those are cancelled as by cancelAll', () => {
    const [partly, plain, ask] = ids(quoteOk(h, [['buy', '94900'], ['buy', '94800'], ['sell', '95100']], false))
    h.placeOk('alice', { side: 'sell', price: '94900', quantity: '0.05' })
    const single = (quoteId: string, price: string, clientOrderId?: string) =>
      h.ok({ type: 'PlaceQuotes', userId: 'bob', marketId: PERP, quoteId, orders: [h.spec({ side: 'buy', price, quantity: '0.1', postOnly: true, clientOrderId }, quoteId)], cancelFirst: false }).results[0].response.id as string
    const tagged = single('mm', '94000', 'c-1')
    const foreign = single('other', '94700')
    const r = quoteOk(h, [['buy', '94950'], ['buy', '94850'], ['buy', '94750'], ['sell', '95150']], true)
    expect(ids(r)[0]).toBe(plain)
    expect(ids(r)[3]).toBe(ask)
    expect(ids(r).slice(1, 3).some((id) => [partly, tagged, foreign].includes(id))).toBe(false)
    expect(r.canceled).toEqual([partly, tagged, foreign])
    expect(h.engine.state.orders.get(partly!)).toBeUndefined()
    expect(h.engine.state.accounts.get('bob')!.clientOrderIds.get('c-1')).toBe(tagged)
  })

  it('refuses amend without cancelAll, and a refused amend changes nothing', () => {
    const first = quoteOk(h, [['buy', '94900'], ['sell', '95100']], false)
    const without = h.send({ type: 'PlaceQuotes', userId: 'bob', marketId: PERP, quoteId: 'mm', orders: ladder(h, [['buy', '94950']]), cancelFirst: false, amend: true })
    expect(without).toMatchObject({ ok: false, code: 'INVALID_REQUEST' })
    h.placeOk('alice', { side: 'sell', price: '95300', quantity: '0.1' })
    const hash = stateHash(h.engine.state)
    expect(bulk(h, [['buy', '95300'], ['sell', '95400']], true)).toMatchObject({ ok: false, code: 'POST_ONLY_WOULD_CROSS' })
    expect(bulk(h, [['buy', '94900', '50'], ['sell', '95100']], true)).toMatchObject({ ok: false, code: 'INSUFFICIENT_MARGIN' })
    expect(stateHash(h.engine.state)).toBe(hash)
    expect(ids(quoteOk(h, [['buy', '94900'], ['sell', '95100']], true))).toEqual(ids(first))
  })
})

describe('money', () => {
  it('refuses a transfer to the same bucket, of a bad amount, or beyond the balance', () => {
    expect(h.send({ type: 'Transfer', userId: 'bob', from: 'spot', to: 'spot', amountMicro: '1' })).toMatchObject({ ok: false, code: 'SAME_BUCKET' })
    expect(h.send({ type: 'Transfer', userId: 'bob', from: 'spot', to: 'perps', amountMicro: '0' })).toMatchObject({ ok: false, code: 'INVALID_REQUEST' })
    expect(h.send({ type: 'Transfer', userId: 'bob', from: 'vault' as never, to: 'perps', amountMicro: '1' })).toMatchObject({ ok: false, code: 'INVALID_REQUEST' })
    expect(h.send({ type: 'Transfer', userId: 'bob', from: 'wallet', to: 'perps', amountMicro: String(1n + 0n * USDC + 1n) })).toMatchObject({ ok: false, code: 'INSUFFICIENT_BALANCE' })
  })

  it('keeps perps margin in the bucket: a transfer out may not breach it', () => {
    h.placeOk('alice', { side: 'sell', price: '95000', quantity: '5' })
    h.placeOk('bob', { side: 'buy', price: '95000', quantity: '5' })
    // 47,500 of initial margin on the position; 100,000 − fees remains.
    expect(h.send({ type: 'Transfer', userId: 'bob', from: 'perps', to: 'wallet', amountMicro: String(60_000n * USDC) })).toMatchObject({ ok: false, code: 'INSUFFICIENT_MARGIN' })
    expect(h.send({ type: 'Transfer', userId: 'bob', from: 'perps', to: 'wallet', amountMicro: String(50_000n * USDC) })).toMatchObject({ ok: true })
  })

  it('caps the faucet per user per rolling day', () => {
    const cap = String(100_000n * USDC)
    expect(h.ok({ type: 'Faucet', userId: 'dave', amountMicro: String(60_000n * USDC), dailyCapMicro: cap })).toMatchObject({ remainingToday: '40000' })
    expect(h.send({ type: 'Faucet', userId: 'dave', amountMicro: String(50_000n * USDC), dailyCapMicro: cap })).toMatchObject({ ok: false, code: 'FAUCET_LIMIT', details: { remaining: '40000' } })
    h.tick(86_400_001)
    expect(h.send({ type: 'Faucet', userId: 'dave', amountMicro: String(50_000n * USDC), dailyCapMicro: cap })).toMatchObject({ ok: true })
  })

  it('creates no account for a faucet call it refuses', () => {
    const cap = String(100_000n * USDC)
    expect(h.send({ type: 'Faucet', userId: 'erin', amountMicro: String(100_001n * USDC), dailyCapMicro: cap })).toMatchObject({ ok: false, code: 'FAUCET_LIMIT' })
    expect(h.engine.state.accounts.has('erin')).toBe(false)
    expect(h.send({ type: 'Transfer', userId: 'erin', from: 'wallet', to: 'perps', amountMicro: '1' })).toMatchObject({ ok: false, code: 'ACCOUNT_NOT_FOUND' })
  })
})

describe('snapshots with trading state', () => {
  it('restores books, reservations and positions exactly', () => {
    h.placeOk('alice', { side: 'sell', price: '95100', quantity: '0.3' })
    h.placeOk('bob', { side: 'buy', price: '95100', quantity: '0.1' })
    h.placeOk('bob', { marketId: SPOT, side: 'buy', price: '90000', quantity: '0.2' })
    h.placeOk('carol', { side: 'buy', price: '94000', quantity: '0.2', clientOrderId: 'c1' })
    const restored = new Engine(restoreSnapshot(JSON.parse(serializeSnapshot(h.engine.state))))
    expect(stateHash(restored.state)).toBe(stateHash(h.engine.state))
    for (const u of ['alice', 'bob', 'carol']) {
      const [a, b] = [h.engine.state.accounts.get(u)!, restored.state.accounts.get(u)!]
      const listed = (x: typeof a) => [...x.marketOrders].map(([m, orders]) => [m, orders.map((o) => o.id).sort()])
      // Each state links its own markets: compare which market an exposure links, not the market objects
      // (nor how often each state changed it).
      const exposures = (x: typeof a) => [...x.exposure].map(([id, { market, changes: _, ...e }]) => [id, market.spec.id, e])
      expect([b.spotLocked, exposures(b), listed(b)]).toEqual([a.spotLocked, exposures(a), listed(a)])
    }
    expect(restored.state.markets.get(PERP)!.book.stateHash()).toBe(h.engine.state.markets.get(PERP)!.book.stateHash())
    // and both go on identically
    const cmd = { type: 'PlaceOrder' as const, userId: 'carol', order: h.spec({ side: 'buy', price: '95100', quantity: '0.2' }) }
    h.engine.apply(envelope(cmd, h.now))
    restored.apply(envelope(cmd, h.now))
    expect(stateHash(restored.state)).toBe(stateHash(h.engine.state))
  })
})
