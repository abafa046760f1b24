// The portfolio margin inside the engine: netting across a family, isolated positions, mode rules,
// NO_RISK_ARRAY, transfers out of perps.
import { beforeEach, describe, expect, it } from 'vitest'
import { SYSTEM_USER } from '../../src/domain/buckets.js'
import { checkOrderMargin, crossMargin, orderMarginImpact } from '../../src/engine/margin.js'
import { stateHash } from '../../src/engine/snapshot.js'
import { PERP, TradingHarness } from '../support/tradingFixtures.js'

const USDC = 1_000_000n
let h: TradingHarness
let FRONT: string

beforeEach(() => {
  h = new TradingHarness()
  FRONT = h.legs.f1.id
  for (const u of ['alice', 'bob', 'mm']) h.fund(u)
})

const margin = (u: string) => crossMargin(h.engine.state.accounts.get(u)!)

describe('cross portfolio margin in the engine', () => {
  it('nets a long perpetual against a short future: the spread needs far less than either leg', () => {
    h.placeOk('mm', { side: 'sell', price: '95000', quantity: '5' })
    h.placeOk('mm', { marketId: FRONT, side: 'buy', price: '95000', quantity: '5' })
    h.placeOk('alice', { side: 'buy', price: '95000', quantity: '5' })
    const oneLeg = margin('alice').im
    expect(oneLeg).toBe(47_500n * USDC) // 5 × 95,000 × 10%
    h.placeOk('alice', { marketId: FRONT, side: 'sell', price: '95000', quantity: '5' })
    // Both legs are marked at 95,000: the spread moves as one and needs nothing.
    expect(margin('alice').im).toBe(0n)
    // The same two legs would need 95,000 apart: alice could not have opened a second naked leg.
    expect(h.place('bob', { side: 'buy', price: '95000', quantity: '11' })).toMatchObject({ ok: false, code: 'INSUFFICIENT_MARGIN' })
  })

  it('lets an order that lowers the requirement through even when the account is short of margin', () => {
    h.placeOk('mm', { side: 'sell', price: '95000', quantity: '10' })
    h.placeOk('alice', { side: 'buy', price: '95000', quantity: '10' }) // uses 95,000 of 100,000
    h.marks({ BTC: '90000' }) // −50,000: equity 50,000 < IM 90,000
    expect(margin('alice').available < 0n).toBe(true)
    expect(h.place('alice', { side: 'buy', price: '90000', quantity: '0.1' })).toMatchObject({ ok: false, code: 'INSUFFICIENT_MARGIN' })
    // a hedge in the front future lowers the family requirement: accepted
    expect(h.place('alice', { marketId: FRONT, side: 'sell', price: '90000', quantity: '5' }).ok).toBe(true)
  })

  it("prices an order's impact as the whole portfolio with it less without it, across families", () => {
    // Positions in three families (three asset classes: the correlation credit is covered by test/random/engine.invariants.test.ts), an open order.
    h.placeOk('mm', { side: 'sell', price: '95000', quantity: '1' })
    h.placeOk('mm', { marketId: 'XAUT-USDC-PERP', side: 'buy', price: '4000', quantity: '5' })
    h.placeOk('mm', { marketId: 'WTIOIL-USDC-PERP', side: 'sell', price: '65', quantity: '100' })
    h.placeOk('alice', { side: 'buy', price: '95000', quantity: '1' })
    h.placeOk('alice', { marketId: 'XAUT-USDC-PERP', side: 'sell', price: '4000', quantity: '5' })
    h.placeOk('alice', { marketId: 'WTIOIL-USDC-PERP', side: 'buy', price: '65', quantity: '100' })
    h.placeOk('alice', { marketId: FRONT, side: 'sell', price: '96000', quantity: '0.5' })
    const state = h.engine.state
    const alice = state.accounts.get('alice')!
    for (const [id, side, lots, priceTicks] of [['WTIOIL-USDC-PERP', 'sell', 500, 6_400], ['XAUT-USDC-PERP', 'buy', 2, 399_000], [PERP, 'sell', 3, 950_000]] as const) {
      const w = { market: state.markets.get(id)!, side, lots, priceTicks }
      const without = crossMargin(alice)
      const withIt = crossMargin(alice, [w])
      expect(orderMarginImpact(alice, [w], false)).toMatchObject({ im: withIt.im - without.im, mm: withIt.mm - without.mm, available: without.available })
    }
    // The placement check gives the preview's verdict, with the same details, for orders that fit or not.
    for (const lots of [1, 1_000, 100_000]) {
      const w = [{ market: state.markets.get(PERP)!, side: 'buy' as const, lots, priceTicks: 950_000 }]
      const { refusal } = orderMarginImpact(alice, w, false)
      let thrown: unknown = null
      try {
        checkOrderMargin(alice, w, false)
      } catch (err) {
        thrown = err
      }
      const verdict = (e: any) => e && { code: e.code, details: e.details }
      expect(verdict(thrown)).toEqual(verdict(refusal))
    }
    expect(orderMarginImpact(alice, [{ market: state.markets.get(PERP)!, side: 'buy', lots: 100_000, priceTicks: 950_000 }], false).refusal).not.toBeNull()
  })

  it('counts open orders with the position on their worse side', () => {
    h.placeOk('alice', { side: 'buy', price: '94000', quantity: '3' })
    h.placeOk('alice', { side: 'sell', price: '96000', quantity: '1' })
    // worst: the 3 buys fill and BTC falls 10%: 3 × 95,000 × 10% (buys below the mark lose nothing at once)
    expect(margin('alice').im).toBe(28_500n * USDC)
  })
})

