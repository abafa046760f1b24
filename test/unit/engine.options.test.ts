// Option trading in the pure engine: premium and fees to the micro-USDC, the options bucket, positions,
// every refusal, preview, expiry at the TWAP and liquidation.
import { beforeEach, describe, expect, it } from 'vitest'
import { D } from '../../src/domain/decimal.js'
import { optionsBucket } from '../../src/engine/optionMargin.js'
import { restoreSnapshot, serializeSnapshot, stateHash } from '../../src/engine/snapshot.js'
import type { OrderRequest } from '../../src/domain/orders.js'
import { TradingHarness, PERP } from '../support/tradingFixtures.js'

const CALL = 'BTC-2026-12-18-95000-C' // its forward is the 2026-12-25 future's mark
const WEEKLY_PUT = 'BTC-2026-11-27-90000-P' // no matching future: the synthetic forward
const USDC = 1_000_000n
let h: TradingHarness

/** Funds `userId`'s options bucket with `usdc`. */
function fundOptions(userId: string, usdc: number): void {
  h.ok({ type: 'Faucet', userId, amountMicro: String(BigInt(usdc) * USDC), dailyCapMicro: '1000000000000000' })
  h.ok({ type: 'Transfer', userId, from: 'wallet', to: 'options', amountMicro: String(BigInt(usdc) * USDC) })
}

const opt = (userId: string, req: OrderRequest & { marketId?: string }) =>
  h.send({ type: 'PlaceOrder', userId, order: h.spec({ marketId: CALL, ...req }), kind: 'option' })
const optOk = (userId: string, req: OrderRequest & { marketId?: string }) => {
  const r = opt(userId, req)
  if (!r.ok) throw new Error(`refused: ${r.code} ${r.message}`)
  return r.value as Record<string, unknown>
}
const bucket = (userId: string) => optionsBucket(h.engine.state, h.engine.state.accounts.get(userId)!)
const sumOfAll = () => {
  let sum = 0n
  for (const a of h.engine.state.accounts.values()) for (const v of a.balances.values()) sum += v
  return sum
}

beforeEach(() => {
  h = new TradingHarness()
  for (const u of ['alice', 'bob', 'carol']) {
    h.fund(u)
    fundOptions(u, 50_000)
  }
})

describe('an option trade', () => {
  it('moves the premium, price × quantity × index rounded once, from buyer to seller, and charges 3 bps of the underlying notional to each', () => {
    optOk('alice', { side: 'sell', price: '0.0500', quantity: '1' })
    const fill = optOk('bob', { side: 'buy', price: '0.0500', quantity: '1', timeInForce: 'ioc' })
    expect(fill).toMatchObject({ status: 'filled', marginMode: null })
    // 0.05 × 1 × 95,000 = 4,750 USDC; fee 0.0003 × 1 × 95,000 = 28.5 USDC (under 12.5% of the premium).
    expect(h.balance('bob', 'options')).toBe(50_000n * USDC - 4_750n * USDC - 28_500_000n)
    expect(h.balance('alice', 'options')).toBe(50_000n * USDC + 4_750n * USDC - 28_500_000n)
    const fills = h.engine.takeChanges().fills.filter((f) => f.marketId === CALL)
    expect(fills.map((f) => [f.userId, f.role, f.premium, f.indexTicks, f.fee])).toEqual([
      ['bob', 'taker', 4_750n * USDC, 950_000, 28_500_000n],
      ['alice', 'maker', 4_750n * USDC, 950_000, 28_500_000n],
    ])
    expect(sumOfAll()).toBe(0n)
  })

  it('caps the fee at 12.5% of the premium', () => {
    optOk('alice', { marketId: 'BTC-2026-12-18-130000-C', side: 'sell', price: '0.0010', quantity: '1' })
    optOk('bob', { marketId: 'BTC-2026-12-18-130000-C', side: 'buy', price: '0.0010', quantity: '1' })
    // Premium 95 USDC; 3 bps of 95,000 would be 28.5, the cap is 11.875.
    expect(h.balance('bob', 'options')).toBe(50_000n * USDC - 95n * USDC - 11_875_000n)
  })

  it('keeps signed positions with their average price and realizes PnL on closing', () => {
    optOk('alice', { side: 'sell', price: '0.0500', quantity: '2' })
    optOk('bob', { side: 'buy', price: '0.0500', quantity: '2' })
    optOk('carol', { side: 'sell', price: '0.0520', quantity: '1' })
    optOk('bob', { side: 'buy', price: '0.0520', quantity: '1' })
    const pos = h.engine.state.accounts.get('bob')!.positions.get(CALL)!
    expect(pos).toMatchObject({ lots: 300, openTickLots: 500n * 200n + 520n * 100n, cost: 9_500n * USDC + 4_940n * USDC })
    expect(h.engine.state.accounts.get('alice')!.positions.get(CALL)!.lots).toBe(-200)
    // Bob sells 1.5 back to carol's bid at 0.06: closes at 5,700 USDC per contract against his average 4,813.33.
    optOk('carol', { side: 'buy', price: '0.0600', quantity: '1.5' })
    optOk('bob', { side: 'sell', price: '0.0600', quantity: '1.5' })
    const after = h.engine.state.accounts.get('bob')!.positions.get(CALL)!
    expect(after.lots).toBe(150)
    const exit = 8_550n * USDC
    const removed = ((9_500n + 4_940n) * USDC * 150n + 299n) / 300n
    expect(after.realized).toBe(exit - removed)
    expect(after.cost).toBe((9_500n + 4_940n) * USDC - removed)
  })
})

