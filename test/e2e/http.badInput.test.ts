// Bad ids and NUL characters at the edges: a path id that cannot name anything is the route's
// not-found code, before any lookup; a NUL in any query or body field, or in any GraphQL argument
// (PostgreSQL refuses NUL in text, so each of these was a 500), is 400 INVALID_REQUEST; nothing earns a
// 500 or changes anything.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { compileRoutes } from '../../src/rest/executor.js'
import { schema } from '../../src/graphql/schema.js'
import { expectError, fundPerps, signIn, type SignedIn } from '../support/auth.js'
import { ADMIN, startTestExchange, type TestExchange } from '../support/exchange.js'
import { http, type Http } from '../support/http.js'
import { pushBtcCurve } from '../support/marks.js'

let ex: TestExchange
let api: Http
let alice: SignedIn

beforeAll(async () => {
  ex = await startTestExchange({ ROLES: 'api,engine,scheduler', MARK_STALE_MS: '3600000' })
  api = http(ex.url!)
  expect((await pushBtcCurve(api, '95000')).status).toBe(200)
  alice = await signIn(api, ex.url!)
  await fundPerps(api, alice)
})
afterAll(() => ex?.close())

describe('path ids', () => {
  it.each([
    ['POST', '/perps/orders/%00/cancel', 404, 'ORDER_NOT_FOUND'],
    ['POST', '/perps/orders/%00/modify', 404, 'ORDER_NOT_FOUND', { quantity: '1' }],
    // Not a ULID: no order has that id, and the engine is not asked.
    ['POST', '/perps/orders/not-an-order/cancel', 404, 'ORDER_NOT_FOUND'],
    ['POST', '/perps/orders/01ARZ3NDEKTSV4RRFFQ69G5FA%01/modify', 404, 'ORDER_NOT_FOUND', { quantity: '1' }],
    ['DELETE', '/perps/me/api-keys/%00', 404, 'NOT_FOUND'],
    ['GET', '/perps/orderbook/BTC-PERP%00', 404, 'MARKET_NOT_FOUND'],
    ['GET', '/orderbook/%0a', 404, 'MARKET_NOT_FOUND'],
    ['GET', '/catalog/instruments/%00', 404, 'MARKET_NOT_FOUND'],
  ] as const)('%s %s is %i %s', async (method, path, status, code, body?: unknown) => {
    expectError(await api.request(method, path, { body, headers: alice.cookie }), status, code)
  })

  it('an operator route with a user id that is not a ULID is 404 NOT_FOUND', async () => {
    expectError(await api.post('/admin/users/%00/rate-tier', {}, ADMIN), 404, 'NOT_FOUND')
    expectError(await api.post('/admin/users/alice/rate-tier', {}, ADMIN), 404, 'NOT_FOUND')
    expect((await api.post(`/admin/users/${alice.user.id}/rate-tier`, { tier: 2 }, ADMIN)).body).toMatchObject({ userId: alice.user.id, rateTier: 2 })
  })

  it('a REST route must declare each of its path parameters', () => {
    const route = { method: 'GET', path: '/x/:id', auth: 'public', operation: '{ __typename }', shape: () => ({}), response: z.object({}), summary: 'x', tag: 'Service' } as const
    expect(() => compileRoutes(schema, [route])).toThrow(/declare path parameter\(s\) id/)
  })
})

describe('a NUL in a query or body field', () => {
  it.each([
    ['GET', '/perps/orders?marketId=BTC%00'],
    ['GET', '/perps/orders?cursor=%00'],
    ['GET', '/perps/orders/open?cursor=%00'],
    ['GET', '/perps/trades?marketId=%00'],
    ['GET', '/perps/trades?cursor=%00'],
    ['GET', '/perps/liquidations?cursor=%00'],
  ] as const)('%s %s is 400 INVALID_REQUEST', async (method, path) => {
    const res = await api.request(method, path, { headers: alice.cookie })
    expectError(res, 400, 'INVALID_REQUEST')
    expect(res.body.details.field).toMatch(/^query\./)
  })

  it.each([
    ['/perps/orders', { marketId: 'BTC-PERP\u0000', side: 'buy', quantity: '0.01', type: 'market' }],
    ['/perps/orders/cancel-all', { quoteId: 'q\u0000' }],
    ['/perps/orders/cancel-all', { marketId: 'BTC-PERP', clientOrderId: '\u0000' }],
    ['/perps/quotes/bulk', { marketId: 'BTC-PERP', quotes: [{ bid: { price: '1', quantity: '1', clientOrderId: '\u0000' } }] }],
    ['/wallet/transfer', { from: 'wallet', to: 'perps\u0000', amount: '1' }],
  ] as const)('POST %s is 400 INVALID_REQUEST and changes nothing', async (path, body) => {
    const before = (await api.get('/wallet/balance', alice.cookie)).body
    const res = await api.post(path, body, alice.cookie)
    // A field the route checks itself fails its own check first; the others are named as sent.
    expectError(res, 400, 'INVALID_REQUEST')
    expect((await api.get('/wallet/balance', alice.cookie)).body).toEqual(before)
  })

  it('finds it in a body nested tens of thousands deep (walked without recursion: this was a stack overflow and a 500)', async () => {
    const path = '/perps/orders/01ARZ3NDEKTSV4RRFFQ69G5FAV/cancel'
    const deep = (inner: string) => '['.repeat(30_000) + inner + ']'.repeat(30_000)
    const withNul = await api.request('POST', path, { raw: deep('"\\u0000"'), headers: { ...alice.cookie, 'content-type': 'application/json' } })
    expectError(withNul, 400, 'INVALID_REQUEST')
    const without = await api.request('POST', path, { raw: deep('"x"'), headers: { ...alice.cookie, 'content-type': 'application/json' } })
    expectError(without, 404, 'ORDER_NOT_FOUND')
  })

  it('names the field it found a NUL in', async () => {
    const res = await api.post('/perps/orders/cancel-all', { quoteId: 'q\u0000' }, alice.cookie)
    expect(res.body.details).toEqual({ field: 'body.quoteId' })
  })
})

describe('a NUL in a GraphQL argument', () => {
  it.each([
    ['query($id: String!) { me { order(id: $id) { id } } }', { id: '\u0000' }],
    ['query($c: String) { me { orders(first: 5, after: $c) { edges { cursor } } } }', { c: 'x\u0000' }],
    ['query($m: String) { me { trades(first: 5, marketId: $m) { edges { cursor } } } }', { m: '\u0000' }],
    ['mutation($id: String!) { cancelOrder(id: $id) { id } }', { id: '01ARZ3NDEKTSV4RRFFQ69G5FA\u0000' }],
    // A literal's escape is the same character.
    ['{ me { order(id: "\\u0000") { id } } }', {}],
  ])('%s is INVALID_REQUEST', async (query, variables) => {
    const res = await api.graphql(query, variables, alice.cookie)
    expect(res.status).toBeLessThan(500)
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'INVALID_REQUEST', status: 400 })
  })
})
