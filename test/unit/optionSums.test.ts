// The options bucket's sums kept leg by leg (src/engine/optionSums.ts) must notice a change of any input
// of a leg: each field of a leg's position and exposure is changed here in place (an exposure counting
// the change, as reservations.ts does), and the bucket from the kept sums must equal the full count
// (optionMargin.ts) after each. Without the count, the kept sums stay as they were.
import { beforeEach, describe, expect, it } from 'vitest'
import { optionsBucket } from '../../src/engine/optionMargin.js'
import type { Account, OrderExposure } from '../../src/engine/account.js'
import { TradingHarness } from '../support/tradingFixtures.js'

const CALL = 'BTC-2026-12-18-95000-C'
const USDC = 1_000_000n
let h: TradingHarness
let alice: Account

const kept = () => optionsBucket(h.engine.state, alice, [], false)
const full = () => ({ ...optionsBucket(h.engine.state, alice), mm: 0n })

beforeEach(() => {
  h = new TradingHarness()
  for (const u of ['alice', 'bob']) {
    h.fund(u)
    h.ok({ type: 'Faucet', userId: u, amountMicro: String(50_000n * USDC), dailyCapMicro: '1000000000000000' })
    h.ok({ type: 'Transfer', userId: u, from: 'wallet', to: 'options', amountMicro: String(50_000n * USDC) })
  }
  const place = (userId: string, side: 'buy' | 'sell', price: string, quantity: string, timeInForce: 'gtc' | 'ioc' = 'gtc') =>
    h.ok({ type: 'PlaceOrder', userId, order: h.spec({ marketId: CALL, side, price, quantity, timeInForce }), kind: 'option' })
  place('alice', 'sell', '0.0500', '2')
  place('bob', 'buy', '0.0500', '1', 'ioc')
  place('alice', 'buy', '0.0100', '1')
  alice = h.engine.state.accounts.get('alice')!
  expect(kept()).toEqual(full())
})

describe('the kept option sums', () => {
  const leg = () => alice.optionLegs.get(CALL)!
  const counted = (change: (e: OrderExposure) => void) => {
    const e = leg().exposure!
    change(e)
    e.changes++
  }
  it.each([
    ['the position', () => (leg().position!.lots -= 50)],
    ['the open buys\' lots', () => counted((e) => (e.buyLots += 10))],
    ['the open buys\' tick·lots', () => counted((e) => (e.buyTickLots += 1_000n))],
    ['the open sells\' lots', () => counted((e) => (e.sellLots += 10))],
    ['the open sells\' tick·lots', () => counted((e) => (e.sellTickLots += 50_000n))],
  ])('follow a change of %s', (_name, change) => {
    const before = kept()
    change()
    expect(kept()).toEqual(full())
    expect(kept()).not.toEqual(before)
  })

  it('take an exposure as it was until its change is counted', () => {
    const before = kept()
    leg().exposure!.sellLots += 10
    expect(kept()).toEqual(before)
    leg().exposure!.changes++
    expect(kept()).toEqual(full())
  })
})