describe('option order refusals', () => {
  it('refuse a linear id on the option path and an option id on the linear path', () => {
    expect(h.send({ type: 'PlaceOrder', userId: 'bob', order: h.spec({ marketId: PERP, side: 'buy', price: '95000', quantity: '0.1' }), kind: 'option' })).toMatchObject({ ok: false, code: 'INVALID_MARKET_ID' })
    expect(h.send({ type: 'PlaceOrder', userId: 'bob', order: h.spec({ marketId: CALL, side: 'buy', price: '0.05', quantity: '1' }), kind: 'linear' })).toMatchObject({ ok: false, code: 'INVALID_MARKET_ID' })
    expect(h.send({ type: 'PlaceOrder', userId: 'bob', order: h.spec({ marketId: CALL, side: 'buy', price: '0.05', quantity: '1' }) })).toMatchObject({ ok: false, code: 'INVALID_MARKET_ID' })
  })

  it('cancel and modify only their own kind: the other path does not find the order', () => {
    const o = optOk('bob', { side: 'buy', price: '0.0400', quantity: '1' })
    expect(h.send({ type: 'CancelOrder', userId: 'bob', orderId: o.id as string, kind: 'linear' })).toMatchObject({ ok: false, code: 'ORDER_NOT_FOUND' })
    expect(h.send({ type: 'CancelAll', userId: 'bob', kind: 'linear' })).toMatchObject({ ok: true, value: { canceled: 0 } })
    expect(h.send({ type: 'CancelAll', userId: 'bob', marketId: CALL, kind: 'linear' })).toMatchObject({ ok: false, code: 'INVALID_MARKET_ID' })
    expect(h.send({ type: 'ModifyOrder', userId: 'bob', orderId: o.id as string, priceTicks: 410, lots: null, kind: 'option' })).toMatchObject({ ok: true, value: { price: '0.041' } })
    expect(h.send({ type: 'CancelOrder', userId: 'bob', orderId: o.id as string, kind: 'option' })).toMatchObject({ ok: true, value: { status: 'canceled' } })
    expect(h.send({ type: 'CancelOrder', userId: 'bob', orderId: o.id as string, kind: 'option' })).toMatchObject({ ok: false, code: 'ORDER_NOT_FOUND' })
  })

  it('refuse stops and attached triggers, prices outside the band, and halted or expired markets', () => {
    expect(opt('bob', { side: 'buy', price: '0.05', quantity: '1', stopPrice: '0.06' })).toMatchObject({ ok: false, code: 'INVALID_REQUEST' })
    expect(opt('bob', { side: 'buy', price: '0.5', quantity: '1' })).toMatchObject({ ok: false, code: 'INVALID_PRICE' })
    h.ok({ type: 'SetMarketStatus', marketId: CALL, status: 'halted' })
    expect(opt('bob', { side: 'buy', price: '0.05', quantity: '1' })).toMatchObject({ ok: false, code: 'MARKET_HALTED' })
  })

  it('fail closed on a stale forward: the matching future for a monthly, spot for a weekly', () => {
    h.tick(6_000)
    expect(opt('bob', { side: 'buy', price: '0.05', quantity: '1' })).toMatchObject({ ok: false, code: 'STALE_MARK_PRICE' })
    // Spot fresh, futures stale: the weekly trades, the monthly does not.
    h.ok({ type: 'UpdateMarks', marks: [{ marketId: 'BTC-USDC-SPOT', price: '95000', source: 'test', sourceTs: h.now }] })
    expect(opt('bob', { side: 'buy', price: '0.05', quantity: '1' })).toMatchObject({ ok: false, code: 'STALE_MARK_PRICE' })
    expect(opt('bob', { marketId: WEEKLY_PUT, side: 'buy', price: '0.0050', quantity: '1' })).toMatchObject({ ok: true })
  })

  it('refuse a buy the options bucket cannot pay, and a sell whose initial margin it cannot lock, with details', () => {
    h.ok({ type: 'Transfer', userId: 'carol', from: 'options', to: 'wallet', amountMicro: String(49_000n * USDC) })
    expect(opt('carol', { side: 'buy', price: '0.0500', quantity: '1' })).toMatchObject({ ok: false, code: 'INSUFFICIENT_BALANCE' })
    const sell = opt('carol', { side: 'sell', price: '0.0500', quantity: '5' })
    expect(sell).toMatchObject({ ok: false, code: 'INSUFFICIENT_MARGIN' })
    if (sell.ok) return
    expect(D(sell.details!.requiredIm as string).gt(sell.details!.availableIm as string)).toBe(true)
    expect(sell.details!.availableIm).toBe('1000')
    // Nothing changed.
    expect(h.balance('carol', 'options')).toBe(1_000n * USDC)
    expect(h.engine.state.accounts.get('carol')!.marketOrders.size).toBe(0)
  })

  it('previews exactly the placement verdict, changing nothing', () => {
    h.ok({ type: 'Transfer', userId: 'carol', from: 'options', to: 'wallet', amountMicro: String(49_000n * USDC) })
    for (const req of [
      { side: 'buy', price: '0.0500', quantity: '1' },
      { side: 'sell', price: '0.0500', quantity: '5' },
      { side: 'sell', price: '0.0500', quantity: '0.1' },
      { side: 'buy', price: '0.0010', quantity: '1' },
    ] as const) {
      const before = serializeSnapshot(h.engine.state)
      const preview = h.ok<{ approved: boolean; reason: string | null }>({ type: 'PreviewOrder', userId: 'carol', order: h.spec({ marketId: CALL, ...req }), kind: 'option' })
      expect(serializeSnapshot(h.engine.state)).toBe(before)
      const placed = opt('carol', req)
      expect([preview.approved, preview.reason]).toEqual([placed.ok, placed.ok ? null : placed.code])
    }
  })
})

