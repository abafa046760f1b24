// Liquidation and futures settlement inside the engine, driven by marks and the engine clock.
import { beforeEach, describe, expect, it } from 'vitest'
import { SYSTEM_USER } from '../../src/domain/buckets.js'
import { SETTLEMENT_TWAP_MS } from '../../src/engine/expiry.js'
import { crossMargin } from '../../src/engine/margin.js'
import { catalogAt, envelope } from '../support/engineFixtures.js'
import { openOrderCount, PERP, TradingHarness } from '../support/tradingFixtures.js'

const USDC = 1_000_000n
let h: TradingHarness

beforeEach(() => {
  h = new TradingHarness()
  h.fund('mm', 10_000_000)
})

function fundAlice(usdc: number): void {
  h.ok({ type: 'Faucet', userId: 'alice', amountMicro: String(BigInt(usdc) * USDC), dailyCapMicro: '10000000000000' })
  h.ok({ type: 'Transfer', userId: 'alice', from: 'wallet', to: 'perps', amountMicro: String(BigInt(usdc) * USDC) })
}

/** alice with `usdc` in perps, long `qty` BTC-PERP at 95,000 from mm. */
function longAlice(usdc: number, qty: string): void {
  fundAlice(usdc)
  h.placeOk('mm', { side: 'sell', price: '95000', quantity: qty })
  h.placeOk('alice', { side: 'buy', price: '95000', quantity: qty })
}

describe('liquidation', () => {
  it('closes a cross account below maintenance against the book, charges the fee, and records the step', () => {
    longAlice(10_000, '1') // IM 9,500 of 10,000
    h.placeOk('alice', { side: 'buy', price: '90000', quantity: '0.01' }) // an open order, to be cancelled
    h.placeOk('mm', { side: 'buy', price: '89900', quantity: '2' }) // the bid the liquidation sells into
    // Equity is 10,000 − 4.75 (fee) − the fall; MM is 5% of the mark.
    h.marks({ BTC: '90000' }) // 4,995.25 ≥ 4,500: safe
    expect(h.engine.state.accounts.get('alice')!.positions.get(PERP)!.lots).toBe(1_000)
    h.marks({ BTC: '89600' }) // 4,595.25 ≥ 4,480: still safe
    h.engine.takeChanges()
    h.marks({ BTC: '89300' }) // 10,000 − 4.75 − 5,700 = 4,295.25 < 4,465: liquidate
    const c = h.engine.takeChanges()
    const alice = h.engine.state.accounts.get('alice')!
    expect(alice.positions.get(PERP)!.lots).toBe(0)
    expect(openOrderCount(alice)).toBe(0)
    expect([...c.orders.values()].find((o) => o.cancelReason === 'liquidation')).toMatchObject({ status: 'canceled', side: 'buy' })
    const step = c.positionEvents[0]!
    expect(step).toMatchObject({ kind: 'liquidation', userId: 'alice', marketId: PERP, lots: 1_000, closedLots: 1_000, marginMode: 'cross', insurance: 0n })
    expect(step.notional).toBe(89_900n * USDC)
    expect(step.fee).toBe(449_500_000n) // 0.5% of 89,900
    expect(step.pnl).toBe(-5_100n * USDC)
    expect(h.balance(SYSTEM_USER, 'insurance')).toBe(449_500_000n)
  })

  it('leaves what the book cannot take for the next check, in steps, while the account stays below maintenance', () => {
    longAlice(10_000, '1')
    h.placeOk('mm', { side: 'buy', price: '89900', quantity: '0.4' })
    // Closing 0.4 at 89,900 still leaves 0.6 at a mark of 86,000: equity ≈ 2,375 < MM 2,580.
    h.marks({ BTC: '86000' })
    expect(h.engine.state.accounts.get('alice')!.positions.get(PERP)!.lots).toBe(600)
    h.placeOk('mm', { side: 'buy', price: '89800', quantity: '1' })
    h.tick(1_000)
    h.ok({ type: 'Tick' })
    expect(h.engine.state.accounts.get('alice')!.positions.get(PERP)!.lots).toBe(0)
    expect(h.engine.takeChanges().positionEvents.map((e) => e.closedLots)).toEqual([400, 600])
  })

  it('has the insurance fund cover a shortfall once the account is flat', () => {
    longAlice(9_510, '1')
    h.placeOk('mm', { side: 'buy', price: '85500', quantity: '1' }) // a thin book: the only bid is below the mark
    // At a mark of 86,000 alice is liquidated; selling at 85,500 loses more than she has.
    h.marks({ BTC: '86000' })
    const alice = h.engine.state.accounts.get('alice')!
    expect(alice.positions.get(PERP)!.lots).toBe(0)
    const m = crossMargin(alice)
    expect(m.equity).toBe(0n) // made whole to zero, not below
    const step = h.engine.takeChanges().positionEvents[0]!
    expect(step.insurance).toBeGreaterThan(0n)
    expect(step.fee).toBe(0n) // nothing left to pay it with
    expect(h.balance(SYSTEM_USER, 'insurance')).toBe(-step.insurance)
  })

  it('liquidates an isolated position alone, leaving the cross account untouched', () => {
    h.ok({ type: 'Faucet', userId: 'alice', amountMicro: String(100_000n * USDC), dailyCapMicro: '10000000000000' })
    h.ok({ type: 'Transfer', userId: 'alice', from: 'wallet', to: 'perps', amountMicro: String(100_000n * USDC) })
    h.placeOk('mm', { side: 'sell', price: '95000', quantity: '1' })
    h.placeOk('alice', { side: 'buy', price: '95000', quantity: '1', marginMode: 'isolated' }) // 9,500 set aside
    h.placeOk('mm', { marketId: h.legs.f2.id, side: 'sell', price: '96000', quantity: '0.1' })
    h.placeOk('alice', { marketId: h.legs.f2.id, side: 'buy', price: '96000', quantity: '0.1' }) // a cross position elsewhere
    h.placeOk('mm', { side: 'buy', price: '90000', quantity: '2' })
    h.marks({ BTC: '90000' }) // isolated equity 9,500 − 5,000 = 4,500, not below MM 4,500: safe
    expect(h.engine.state.accounts.get('alice')!.positions.get(PERP)!.lots).toBe(1_000)
    h.marks({ BTC: '89950' }) // 9,500 − 5,050 = 4,450 < MM 4,497.5: liquidated
    const alice = h.engine.state.accounts.get('alice')!
    expect(alice.positions.get(PERP)).toMatchObject({ lots: 0, isolatedMargin: 0n })
    expect(alice.positions.get(h.legs.f2.id)!.lots).toBe(100) // the cross position stays
  })
})

