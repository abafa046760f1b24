// Every REST route answers what /openapi.json says it answers: each route of the table is called for
// real (on an exchange with trades, positions, option fills and API keys to show) and its body is
// held to the route's documented response schema: right types, nothing missing, nothing undocumented.
// A route added to the table without a call here fails the coverage check.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { ErrorBody } from '../../src/rest/responseSchemas.js'
import { restRoutes } from '../../src/rest/routes.js'
import { createKey, del, fundPerps, newWallet, signIn, verify, type SignedIn } from '../support/auth.js'
import { startTestExchange, type TestExchange } from '../support/exchange.js'
import { http, type Http, type HttpResult } from '../support/http.js'
import { pushBtcCurve } from '../support/marks.js'

let ex: TestExchange
let api: Http
let alice: SignedIn
let bob: SignedIn
let option: string
let optionPrice: (factor: number) => string

beforeAll(async () => {
  ex = await startTestExchange({ ROLES: 'api,engine,scheduler', MARK_STALE_MS: '3600000' })
  api = http(ex.url!)
  expect((await pushBtcCurve(api, '95000')).status).toBe(200)
  alice = await signIn(api, ex.url!)
  bob = await signIn(api, ex.url!)
  for (const u of [alice, bob]) {
    await fundPerps(api, u, '30000')
    expect((await api.post('/wallet/transfer', { from: 'wallet', to: 'options', amount: '30000' }, u.cookie)).status).toBe(200)
  }
  const row = (await api.get('/markets/board')).body.calls.find((c: { markPrice: string | null }) => c.markPrice !== null && Number(c.markPrice) > 0.01)
  option = row.marketId
  optionPrice = (factor) => (Math.round(Number(row.markPrice) * factor * 10_000) / 10_000).toFixed(4)
}, 120_000)
afterAll(() => ex?.close())

const seen = new Set<string>()

/** Holds a 2xx answer of `METHOD path` (the route's table path) to the route's response schema. */
function conforms(method: string, path: string, res: HttpResult): any {
  seen.add(`${method} ${path}`)
  const route = restRoutes.find((r) => r.method === method && r.path === path)
  expect(route, `${method} ${path} is a table route`).toBeDefined()
  expect(res.status, `${method} ${path}: ${res.text}`).toBe(route!.status ?? 200)
  const parsed = (route!.response as z.ZodType).safeParse(res.body)
  expect(parsed.error?.issues ?? [], `${method} ${path}`).toEqual([])
  // zod leaves out what the schema does not name: equal means nothing undocumented was sent.
  expect(parsed.data, `${method} ${path}: only documented fields`).toEqual(res.body)
  return res.body
}