describe('the options bucket', () => {
  it('locks a short\'s initial margin and reserves an open buy\'s premium and fee; total = available + locked', () => {
    optOk('alice', { side: 'sell', price: '0.0500', quantity: '1' })
    const resting = bucket('alice')
    expect(resting.im).toBeGreaterThan(0n)
    optOk('bob', { side: 'buy', price: '0.0500', quantity: '1' })
    const short = bucket('alice')
    expect(short.available + short.locked).toBe(short.cash)
    expect(short.locked).toBe(short.im - short.nov)
    const bid = optOk('carol', { side: 'buy', price: '0.0400', quantity: '2' })
    const carol = bucket('carol')
    // 0.04 × 2 × 95,000 = 7,600 USDC and the fee on 2 × 95,000 at 3 bps = 57.
    expect(carol.buyReserve).toBe(7_657n * USDC)
    expect(carol.locked).toBe(7_657n * USDC)
    h.ok({ type: 'CancelOrder', userId: 'carol', orderId: bid.id as string })
    expect(bucket('carol').locked).toBe(0n)
  })

  it('prices the markets an account holds or has orders in: a leg goes once both are gone', () => {
    const legs = (userId: string) => [...h.engine.state.accounts.get(userId)!.optionLegs.keys()]
    const bid = optOk('carol', { side: 'buy', price: '0.0400', quantity: '2' })
    expect(legs('carol')).toEqual([CALL])
    h.ok({ type: 'CancelOrder', userId: 'carol', orderId: bid.id as string })
    expect(legs('carol')).toEqual([])
    optOk('alice', { side: 'sell', price: '0.0500', quantity: '1' })
    optOk('bob', { side: 'buy', price: '0.0500', quantity: '1' })
    expect([legs('alice'), legs('bob')]).toEqual([[CALL], [CALL]])
    // Bob sells his call back to a bid of carol's: his position is flat, his leg gone.
    optOk('carol', { side: 'buy', price: '0.0500', quantity: '1' })
    optOk('bob', { side: 'sell', price: '0.0500', quantity: '1', timeInForce: 'ioc' })
    expect([legs('bob'), legs('carol')]).toEqual([[], [CALL]])
  })

  it('from the sums kept leg by leg equals a full count, as orders change price or size and marks move', () => {
    const alice = h.engine.state.accounts.get('alice')!
    const kept = () => optionsBucket(h.engine.state, alice, [], false)
    const full = () => ({ ...optionsBucket(h.engine.state, alice), mm: 0n })
    optOk('alice', { side: 'sell', price: '0.0500', quantity: '1' })
    const second = optOk('alice', { side: 'sell', price: '0.0600', quantity: '1' })
    optOk('alice', { side: 'buy', price: '0.0100', quantity: '2' })
    expect(kept()).toEqual(full())
    const before = kept()
    // Same size, another price: only the sells' tick·lots change.
    h.ok({ type: 'ModifyOrder', userId: 'alice', orderId: second.id as string, priceTicks: 900, lots: null, kind: 'option' })
    expect(kept()).toEqual(full())
    expect(kept().im).not.toBe(before.im)
    h.ok({ type: 'ModifyOrder', userId: 'alice', orderId: second.id as string, priceTicks: null, lots: 300, kind: 'option' })
    expect(kept()).toEqual(full())
    optOk('bob', { side: 'buy', price: '0.0500', quantity: '1', timeInForce: 'ioc' })
    expect(kept()).toEqual(full())
    h.marks({ BTC: '97000' })
    expect(kept()).toEqual(full())
  })

  it('will not transfer locked funds out', () => {
    optOk('alice', { side: 'sell', price: '0.0500', quantity: '1' })
    optOk('bob', { side: 'buy', price: '0.0500', quantity: '1' })
    const { available } = bucket('alice')
    expect(h.send({ type: 'Transfer', userId: 'alice', from: 'options', to: 'wallet', amountMicro: String(available + 1n) })).toMatchObject({ ok: false, code: 'INSUFFICIENT_MARGIN' })
    expect(h.send({ type: 'Transfer', userId: 'alice', from: 'options', to: 'wallet', amountMicro: String(available) })).toMatchObject({ ok: true })
  })

  it('cancels a resting bid its owner can no longer pay before a sell reaches it', () => {
    optOk('carol', { side: 'buy', price: '0.0500', quantity: '1' })
    h.ok({ type: 'Transfer', userId: 'carol', from: 'options', to: 'wallet', amountMicro: String(bucket('carol').available) })
    // The index rises 5%: the premium of the resting bid outgrows what carol has left.
    h.marks({ BTC: '99750' })
    optOk('alice', { side: 'sell', price: '0.0500', quantity: '1', timeInForce: 'ioc' })
    const changes = h.engine.takeChanges()
    expect(changes.fills.filter((f) => f.marketId === CALL)).toHaveLength(0)
    expect(changes.orders.find((o) => o.userId === 'carol')).toMatchObject({ status: 'canceled', cancelReason: 'insufficient_funds' })
    expect(h.balance('carol', 'options')).toBeGreaterThanOrEqual(0n)
  })
})

