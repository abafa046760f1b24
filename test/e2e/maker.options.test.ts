// The liquidity simulator on options, on a fresh install with its default cadence: a near-the-money
// BTC option's book is two-sided within 10 seconds of start (the board shows its bid and ask), only strikes within ±20% of the
// forward are quoted, and the house quotes under market-maker protection of its own. (Its prices, around
// Black-76 with a vega spread and an inventory skew, are optionQuotes.ts's, tested in maker.optionQuotes.test.ts.)
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { D } from '../../src/domain/decimal.js'
import { HOUSE_MMP, SIM_QUOTE_ID } from '../../src/roles/maker/simMaker.js'
import { signIn } from '../support/auth.js'
import { exchangeFor } from '../support/exchange.js'
import { pollUntil } from '../support/poll.js'

// The defaults of `npm start` (MAKER_INTERVAL_MS 1000, the sim mark feed at 1 s): only the roles are named.
const h = exchangeFor({ ROLES: 'api,engine,scheduler,maker', SIM_MAKER: 'true', MARK_FEED: 'sim' })

describe('the simulator on options, on a fresh install', () => {
  it('makes a near-the-money option two-sided within 10 s, quoting inside ±20% of the forward, under MMP', async () => {
    const started = Date.now()
    const board = await pollUntil(async () => {
      const b = (await h.api.get('/markets/board?underlying=BTC')).body
      return b.spotPrice && b.calls.some((r: any) => r.markPrice !== null) ? b : null
    }, { what: 'a priced options board', timeoutMs: 10_000 })
    const forwards = new Map<string, number>(Object.entries(board.expiryForwards).map(([e, f]) => [e, Number(f)]))
    const near = [...board.calls, ...board.puts]
      .filter((r: any) => r.markPrice !== null)
      .sort((a: any, b: any) => Math.abs(Math.log(a.strikePrice / forwards.get(a.expiry)!)) - Math.abs(Math.log(b.strikePrice / forwards.get(b.expiry)!)))[0]
    const book = await pollUntil(async () => {
      const b = (await h.api.get(`/orderbook/${near.marketId}`)).body
      return b.bids.length > 0 && b.asks.length > 0 ? b : null
    }, { what: `a two-sided book on ${near.marketId}`, timeoutMs: Math.max(0, 10_000 - (Date.now() - started)) })
    expect(D(book.bids[0][0]).lt(book.asks[0][0])).toBe(true)

    // The board shows it.
    const row = await pollUntil(async () => {
      const b = (await h.api.get('/markets/board?underlying=BTC')).body
      return [...b.calls, ...b.puts].find((r: any) => r.marketId === near.marketId && r.bid !== null && r.ask !== null)
    }, { what: 'the board showing its bid and ask', timeoutMs: 10_000 })
    expect(D(row.bid).lt(row.ask)).toBe(true)

    // Only strikes within ±20% of their forward carry the house's quotes.
    const house = await signIn(h.api, h.ex.url!, privateKeyToAccount(h.ex.config.makerPrivateKey))
    const orders = ((await h.api.get('/orders/me?limit=200', house.cookie)).body as any[]).filter((o) => o.status === 'open')
    expect(orders.length).toBeGreaterThan(0)
    const rows = new Map([...board.calls, ...board.puts].map((r: any) => [r.marketId, r]))
    for (const o of orders) {
      const r = rows.get(o.marketId)
      expect(o.quoteId).toBe(SIM_QUOTE_ID)
      expect(Math.abs(r.strikePrice / forwards.get(r.expiry)! - 1)).toBeLessThanOrEqual(0.2)
    }
    expect((await h.api.get('/mmp/config', house.cookie)).body).toMatchObject({
      enabled: true, intervalMs: HOUSE_MMP.intervalMs, frozenMs: HOUSE_MMP.frozenMs, quantityLimit: HOUSE_MMP.quantityLimit, deltaLimit: HOUSE_MMP.deltaLimit,
    })
  })
})