describe('every REST route answers its documented response', () => {
  it('market data', async () => {
    conforms('GET', '/perps/markets', await api.get('/perps/markets'))
    conforms('GET', '/perps/orderbook/:marketId', await api.get('/perps/orderbook/BTC-PERP'))
    conforms('GET', '/orderbook/:marketId', await api.get(`/orderbook/${option}`))
    conforms('GET', '/perps/market-stats', await api.get('/perps/market-stats'))
    conforms('GET', '/perps/ohlc', await api.get('/perps/ohlc?symbol=BTC-PERP&resolution=1'))
    conforms('GET', '/markets/board', await api.get('/markets/board?underlying=BTC'))
    conforms('GET', '/catalog/instruments', await api.get('/catalog/instruments'))
    conforms('GET', '/catalog/instruments/:symbol', await api.get('/catalog/instruments/BTC-PERP'))
    conforms('GET', '/catalog/products', await api.get('/catalog/products'))
  })

  it('linear trading', async () => {
    const order = { marketId: 'BTC-PERP', side: 'buy', type: 'limit', price: '94000', quantity: '0.01' }
    conforms('POST', '/perps/orders/preview', await api.post('/perps/orders/preview', order, alice.cookie))
    const resting = conforms('POST', '/perps/orders', await api.post('/perps/orders', { ...order, clientOrderId: 'doc-1' }, alice.cookie))
    conforms('POST', '/perps/orders/:id/modify', await api.post(`/perps/orders/${resting.id}/modify`, { quantity: '0.02' }, alice.cookie))
    const taken = conforms('POST', '/perps/orders', await api.post('/perps/orders', { marketId: 'BTC-PERP', side: 'sell', type: 'market', quantity: '0.01' }, bob.cookie))
    expect(taken.status).toBe('filled')
    conforms('POST', '/perps/orders/:id/cancel', await api.post(`/perps/orders/${resting.id}/cancel`, {}, alice.cookie))
    conforms('GET', '/perps/orders', await api.get('/perps/orders?limit=5', alice.cookie))
    conforms('POST', '/perps/quotes', await api.post('/perps/quotes', { marketId: 'BTC-PERP', quoteId: 'q1', bid: { price: '93000', quantity: '0.01' }, ask: { price: '97000', quantity: '0.01' } }, alice.cookie))
    const bulk = { marketId: 'BTC-PERP', quoteId: 'q2', cancelAll: true, quotes: [{ side: 'buy', price: '93500', quantity: '0.01' }, { side: 'sell', price: '96500', quantity: '0.01' }] }
    conforms('POST', '/perps/quotes/bulk', await api.post('/perps/quotes/bulk', bulk, alice.cookie))
    conforms('GET', '/perps/orders/open', await api.get('/perps/orders/open', alice.cookie))
    conforms('GET', '/perps/trades', await api.get('/perps/trades', alice.cookie))
    conforms('GET', '/perps/liquidations', await api.get('/perps/liquidations', alice.cookie))
    const positions = conforms('GET', '/perps/positions', await api.get('/perps/positions', alice.cookie))
    expect(positions.length).toBeGreaterThan(0)
    conforms('POST', '/perps/orders/cancel-all', await api.post('/perps/orders/cancel-all', { marketId: 'BTC-PERP' }, alice.cookie))
    conforms('POST', '/perps/positions/close', await api.post('/perps/positions/close', { marketId: 'BTC-PERP' }, bob.cookie))
    conforms('POST', '/orders/cancel-all-after', await api.post('/orders/cancel-all-after', { timeoutMs: 60_000 }, alice.cookie))
    conforms('POST', '/orders/cancel-all-after', await api.post('/orders/cancel-all-after', { timeoutMs: 0 }, alice.cookie))
  })

  it('options trading', async () => {
    const sell = { marketId: option, side: 'sell', type: 'limit', price: optionPrice(1), quantity: '0.1' }
    conforms('POST', '/orders/preview', await api.post('/orders/preview', sell, alice.cookie))
    const ask = conforms('POST', '/orders', await api.post('/orders', sell, alice.cookie))
    conforms('POST', '/orders', await api.post('/orders', { ...sell, side: 'buy', quantity: '0.05' }, bob.cookie))
    conforms('POST', '/orders/:id/modify', await api.post(`/orders/${ask.id}/modify`, { price: optionPrice(1.05) }, alice.cookie))
    conforms('POST', '/orders/:id/cancel', await api.post(`/orders/${ask.id}/cancel`, {}, alice.cookie))
    const quote = { marketId: option, quoteId: 'oq', bid: { price: optionPrice(0.8), quantity: '0.1' }, ask: { price: optionPrice(1.2), quantity: '0.1' } }
    conforms('POST', '/quotes', await api.post('/quotes', quote, alice.cookie))
    const bulk = { marketId: option, quoteId: 'oq2', cancelAll: true, quotes: [{ side: 'buy', price: optionPrice(0.85), quantity: '0.1' }] }
    conforms('POST', '/quotes/bulk', await api.post('/quotes/bulk', bulk, alice.cookie))
    conforms('GET', '/orders/me', await api.get('/orders/me', alice.cookie))
    conforms('GET', '/balances/me', await api.get('/balances/me', alice.cookie))
    expect(conforms('GET', '/positions/me', await api.get('/positions/me', bob.cookie)).length).toBeGreaterThan(0)
    expect(conforms('GET', '/trades/me', await api.get('/trades/me', bob.cookie)).length).toBeGreaterThan(0)
    conforms('POST', '/orders/cancel-all', await api.post('/orders/cancel-all', {}, alice.cookie))
  })

  it('market-maker protection', async () => {
    conforms('POST', '/mmp/config', await api.post('/mmp/config', { intervalMs: 1000, frozenMs: 5000, quantityLimit: '10' }, alice.cookie))
    conforms('GET', '/mmp/config', await api.get('/mmp/config?underlying=BTC', alice.cookie))
    conforms('POST', '/mmp/reset', await api.post('/mmp/reset', { underlying: 'BTC' }, alice.cookie))
  })

  it('wallet and portfolio', async () => {
    // Alice took the day's faucet cap in the set-up.
    const carol = await signIn(api, ex.url!)
    conforms('POST', '/wallet/faucet', await api.post('/wallet/faucet', { amount: '10' }, carol.cookie))
    conforms('POST', '/wallet/transfer', await api.post('/wallet/transfer', { from: 'wallet', to: 'spot', amount: '5' }, carol.cookie))
    conforms('GET', '/wallet/balance', await api.get('/wallet/balance', alice.cookie))
    conforms('GET', '/wallet/withdrawals', await api.get('/wallet/withdrawals', alice.cookie))
    conforms('GET', '/wallet/deposits', await api.get('/wallet/deposits', alice.cookie))
    conforms('GET', '/portfolio/balances', await api.get('/portfolio/balances', alice.cookie))
    conforms('GET', '/portfolio/me', await api.get('/portfolio/me', alice.cookie))
    // Without a chain nothing came in on chain, so nothing may leave: the refusal is the documented error body
    // (test/e2e/chain.withdrawals.test.ts has the accepted withdrawal against a real chain).
    const refused = await api.post('/wallet/withdraw', { amount: '1' }, alice.cookie)
    seen.add('POST /wallet/withdraw')
    expect(refused.body.code).toBe('WITHDRAWAL_NOT_ALLOWED')
    expect(ErrorBody.parse(refused.body)).toEqual(refused.body)
  })

  it('identity and API keys', async () => {
    conforms('GET', '/auth/nonce', await api.get('/auth/nonce'))
    conforms('POST', '/auth/verify', await verify(api, ex.url!, newWallet()))
    conforms('GET', '/auth/me', await api.get('/auth/me', alice.cookie))
    const key = await createKey(api, alice.cookie, { name: 'docs', scope: 'read', allowedIps: ['127.0.0.1'], expiresInDays: 30 })
    seen.add('POST /perps/me/api-keys')
    const created = await api.post('/perps/me/api-keys', { name: 'docs-2', scope: 'trade' }, alice.cookie)
    conforms('POST', '/perps/me/api-keys', created)
    conforms('GET', '/perps/me/api-keys', await api.get('/perps/me/api-keys', alice.cookie))
    conforms('DELETE', '/perps/me/api-keys/:id', await del(api, `/perps/me/api-keys/${key.id}`, alice.cookie))
    const carol = await signIn(api, ex.url!)
    conforms('POST', '/auth/logout', await api.post('/auth/logout', {}, carol.cookie))
  })

  it('covered every route of the table', () => {
    expect(restRoutes.map((r) => `${r.method} ${r.path}`).filter((r) => !seen.has(r))).toEqual([])
  })
})