describe('option expiry', () => {
  it('settles every position at intrinsic value against the forward\'s TWAP and retires the market', () => {
    const put = WEEKLY_PUT
    optOk('alice', { marketId: put, side: 'sell', price: '0.0050', quantity: '2' })
    optOk('bob', { marketId: put, side: 'buy', price: '0.0050', quantity: '2' })
    const resting = optOk('carol', { marketId: put, side: 'buy', price: '0.0010', quantity: '1' })
    const expiry = Date.UTC(2026, 10, 27, 8)
    // Spot (this weekly's forward source) at 80,000 throughout the last half hour.
    h.now = expiry - 40 * 60_000
    h.marks({ BTC: '80000' })
    for (let t = expiry - 30 * 60_000; t < expiry; t += 60_000) {
      h.now = t
      h.marks({ BTC: '80000' })
    }
    const [aliceBefore, bobBefore] = [h.balance('alice', 'options'), h.balance('bob', 'options')]
    h.now = expiry
    h.ok({ type: 'ExpireMarket', marketId: put })
    // Intrinsic 90,000 − 80,000 = 10,000 USDC per contract, 2 contracts.
    expect(h.balance('bob', 'options') - bobBefore).toBe(20_000n * USDC)
    expect(h.balance('alice', 'options') - aliceBefore).toBe(-20_000n * USDC)
    const market = h.engine.state.markets.get(put)!
    expect([market.status, market.settlementPrice]).toEqual(['settled', '80000'])
    expect(h.engine.state.orders.has(resting.id as string)).toBe(false)
    expect(h.engine.state.accounts.get('bob')!.positions.get(put)).toMatchObject({ lots: 0, cost: 0n })
    expect(h.engine.state.accounts.get('bob')!.positions.get(put)!.realized).toBe(20_000n * USDC - 950n * USDC)
    expect(sumOfAll()).toBe(0n)
  })

  it('refuses orders once the expiry has passed, before the settlement runs', () => {
    h.now = Date.UTC(2026, 10, 27, 8)
    h.marks({ BTC: '95000' })
    expect(opt('bob', { marketId: WEEKLY_PUT, side: 'buy', price: '0.0010', quantity: '1' })).toMatchObject({ ok: false, code: 'MARKET_HALTED' })
  })
})

