// A field that fails keeps its error to itself over GraphQL: root fields, the account fields hung on a
// user and mutations are nullable, so the rest of the data survives (public data beside `me` without a
// credential, the caller's id beside key management an API key may not list, a sign-in's token beside
// account reads it cannot make yet, an order placed beside one refused). REST, which runs the same
// documents in-process, still answers with the first error's status and the spec's body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKey, expectError, fundPerps, newWallet, nonce, siweMessage, signIn, type SignedIn } from '../support/auth.js'
import { startTestExchange, type TestExchange } from '../support/exchange.js'
import { http, type Http, type HttpResult } from '../support/http.js'
import { pushBtcCurve } from '../support/marks.js'

let ex: TestExchange
let api: Http
let alice: SignedIn

beforeAll(async () => {
  ex = await startTestExchange({ ROLES: 'api,engine,scheduler', MARK_STALE_MS: '3600000' })
  api = http(ex.url!)
  expect((await pushBtcCurve(api, '95000')).status).toBe(200)
  alice = await signIn(api, ex.url!)
})
afterAll(() => ex?.close())

/** The errors of a response by path, as `path: code`. */
const errorsByPath = (res: HttpResult) => res.body.errors?.map((e: any) => `${e.path.join('.')}: ${e.extensions.code}`) ?? []

describe('a failing field keeps its error to itself', () => {
  it('answers the markets and me: null to a caller without a credential, with one MISSING_CREDENTIAL error', async () => {
    const res = await api.graphql('{ markets(first: 3) { edges { node { marketId } } } me { id address } }')
    expect(res.status).toBe(200)
    expect(res.body.data.markets.edges.map((e: any) => e.node.marketId)).toHaveLength(3)
    expect(res.body.data.me).toBeNull()
    expect(res.body.errors).toHaveLength(1)
    expect(res.body.errors[0]).toMatchObject({ path: ['me'], extensions: { code: 'MISSING_CREDENTIAL', status: 401 } })
  })

  it('answers an API key its user beside the key list it may not read', async () => {
    const key = await createKey(api, alice.cookie, { scope: 'read' })
    const res = await api.graphql('{ me { id address apiKeys { edges { node { id name } } } } }', {}, key.auth)
    expect(res.body.data.me).toEqual({ id: alice.user.id, address: alice.user.address, apiKeys: null })
    expect(errorsByPath(res)).toEqual(['me.apiKeys: SCOPE_INSUFFICIENT'])
    // With a session, the same document answers in full.
    const full = await api.graphql('{ me { id apiKeys { edges { node { id } } } } }', {}, alice.cookie)
    expect(full.body.errors).toBeUndefined()
    expect(full.body.data.me.apiKeys.edges.map((e: any) => e.node.id)).toContain(key.id)
  })

  it('answers the other fields beside an unknown book, an unknown board and a bad resolution, each error on its field', async () => {
    const res = await api.graphql(`{
      market(id: "BTC-PERP") { marketId }
      orderbook(marketId: "NOPE") { sequence }
      book: orderbook(marketId: "BTC-PERP") { marketId }
      optionsBoard(underlying: "NOPE") { spotPrice }
      candles(marketId: "BTC-PERP", resolution: "7") { timestamp }
      marketStats(marketId: "BTC-PERP") { edges { node { marketId } } }
    }`)
    expect(res.status).toBe(200)
    expect(res.body.data).toEqual({
      market: { marketId: 'BTC-PERP' },
      orderbook: null,
      book: { marketId: 'BTC-PERP' },
      optionsBoard: null,
      candles: null,
      marketStats: { edges: [{ node: { marketId: 'BTC-PERP' } }] },
    })
    expect(errorsByPath(res).sort()).toEqual(['candles: INVALID_REQUEST', 'optionsBoard: PRODUCT_NOT_FOUND', 'orderbook: MARKET_NOT_FOUND'])
  })

  it('answers a sign-in with its token even when its selection reads the account it cannot read yet', async () => {
    const wallet = newWallet()
    const message = siweMessage(ex.url!, wallet.address, { nonce: await nonce(api) })
    const signature = await wallet.signMessage({ message })
    const res = await api.graphql(
      'mutation($m: String!, $s: String!) { signIn(message: $m, signature: $s) { token user { address orders { edges { node { id } } } } } }',
      { m: message, s: signature },
    )
    expect(res.body.data.signIn.token).toEqual(expect.any(String))
    expect(res.body.data.signIn.user).toEqual({ address: wallet.address, orders: null })
    expect(errorsByPath(res)).toEqual(['signIn.user.orders: MISSING_CREDENTIAL'])
    // The token works.
    const me = await api.graphql('{ me { address } }', {}, { authorization: `Bearer ${res.body.data.signIn.token}` })
    expect(me.body.data.me.address).toBe(wallet.address)
  })

  it('answers the order a mutation placed beside the one it refused', async () => {
    const bob = await signIn(api, ex.url!)
    await fundPerps(api, bob)
    const res = await api.graphql(
      `mutation {
        refused: placeOrder(input: { marketId: "NOPE", side: BUY, price: "94000", quantity: "0.001" }) { id }
        placed: placeOrder(input: { marketId: "BTC-PERP", side: BUY, price: "94000", quantity: "0.001" }) { id status }
      }`,
      {},
      bob.cookie,
    )
    expect(res.body.data.refused).toBeNull()
    expect(res.body.data.placed).toEqual({ id: expect.any(String), status: 'OPEN' })
    expect(errorsByPath(res)).toEqual(['refused: INVALID_MARKET_ID'])
    const open = await api.get('/perps/orders/open', bob.cookie)
    expect(open.body.map((o: any) => o.id)).toEqual([res.body.data.placed.id])
  })
})

describe('REST answers its documents\' errors as before', () => {
  it('maps the first error to its status and the spec\'s body', async () => {
    expectError(await api.get('/auth/me'), 401, 'MISSING_CREDENTIAL')
    expectError(await api.get('/perps/orderbook/NOPE'), 404, 'MARKET_NOT_FOUND')
    expectError(await api.get('/markets/board?underlying=NOPE'), 404, 'PRODUCT_NOT_FOUND')
    expectError(await api.get('/perps/ohlc?symbol=BTC-PERP&resolution=7'), 400, 'INVALID_REQUEST')
    const key = await createKey(api, alice.cookie, { scope: 'read' })
    expectError(await api.get('/perps/me/api-keys', key.auth), 403, 'SCOPE_INSUFFICIENT')
    expectError(await api.post('/perps/orders', { marketId: 'NOPE', side: 'buy', type: 'limit', price: '94000', quantity: '0.001' }, alice.cookie), 400, 'INVALID_MARKET_ID')
  })
})
