// An option expiry over real HTTP, crossed by moving the engine's clock: two users trade a weekly put,
// spot sits below its strike through the last half hour, and the listing job run at the expiry settles
// both positions at intrinsic value against the TWAP, in the balances, positions and trade history.
import { describe, expect, it } from 'vitest'
import { optionExpiries, isoDate } from '../../src/domain/calendar.js'
import { D } from '../../src/domain/decimal.js'
import { runListing } from '../../src/roles/scheduler/listingJob.js'
import { signIn, type SignedIn } from '../support/auth.js'
import { testClock } from '../support/clock.js'
import { exchangeFor } from '../support/exchange.js'
import { pushBtcCurve } from '../support/marks.js'

describe('an option expiry', () => {
  const h = exchangeFor({ MARK_STALE_MS: '3600000' }, (api) => pushBtcCurve(api, '95000'))

  async function trader(): Promise<SignedIn> {
    const u = await signIn(h.api, h.ex.url!)
    expect((await h.api.post('/wallet/faucet', { amount: '50000' }, u.cookie)).status).toBe(200)
    expect((await h.api.post('/wallet/transfer', { from: 'wallet', to: 'options', amount: '50000' }, u.cookie)).status).toBe(200)
    return u
  }

  it('settles both sides of a weekly put at intrinsic value against the spot TWAP and retires the market', async () => {
    // The front weekly whose last hour is still ahead: the clock only moves forward, through its window.
    const weekly = optionExpiries(testClock.now()).find((e) => e.futureExpiryMs === null && e.expiryMs > testClock.now() + 60 * 60_000)!
    const put = `BTC-${isoDate(weekly.expiryMs)}-95000-P`
    const [buyer, seller] = [await trader(), await trader()]
    expect((await h.api.post('/orders', { marketId: put, side: 'sell', price: '0.0100', quantity: '0.5' }, seller.cookie)).status).toBe(200)
    const bought = await h.api.post('/orders', { marketId: put, side: 'buy', price: '0.0100', quantity: '0.5' }, buyer.cookie)
    expect(bought.body).toMatchObject({ status: 'filled' })
    const before = await Promise.all([buyer, seller].map(async (u) => D((await h.api.get('/balances/me', u.cookie)).body.total)))

    // Spot at 93,000 through the last half hour (pushed with the engine's clock moved there).
    const spotAt = (t: number) =>
      h.ex.services.commands.execute({ type: 'UpdateMarks', marks: [{ marketId: 'BTC-USDC-SPOT', price: '93000', source: 'push', sourceTs: t }] }, { ts: t })
    await spotAt(weekly.expiryMs - 45 * 60_000)
    await spotAt(weekly.expiryMs - 5 * 60_000)
    const result = await runListing(h.ex.services.marketData, h.ex.services.commands, 5_000, weekly.expiryMs)
    expect(result.expired).toBeGreaterThanOrEqual(1)

    // Intrinsic 95,000 − 93,000 = 2,000 USDC per BTC; 0.5 BTC: 1,000 USDC-T from seller to buyer.
    const after = await Promise.all([buyer, seller].map(async (u) => D((await h.api.get('/balances/me', u.cookie)).body.total)))
    expect(after[0]!.minus(before[0]!).toFixed()).toBe('1000')
    expect(after[1]!.minus(before[1]!).toFixed()).toBe('-1000')
    const market = await h.api.graphql(`{ market(id: "${put}") { tradingStatus settlementPrice } }`)
    expect(market.body.data.market).toEqual({ tradingStatus: 'SETTLED', settlementPrice: '93000' })
    for (const u of [buyer, seller]) {
      const positions = (await h.api.get('/positions/me', u.cookie)).body as Array<{ marketId: string; quantity: string }>
      expect(positions.filter((p) => p.marketId === put && p.quantity !== '0')).toEqual([])
      expect((await h.api.get('/balances/me', u.cookie)).body.locked).toBe('0')
    }
    const history = (await h.api.get('/trades/me', buyer.cookie)).body as Array<Record<string, string>>
    // The row's amount is the position's realized P&L, as in the linear history: the 1,000 paid less the
    // 475 premium (0.01 × 0.5 × 95,000).
    expect(history.find((t) => t.type === 'settlement')).toMatchObject({ marketId: put, quantity: '0.5', amount: '525' })
    // Refused afterwards: a settled market is no longer an option market one may trade.
    const late = await h.api.post('/orders', { marketId: put, side: 'buy', price: '0.0100', quantity: '0.5' }, buyer.cookie)
    expect([late.status, late.body.code]).toEqual([400, 'INVALID_MARKET_ID'])
  })
})