describe('isolated positions', () => {
  it('set aside their own margin from the cross equity and return it on close', () => {
    h.placeOk('mm', { side: 'sell', price: '95000', quantity: '2' })
    h.placeOk('alice', { side: 'buy', price: '95000', quantity: '1', marginMode: 'isolated' })
    const p = h.engine.state.accounts.get('alice')!.positions.get(PERP)!
    expect(p).toMatchObject({ marginMode: 'isolated', lots: 1000, isolatedMargin: 9_500n * USDC })
    const m = margin('alice')
    expect(m.im).toBe(0n) // the cross portfolio has nothing
    expect(m.equity).toBe(100_000n * USDC - 9_500n * USDC - 47_500_000n) // less the isolated margin and the taker fee
    h.placeOk('mm', { side: 'buy', price: '95000', quantity: '1' })
    h.placeOk('alice', { side: 'sell', price: '95000', quantity: '0.4', reduceOnly: true, marginMode: 'isolated' })
    expect(p.isolatedMargin).toBe(5_700n * USDC) // 60% of it left with 60% of the position
  })

  it('keeps a loss beyond its margin off the cross account: the insurance fund takes it', () => {
    h.placeOk('mm', { side: 'sell', price: '95000', quantity: '1' })
    h.placeOk('alice', { side: 'buy', price: '95000', quantity: '1', marginMode: 'isolated' })
    const before = h.balance('alice', 'perps')
    // The price gaps down 20% before anything can close it: a 19,000 loss on 9,500 of margin.
    h.marks({ BTC: '76000' })
    h.placeOk('mm', { side: 'buy', price: '76000', quantity: '1' })
    h.placeOk('alice', { side: 'sell', type: 'market', quantity: '1', reduceOnly: true, marginMode: 'isolated' })
    // alice loses her isolated 9,500 and the taker fee, nothing more
    expect(h.balance('alice', 'perps')).toBe(before - 9_500n * USDC - 38_000_000n)
    expect(h.balance(SYSTEM_USER, 'insurance')).toBe(-9_500n * USDC)
  })

  it('refuses an order whose margin mode differs from the position or the open orders in that market', () => {
    h.placeOk('alice', { side: 'buy', price: '94000', quantity: '0.1' })
    expect(h.place('alice', { side: 'buy', price: '94000', quantity: '0.1', marginMode: 'isolated' })).toMatchObject({ ok: false, code: 'INVALID_REQUEST' })
    // another market is free to be isolated
    expect(h.place('alice', { marketId: FRONT, side: 'buy', price: '94000', quantity: '0.1', marginMode: 'isolated' }).ok).toBe(true)
  })
})

describe('guards', () => {
  it('answers NO_RISK_ARRAY when an instrument of the portfolio has no risk array cached', () => {
    h.placeOk('mm', { side: 'sell', price: '95000', quantity: '1' })
    h.placeOk('alice', { side: 'buy', price: '95000', quantity: '1' })
    h.engine.state.markets.get(PERP)!.risk = null
    const before = stateHash(h.engine.state)
    expect(h.place('alice', { marketId: FRONT, side: 'buy', price: '95000', quantity: '0.1' })).toMatchObject({ ok: false, code: 'NO_RISK_ARRAY', details: { marketId: PERP } })
    expect(stateHash(h.engine.state)).toBe(before)
  })

  it('keeps a transfer out of perps within the cross available', () => {
    h.placeOk('mm', { side: 'sell', price: '95000', quantity: '5' })
    h.placeOk('alice', { side: 'buy', price: '95000', quantity: '5' })
    const available = margin('alice').available
    expect(h.send({ type: 'Transfer', userId: 'alice', from: 'perps', to: 'wallet', amountMicro: String(available + 1n) })).toMatchObject({ ok: false, code: 'INSUFFICIENT_MARGIN' })
    expect(h.send({ type: 'Transfer', userId: 'alice', from: 'perps', to: 'wallet', amountMicro: String(available) }).ok).toBe(true)
  })
})