describe('option liquidation', () => {
  it('buys back the shorts of a bucket below maintenance, the insurance fund covering what it lacks', () => {
    // Alice sells 3 calls to bob, then moves out all she may; carol offers calls well above.
    optOk('alice', { side: 'sell', price: '0.0500', quantity: '3' })
    optOk('bob', { side: 'buy', price: '0.0500', quantity: '3' })
    h.ok({ type: 'Transfer', userId: 'alice', from: 'options', to: 'wallet', amountMicro: String(bucket('alice').available) })
    optOk('carol', { side: 'sell', price: '0.1500', quantity: '3' })
    h.engine.takeChanges()
    h.marks({ BTC: '110000' })
    const changes = h.engine.takeChanges()
    const steps = changes.positionEvents.filter((e) => e.userId === 'alice' && e.kind === 'liquidation')
    expect(steps.length).toBeGreaterThan(0)
    expect(h.engine.state.accounts.get('alice')!.positions.get(CALL)!.lots).toBe(0)
    expect(h.balance('alice', 'options')).toBeGreaterThanOrEqual(0n)
    expect(sumOfAll()).toBe(0n)
  })
})

describe('replay', () => {
  it('restores option positions and orders exactly', () => {
    optOk('alice', { side: 'sell', price: '0.0500', quantity: '2' })
    optOk('bob', { side: 'buy', price: '0.0500', quantity: '1' })
    const restored = restoreSnapshot(JSON.parse(serializeSnapshot(h.engine.state)))
    expect(stateHash(restored)).toBe(stateHash(h.engine.state))
    expect(optionsBucket(restored, restored.accounts.get('alice')!)).toEqual(bucket('alice'))
  })
})
