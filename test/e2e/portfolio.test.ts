// Portfolio snapshots over HTTP and GraphQL: /portfolio/balances (every bucket with the on-chain totals)
// and /portfolio/me (equity, margin used, available, buckets, positions, open orders, unrealized P&L) at
// the current marks, the same under `me` in GraphQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fundPerps, signIn, type SignedIn } from '../support/auth.js'
import { ADMIN, startTestExchange, type TestExchange } from '../support/exchange.js'
import { http, type Http } from '../support/http.js'
import { btcCurveMarks, pushBtcCurve } from '../support/marks.js'

let ex: TestExchange
let api: Http
let alice: SignedIn
let bob: SignedIn
const PERP = 'BTC-PERP'

beforeAll(async () => {
  ex = await startTestExchange({ ROLES: 'api,engine,scheduler', MARK_STALE_MS: '3600000' })
  api = http(ex.url!)
  expect((await api.post('/admin/marks', btcCurveMarks('95000'), ADMIN)).status).toBe(200)
  alice = await signIn(api, ex.url!)
  bob = await signIn(api, ex.url!)
  await fundPerps(api, alice, '20000', '50000')
  await fundPerps(api, bob, '20000', '50000')
})
afterAll(() => ex?.close())

describe('portfolio snapshots', () => {
  it('answer 401 without a credential', async () => {
    expect((await api.get('/portfolio/me')).status).toBe(401)
    expect((await api.get('/portfolio/balances')).status).toBe(401)
  })

  it('/portfolio/balances lists every bucket with the deposit and pending totals', async () => {
    const res = await api.get('/portfolio/balances', alice.bearer)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      buckets: { wallet: '30000', spot: '0', perps: '20000', options: '0' },
      total: '50000',
      options: { available: '0', locked: '0', total: '0' },
      onchainDepositTotal: '0',
      pendingWithdrawalTotal: '0',
    })
  })

  it('/portfolio/me values positions at the mark and counts open orders, as GraphQL does', async () => {
    const sell = await api.post('/perps/orders', { marketId: PERP, side: 'sell', type: 'limit', price: '95000', quantity: '0.1' }, bob.bearer)
    expect(sell.status).toBe(200)
    const buy = await api.post('/perps/orders', { marketId: PERP, side: 'buy', type: 'limit', price: '95000', quantity: '0.1' }, alice.bearer)
    expect(buy.body.status).toBe('filled')
    expect((await api.post('/perps/orders', { marketId: PERP, side: 'buy', type: 'limit', price: '90000', quantity: '0.01' }, alice.bearer)).status).toBe(200)
    expect((await pushBtcCurve(api, '96000')).status).toBe(200)

    const me = (await api.get('/portfolio/me', alice.bearer)).body
    const position = me.positions.find((p: { marketId: string }) => p.marketId === PERP)
    expect(position).toMatchObject({ side: 'long', quantity: '0.1', marginMode: 'cross' })
    const perps = Number(me.buckets.perps)
    expect(me).toMatchObject({ openOrderCount: 1, buckets: { wallet: '30000', spot: '0', options: '0' }, optionPositions: [] })
    // Equity is every bucket plus the perpetual's unrealized P&L; margin used is its initial margin.
    expect(Number(me.unrealizedPnl)).toBe(Number(position.unrealizedPnl))
    expect(Number(position.unrealizedPnl)).toBeGreaterThan(0)
    expect(Number(me.equity)).toBeCloseTo(30000 + perps + Number(position.unrealizedPnl), 6)
    expect(me.marginUsed).toBe(position.initialMargin)
    expect(Number(me.available)).toBeCloseTo(Number(me.equity) - Number(me.marginUsed), 6)

    const gql = await api.post('/graphql', { query: '{ me { portfolio { equity marginUsed available unrealizedPnl openOrderCount } portfolioBalances { total } } }' }, alice.bearer)
    expect(gql.body.data.me.portfolio).toEqual({ equity: me.equity, marginUsed: me.marginUsed, available: me.available, unrealizedPnl: me.unrealizedPnl, openOrderCount: 1 })
    expect(gql.body.data.me.portfolioBalances.total).toBe((await api.get('/portfolio/balances', alice.bearer)).body.total)
  })
})
