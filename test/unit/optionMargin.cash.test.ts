// Premiums are paid in cash. Long options count in the options bucket's equity, but an open buy's
// premium must come out of the cash: an account whose option value would cover a buy that its cash
// cannot is refused, resting or immediate, and its bucket never goes negative. (The randomized
// engine test found the overdraft: seed 20261121, a market buy of user-07.)
import { beforeEach, describe, expect, it } from 'vitest'
import type { OrderRequest } from '../../src/domain/orders.js'
import { optionsBucket } from '../../src/engine/optionMargin.js'
import { TradingHarness } from '../support/tradingFixtures.js'
import { referenceOptionMargin, referenceOptionValuation } from '../support/referenceOptionMargin.js'

const CALL = 'BTC-2027-03-19-95000-C'
const USDC = 1_000_000n
let h: TradingHarness

const opt = (userId: string, req: Omit<OrderRequest, 'marketId'>) => h.send({ type: 'PlaceOrder', userId, order: h.spec({ marketId: CALL, ...req }), kind: 'option' })

function fundOptions(userId: string, usdc: number): void {
  h.ok({ type: 'Faucet', userId, amountMicro: String(BigInt(usdc) * USDC), dailyCapMicro: '1000000000000000' })
  h.ok({ type: 'Transfer', userId, from: 'wallet', to: 'options', amountMicro: String(BigInt(usdc) * USDC) })
}

/** The call's value in underlying units on the tick, from the reference's valuation at the marks. */
function theo(): string {
  const v = referenceOptionValuation(h.engine.state, h.engine.state.markets.get(CALL)!)!
  return (Math.round(v.value / Number(v.spot) / 0.0001) * 0.0001).toFixed(4)
}

beforeEach(() => {
  h = new TradingHarness()
  fundOptions('mm', 1_000_000)
  fundOptions('alice', 10_000)
  // Alice buys half a BTC of a four-month at-the-money call (about 5,400 USDC) from the market maker.
  expect(opt('mm', { side: 'sell', price: theo(), quantity: '1' }).ok).toBe(true)
  expect(opt('alice', { side: 'buy', price: theo(), quantity: '0.5', timeInForce: 'ioc' })).toMatchObject({ ok: true, value: { status: 'filled' } })
})

describe('the options bucket pays premiums in cash', () => {
  it('refuses a buy that the option value would cover and the cash cannot', () => {
    const alice = h.engine.state.accounts.get('alice')!
    const before = optionsBucket(h.engine.state, alice)
    // Another half BTC at the value costs about what the long is worth: more than the cash, less than
    // the equity over the long's requirement.
    const premium = before.nov
    expect(before.cash).toBeLessThan(premium)
    expect(before.equity - before.im).toBeGreaterThan(premium)
    expect(before.available).toBe(before.cash)
    expect(opt('alice', { side: 'buy', price: theo(), quantity: '0.5' })).toMatchObject({ ok: false, code: 'INSUFFICIENT_BALANCE' })
    expect(opt('alice', { side: 'buy', price: theo(), quantity: '0.5', timeInForce: 'ioc' })).toMatchObject({ ok: false, code: 'INSUFFICIENT_BALANCE' })
    expect(h.balance('alice', 'options')).toBe(before.cash)
  })

  it('reserves an open buy out of the cash: available and locked as the reference says', () => {
    const alice = h.engine.state.accounts.get('alice')!
    const cash = h.balance('alice', 'options')
    // A bid well under the value, for what the cash can pay.
    expect(opt('alice', { side: 'buy', price: '0.0200', quantity: '0.5' })).toMatchObject({ ok: true, value: { status: 'open' } })
    const b = optionsBucket(h.engine.state, alice)
    // 0.02 × 0.5 × 95,000 = 950 of premium, 3 bps of 47,500 = 14.25 of fee.
    expect(b.buyReserve).toBe(964_250_000n)
    expect([b.available, b.locked]).toEqual([cash - 964_250_000n, 964_250_000n])
    const ref = referenceOptionMargin(h.engine.state, alice)
    expect({ ...b, equity: 0n }).toEqual({ cash: ref.cash, nov: ref.nov, equity: 0n, im: ref.im, mm: ref.mm, buyReserve: ref.buyReserve, available: ref.available, locked: ref.locked })
  })
})

describe('the options bucket stays exact past what doubles hold', () => {
  it('margins a short whose scenario losses exceed 2^53 micro-USDC as the reference does', () => {
    // A hundred million BTC of calls offered, and an odd lot so that the sums are odd: each scenario's
    // loss is past 2^53 micro-USDC, where the bucket's fast sum in doubles would round (it answers
    // ...560 for ...524), so it must take the exact sum.
    const amountMicro = String(10n ** 13n * USDC)
    h.ok({ type: 'Faucet', userId: 'whale', amountMicro, dailyCapMicro: amountMicro })
    h.ok({ type: 'Transfer', userId: 'whale', from: 'wallet', to: 'options', amountMicro })
    expect(opt('whale', { side: 'sell', price: '0.2000', quantity: '100000000.01' })).toMatchObject({ ok: true, value: { status: 'open' } })
    const whale = h.engine.state.accounts.get('whale')!
    const b = optionsBucket(h.engine.state, whale)
    expect(b.im).toBeGreaterThan(2n ** 53n)
    const ref = referenceOptionMargin(h.engine.state, whale)
    expect([b.im, b.mm, b.available, b.locked]).toEqual([ref.im, ref.mm, ref.available, ref.locked])
  })
})