describe('futures expiry', () => {
  it('settles at the 30-minute spot TWAP, closes every position with its PnL, and rolls the index', () => {
    const f1 = h.legs.f1
    fundAlice(100_000)
    h.placeOk('mm', { marketId: f1.id, side: 'sell', price: '95000', quantity: '1' })
    h.placeOk('alice', { marketId: f1.id, side: 'buy', price: '95000', quantity: '1' })
    h.placeOk('alice', { marketId: f1.id, side: 'buy', price: '94000', quantity: '0.5' }) // open at expiry: cancelled
    const expiry = f1.expiryMs!
    // Spot 96,000 for the first 20 minutes of the window, 99,000 for the last 10: TWAP 97,000.
    const spot = (price: string, at: number) => h.engine.apply(envelope({ type: 'UpdateMarks', marks: [{ marketId: 'BTC-USDC-SPOT', price, source: 'test', sourceTs: at }] }, at))
    h.now = expiry - SETTLEMENT_TWAP_MS - 60_000
    spot('96000', h.now)
    spot('99000', expiry - 10 * 60_000)
    h.now = expiry
    // The next quarter is listed and marked before the old one settles, as the listing job does.
    const next = catalogAt(expiry).find((m) => m.family === 'BTC' && m.type === 'future' && m.expiryMs! > h.legs.f2.expiryMs!)!
    h.ok({ type: 'ListMarkets', markets: [next] })
    h.ok({ type: 'UpdateMarks', marks: [{ marketId: h.legs.f2.id, price: '97000', source: 'test', sourceTs: expiry }, { marketId: next.id, price: '99000', source: 'test', sourceTs: expiry }] })
    h.engine.takeChanges()
    h.ok({ type: 'ExpireMarket', marketId: f1.id })
    const c = h.engine.takeChanges()
    const market = h.engine.state.markets.get(f1.id)!
    expect(market).toMatchObject({ status: 'settled', settlementPrice: '97000' })
    const alice = h.engine.state.accounts.get('alice')!
    expect(alice.positions.get(f1.id)).toMatchObject({ lots: 0, realized: 2_000n * USDC })
    expect(c.positionEvents.find((e) => e.userId === 'alice')).toMatchObject({ kind: 'settlement', lots: 1_000, pnl: 2_000n * USDC })
    expect(c.positionEvents.find((e) => e.userId === 'mm')).toMatchObject({ pnl: -2_000n * USDC })
    expect([...c.orders.values()].filter((o) => o.marketId === f1.id && o.status === 'canceled').map((o) => o.cancelReason)).toEqual(['expired'])
    expect(h.place('alice', { marketId: f1.id, side: 'buy', price: '95000', quantity: '0.1' })).toMatchObject({ ok: false, code: 'MARKET_HALTED' })
    // The perpetual's index now follows the old next future: no jump (it already had full weight).
    h.tick(1_000)
    h.ok({ type: 'Tick' })
    expect(h.engine.state.marks.get(PERP)!.indexPrice).toBe('97000')
  })
})
