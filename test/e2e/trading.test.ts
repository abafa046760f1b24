// Linear trading over real HTTP (REST and GraphQL) with real signed-in users trading with each other:
// wallet buckets, every order rule and code, matching, fills, positions, the order lifecycle, quotes,
// position close and the dead man's switch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { D, formatDecimal } from '../../src/domain/decimal.js'
import { createKey, expectError, fundPerps, signIn, type CreatedKey, type SignedIn } from '../support/auth.js'
import { ADMIN, startTestExchange, type TestExchange } from '../support/exchange.js'
import { DECIMAL, http, ISO, type Http } from '../support/http.js'
import { btcFutures } from '../support/marks.js'

let ex: TestExchange
let api: Http
let alice: SignedIn
let bob: SignedIn
let aliceTrade: CreatedKey
let aliceRead: CreatedKey
const PERP = 'BTC-PERP'
const SPOT = 'BTC-USDC-SPOT'

async function fund(u: SignedIn, amount = '100000') {
  await fundPerps(api, u, '60000', amount)
  expect((await api.post('/wallet/transfer', { from: 'wallet', to: 'spot', amount: '30000' }, u.cookie)).status).toBe(200)
}

const order = (u: Record<string, string>, body: Record<string, unknown>) => api.post('/perps/orders', { marketId: PERP, ...body }, u)
const openOrders = async (u: SignedIn) => (await api.get('/perps/orders/open', u.cookie)).body as any[]

beforeAll(async () => {
  // Marks stay fresh for the whole file; staleness has its own exchange below.
  ex = await startTestExchange({ ROLES: 'api,engine,scheduler', MARK_STALE_MS: '3600000', FAUCET_DAILY_CAP: '150000' })
  api = http(ex.url!)
  const futures = btcFutures()
  // A flat curve: the perpetual's index is 95,000 inside the roll window too, whatever the date.
  const marks = [[SPOT, '95000'], [futures[0]!, '95000'], [futures[1]!, '95000'], ['XAUT-USDC-SPOT', '4000']]
  expect((await api.post('/admin/marks', { marks: marks.map(([marketId, price]) => ({ marketId, price })) }, ADMIN)).status).toBe(200)
  alice = await signIn(api, ex.url!)
  bob = await signIn(api, ex.url!)
  await fund(alice)
  await fund(bob)
  aliceTrade = await createKey(api, alice.cookie, { scope: 'trade' })
  aliceRead = await createKey(api, alice.cookie, { scope: 'read' })
})
afterAll(() => ex?.close())

describe('wallet', () => {
  it('reports all six balance fields, consistent with transfers', async () => {
    const res = await api.get('/wallet/balance', aliceRead.auth)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      onchainDepositTotal: '0', tradableBalance: '30000', walletBalance: '10000', spotBalance: '30000', perpsBalance: '60000',
      optionsBalance: '0', pendingWithdrawalTotal: '0',
    })
  })

  it('transfers between buckets and returns the new balances', async () => {
    const res = await api.post('/wallet/transfer', { from: 'wallet', to: 'options', amount: '1.5' }, aliceTrade.auth)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ from: 'wallet', to: 'options', amount: '1.5', balances: { wallet: '9998.5', spot: '30000', perps: '60000', options: '1.5' } })
    await api.post('/wallet/transfer', { from: 'options', to: 'wallet', amount: '1.5' }, aliceTrade.auth)
  })

  it.each([
    ['the same bucket', { from: 'spot', to: 'spot', amount: '1' }, 400, 'SAME_BUCKET'],
    ['more than the bucket holds', { from: 'wallet', to: 'spot', amount: '10000.000001' }, 422, 'INSUFFICIENT_BALANCE'],
    ['a negative amount', { from: 'wallet', to: 'spot', amount: '-5' }, 400, 'INVALID_REQUEST'],
    ['a number amount', { from: 'wallet', to: 'spot', amount: 5 }, 400, 'INVALID_REQUEST'],
    ['seven decimals', { from: 'wallet', to: 'spot', amount: '1.0000001' }, 400, 'INVALID_REQUEST'],
    ['an unknown bucket', { from: 'vault', to: 'spot', amount: '1' }, 400, 'INVALID_REQUEST'],
  ])('refuses a transfer of %s and moves nothing', async (_n, body, status, code) => {
    expectError(await api.post('/wallet/transfer', body, alice.cookie), status, code)
    expect((await api.get('/wallet/balance', alice.cookie)).body.walletBalance).toBe('10000')
  })

  it('needs trade scope to move money, and any credential to read', async () => {
    expectError(await api.post('/wallet/transfer', { from: 'wallet', to: 'spot', amount: '1' }, aliceRead.auth), 403, 'SCOPE_INSUFFICIENT')
    expectError(await api.get('/wallet/balance'), 401, 'MISSING_CREDENTIAL')
  })

  it('caps the faucet per user per day with FAUCET_LIMIT', async () => {
    const res = await api.post('/wallet/faucet', { amount: '50000.000001' }, alice.cookie)
    expectError(res, 429, 'FAUCET_LIMIT')
    expect(res.body.details).toEqual({ remaining: '50000', cap: '150000' })
  })
})

describe('placing orders', () => {
  it('accepts a limit order with every documented field, and GraphQL returns the same order shape', async () => {
    const rest = await order(alice.cookie, { side: 'buy', price: '90000', quantity: '0.01', clientOrderId: 'shape-1' })
    expect(rest.status).toBe(200)
    expect(rest.body).toMatchObject({
      id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/), userId: alice.user.id, marketId: PERP, clientOrderId: 'shape-1', side: 'buy',
      type: 'limit', timeInForce: 'gtc', price: '90000', quantity: '0.01', filledQuantity: '0', status: 'open', marginMode: 'cross',
      postOnly: false, reduceOnly: false, stopPrice: null, parentOrderId: null, cancelReason: null,
    })
    expect(rest.body.createdAt).toMatch(ISO)
    const gql = await api.graphql(
      `mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { id userId marketId clientOrderId side type timeInForce price quantity
        filledQuantity status postOnly reduceOnly marginMode stopPrice takeProfitPrice stopLossPrice triggeredAt parentOrderId quoteId cancelReason
        createdAt updatedAt } }`,
      { input: { marketId: PERP, side: 'BUY', price: '90000', quantity: '0.01', clientOrderId: 'shape-2' } },
      alice.cookie,
    )
    const g = gql.body.data.placeOrder
    const lower = (v: string) => v.toLowerCase()
    expect({ ...g, side: lower(g.side), type: lower(g.type), timeInForce: lower(g.timeInForce), status: lower(g.status), marginMode: lower(g.marginMode) }).toEqual({
      ...rest.body, id: g.id, clientOrderId: 'shape-2', createdAt: g.createdAt, updatedAt: g.updatedAt,
    })
    // And listing it gives the same record as the placement did.
    const listed = (await api.get('/perps/orders', alice.cookie)).body.find((o: any) => o.id === rest.body.id)
    expect(listed).toEqual(rest.body)
  })

  it.each([
    ['an unknown market', { marketId: 'DOGE-PERP', side: 'buy', price: '1', quantity: '1' }, 400, 'INVALID_MARKET_ID'],
    ['an option market', { marketId: 'BTC-2099-01-01-1-C', side: 'buy', price: '1', quantity: '1' }, 400, 'INVALID_MARKET_ID'],
    ['a zero quantity', { side: 'buy', price: '90000', quantity: '0' }, 400, 'INVALID_QUANTITY'],
    ['a quantity off the step', { side: 'buy', price: '90000', quantity: '0.0015' }, 400, 'INVALID_QUANTITY'],
    ['a quantity as a number', { side: 'buy', price: '90000', quantity: 0.01 }, 400, 'INVALID_QUANTITY'],
    ['a price off the tick', { side: 'buy', price: '90000.05', quantity: '0.01' }, 400, 'INVALID_PRICE'],
    ['a price as a number', { side: 'buy', price: 90000, quantity: '0.01' }, 400, 'INVALID_PRICE'],
    ['a limit order without a price', { side: 'buy', quantity: '0.01' }, 400, 'INVALID_PRICE'],
    ['a price outside the band', { side: 'buy', price: '80000', quantity: '0.01' }, 400, 'INVALID_PRICE'],
    ['an unknown time in force', { side: 'buy', price: '90000', quantity: '0.01', timeInForce: 'day' }, 400, 'INVALID_TIME_IN_FORCE'],
    ['an unknown side', { side: 'long', price: '90000', quantity: '0.01' }, 400, 'INVALID_REQUEST'],
    ['an unknown field', { side: 'buy', price: '90000', quantity: '0.01', postonly: true }, 400, 'INVALID_REQUEST'],
    ['post-only on an ioc order', { side: 'buy', price: '90000', quantity: '0.01', postOnly: true, timeInForce: 'ioc' }, 400, 'INVALID_REQUEST'],
    ['a reduce-only order without a position', { side: 'buy', price: '90000', quantity: '0.01', reduceOnly: true }, 422, 'REDUCE_ONLY_VIOLATION'],
    ['more than the margin allows', { side: 'buy', price: '95000', quantity: '7' }, 422, 'INSUFFICIENT_MARGIN'],
  ])('refuses %s with the spec code, changing nothing', async (_n, body, status, code) => {
    const before = (await openOrders(alice)).length
    expectError(await order(alice.cookie, body), status, code)
    expect((await openOrders(alice)).length).toBe(before)
  })

  it('details INSUFFICIENT_MARGIN with required and available initial margin', async () => {
    const res = await order(alice.cookie, { side: 'buy', price: '95000', quantity: '7' })
    expect(res.body.details).toEqual({ requiredIm: '66500', availableIm: expect.stringMatching(DECIMAL) })
  })

  it('refuses a reused clientOrderId with 409 and the existing order', async () => {
    const first = await order(alice.cookie, { side: 'buy', price: '90000', quantity: '0.01', clientOrderId: 'dup-1' })
    const again = await order(aliceTrade.auth, { side: 'sell', price: '99000', quantity: '0.02', clientOrderId: 'dup-1' })
    expectError(again, 409, 'DUPLICATE_CLIENT_ORDER_ID')
    expect(again.body.details.existingOrder).toEqual(first.body)
  })

  it('refuses post-only orders that would cross, and orders on a halted market', async () => {
    await order(bob.cookie, { side: 'sell', price: '96000', quantity: '0.01' })
    expectError(await order(alice.cookie, { side: 'buy', price: '96000', quantity: '0.01', postOnly: true }), 422, 'POST_ONLY_WOULD_CROSS')
    await api.post(`/admin/markets/XAUT-USDC-PERP/halt`, {}, ADMIN)
    expectError(await order(alice.cookie, { marketId: 'XAUT-USDC-PERP', side: 'buy', price: '3900', quantity: '1' }), 409, 'MARKET_HALTED')
    await api.post(`/admin/markets/XAUT-USDC-PERP/resume`, {}, ADMIN)
  })

  it('needs a trade credential: a read key gets 403, nothing gets 401', async () => {
    expectError(await order(aliceRead.auth, { side: 'buy', price: '90000', quantity: '0.01' }), 403, 'SCOPE_INSUFFICIENT')
    expectError(await order({}, { side: 'buy', price: '90000', quantity: '0.01' }), 401, 'MISSING_CREDENTIAL')
    const res = await order(aliceTrade.auth, { side: 'buy', price: '90000', quantity: '0.01' })
    expect(res.status).toBe(200)
    expect(Number(res.headers.get('x-ratelimit-limit'))).toBe(120)
  })

  it('answers ACCOUNT_NOT_FOUND for a signed-in user who never funded an account', async () => {
    const carol = await signIn(api, ex.url!)
    expectError(await order(carol.cookie, { side: 'buy', price: '90000', quantity: '0.01' }), 404, 'ACCOUNT_NOT_FOUND')
  })
})

describe('matching between two users', () => {
  it('fills at the resting price with maker and taker fees, and both see their trades and positions', async () => {
    await api.post('/perps/orders/cancel-all', {}, alice.cookie)
    await api.post('/perps/orders/cancel-all', {}, bob.cookie)
    const ask = await order(bob.cookie, { side: 'sell', price: '95100', quantity: '0.2', clientOrderId: 'bob-ask' })
    const bid = await order(alice.cookie, { side: 'buy', price: '95200', quantity: '0.3' })
    expect(bid.body).toMatchObject({ status: 'open', filledQuantity: '0.2' })
    expect((await api.get(`/perps/orders?marketId=${PERP}`, bob.cookie)).body.find((o: any) => o.id === ask.body.id)).toMatchObject({ status: 'filled', filledQuantity: '0.2' })

    const [aliceTrades, bobTrades] = [(await api.get('/perps/trades', alice.cookie)).body, (await api.get('/perps/trades', bob.cookie)).body]
    expect(aliceTrades[0]).toEqual({
      tradeId: expect.any(String), marketId: PERP, orderId: bid.body.id, side: 'buy', price: '95100', quantity: '0.2', fee: '9.51', feeBps: '5',
      role: 'taker', type: 'trade', createdAt: expect.stringMatching(ISO),
    })
    expect(bobTrades[0]).toMatchObject({ orderId: ask.body.id, side: 'sell', price: '95100', quantity: '0.2', fee: '1.902', feeBps: '1', role: 'maker' })

    // The perpetual's mark is its index plus the premium EMA of earlier books, and moves on every scheduler
    // tick: the position is read between two reads of the market's mark that agree, so it must carry that mark.
    const markOf = async () => (await api.graphql(`{ market(id: "${PERP}") { mark { price indexPrice } } }`)).body.data.market.mark
    let held: { price: string; indexPrice: string }
    let pos: any
    for (let before = await markOf(); ; before = held) {
      pos = (await api.get('/perps/positions', alice.cookie)).body.find((p: any) => p.marketId === PERP)
      held = await markOf()
      if (held.price === before.price) break
    }
    // Every premium sample so far was 0 (a one-sided book) or the 90,000 / 96,000 book's mid (93,000) less
    // the index (95,000 to 96,000 on the futures curve): the EMA of them lies in [-3,000, 0].
    const mark = D(pos.markPrice)
    const premium = mark.minus(held.indexPrice)
    expect(premium.lte(0) && premium.gte(-3_000), premium.toString()).toBe(true)
    expect(pos).toEqual({
      marketId: PERP, side: 'long', quantity: '0.2', avgPrice: '95100', markPrice: held.price, realizedPnl: '0',
      unrealizedPnl: formatDecimal(mark.minus('95100').mul('0.2')), fundingPayment: '0', marginMode: 'cross',
      initialMargin: formatDecimal(mark.mul('0.2').mul('0.1')), maintenanceMargin: formatDecimal(mark.mul('0.2').mul('0.05')), isolatedMargin: '0',
    })
    expect((await api.get('/perps/positions', bob.cookie)).body.find((p: any) => p.marketId === PERP)).toMatchObject({ side: 'short', quantity: '0.2' })
    expect((await api.get('/wallet/balance', alice.cookie)).body.perpsBalance).toBe('59990.49')
  })

  it('closes a position with a reduce-only market order, in part or whole', async () => {
    await order(bob.cookie, { side: 'buy', price: '95000', quantity: '0.5' })
    const part = await api.post('/perps/positions/close', { marketId: PERP, quantity: '0.05' }, alice.cookie)
    expect(part.body).toMatchObject({ type: 'market', side: 'sell', reduceOnly: true, status: 'filled', filledQuantity: '0.05' })
    const rest = await api.post('/perps/positions/close', { marketId: PERP }, alice.cookie)
    expect(rest.body).toMatchObject({ status: 'filled', filledQuantity: '0.15' })
    expect((await api.get('/perps/positions', alice.cookie)).body.find((p: any) => p.marketId === PERP)).toBeUndefined()
    expectError(await api.post('/perps/positions/close', { marketId: PERP }, alice.cookie), 422, 'REDUCE_ONLY_VIOLATION')
  })

  it('trades spot fully funded: USDC from the buyer\'s spot bucket, the asset from the seller\'s holding', async () => {
    await ex.services.commands.execute({ type: 'Genesis', userId: bob.user.id, usdcMicro: '0', holdings: [{ marketId: SPOT, lots: 1_000 }] })
    await order(bob.cookie, { marketId: SPOT, side: 'sell', price: '95000', quantity: '0.1' })
    const buy = await order(alice.cookie, { marketId: SPOT, side: 'buy', price: '95000', quantity: '0.1' })
    expect(buy.body).toMatchObject({ status: 'filled' })
    // 9,500 + 10 bps taker fee out of 30,000
    expect((await api.get('/wallet/balance', alice.cookie)).body.spotBalance).toBe('20490.5')
    expect((await api.get('/perps/positions', alice.cookie)).body.find((p: any) => p.marketId === SPOT)).toMatchObject({ side: 'long', quantity: '0.1', initialMargin: '0' })
    expectError(await order(alice.cookie, { marketId: SPOT, side: 'sell', price: '95000', quantity: '0.2' }), 422, 'INSUFFICIENT_BALANCE')
  })
})

describe('order lifecycle', () => {
  it('cancels an order once: 409 after, 404 for unknown or foreign orders', async () => {
    const o = await order(alice.cookie, { side: 'buy', price: '90000', quantity: '0.01' })
    expectError(await api.post(`/perps/orders/${o.body.id}/cancel`, {}, bob.cookie), 404, 'ORDER_NOT_FOUND')
    const c = await api.post(`/perps/orders/${o.body.id}/cancel`, {}, alice.cookie)
    expect(c.body).toMatchObject({ id: o.body.id, status: 'canceled', cancelReason: 'user' })
    expectError(await api.post(`/perps/orders/${o.body.id}/cancel`, {}, alice.cookie), 409, 'ORDER_NOT_CANCELABLE')
    expectError(await api.post('/perps/orders/01ARZ3NDEKTSV4RRFFQ69G5FAV/cancel', {}, alice.cookie), 404, 'ORDER_NOT_FOUND')
  })

  it('modifies price and quantity; refuses a filled order and an empty change', async () => {
    const o = await order(alice.cookie, { side: 'buy', price: '90000', quantity: '0.02' })
    const m = await api.post(`/perps/orders/${o.body.id}/modify`, { price: '90500', quantity: '0.03' }, alice.cookie)
    expect(m.body).toMatchObject({ id: o.body.id, price: '90500', quantity: '0.03', status: 'open' })
    expectError(await api.post(`/perps/orders/${o.body.id}/modify`, {}, alice.cookie), 400, 'INVALID_REQUEST')
    expectError(await api.post(`/perps/orders/${o.body.id}/modify`, { price: 90500 }, alice.cookie), 400, 'INVALID_PRICE')
    await api.post(`/perps/orders/${o.body.id}/cancel`, {}, alice.cookie)
    expectError(await api.post(`/perps/orders/${o.body.id}/modify`, { price: '90600' }, alice.cookie), 409, 'ORDER_NOT_CANCELABLE')
  })

  it('cancels all, by filter, returning the count and the ids', async () => {
    await api.post('/perps/orders/cancel-all', {}, alice.cookie)
    const a = await order(alice.cookie, { side: 'buy', price: '90000', quantity: '0.01', clientOrderId: 'ca-1' })
    const b = await order(alice.cookie, { side: 'buy', price: '90100', quantity: '0.01' })
    expect((await api.post('/perps/orders/cancel-all', { clientOrderId: 'ca-1' }, alice.cookie)).body).toEqual({ canceled: 1, ids: [a.body.id] })
    expect((await api.post('/perps/orders/cancel-all', { marketId: PERP }, aliceTrade.auth)).body).toEqual({ canceled: 1, ids: [b.body.id] })
    expect((await api.post('/perps/orders/cancel-all', {}, alice.cookie)).body).toEqual({ canceled: 0, ids: [] })
  })

  it('refuses cancel-all for an empty or unknown market with INVALID_MARKET_ID, cancelling nothing', async () => {
    const a = await order(alice.cookie, { side: 'buy', price: '90000', quantity: '0.01' })
    expect(a.status).toBe(200)
    expectError(await api.post('/perps/orders/cancel-all', { marketId: '' }, alice.cookie), 400, 'INVALID_MARKET_ID')
    expectError(await api.post('/perps/orders/cancel-all', { marketId: 'NOPE-PERP' }, alice.cookie), 400, 'INVALID_MARKET_ID')
    const gql = await api.graphql('mutation { cancelAllOrders(marketId: "") { canceled } }', {}, alice.cookie)
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'INVALID_MARKET_ID', status: 400 })
    expect((await api.post(`/perps/orders/${a.body.id}/cancel`, {}, alice.cookie)).body).toMatchObject({ id: a.body.id, status: 'canceled' })
  })

  it('pages order listings newest first with limit and X-Next-Cursor, and filters by margin mode', async () => {
    const first = await api.get('/perps/orders?limit=2', alice.cookie)
    expect(first.body).toHaveLength(2)
    const cursor = first.headers.get('x-next-cursor')!
    expect(cursor).toBe(first.body[1].id)
    const second = await api.get(`/perps/orders?limit=2&cursor=${cursor}`, alice.cookie)
    expect(second.body[0].id < first.body[1].id).toBe(true)
    expect((await api.get('/perps/orders?marginMode=isolated', alice.cookie)).body).toEqual([])
    expectError(await api.get('/perps/orders?limit=201', alice.cookie), 400, 'INVALID_REQUEST')
    const all = (await api.get('/perps/orders?limit=200', aliceRead.auth)).body
    expect(all.map((o: any) => o.id)).toEqual([...all.map((o: any) => o.id)].sort().reverse())
  })
})

describe('quotes', () => {
  it('rests a two-sided quote atomically, and refuses one side crossing with both', async () => {
    await api.post('/perps/orders/cancel-all', {}, bob.cookie)
    const q = await api.post('/perps/quotes', { marketId: PERP, quoteId: 'mm-1', bid: { price: '94000', quantity: '0.01' }, ask: { price: '96500', quantity: '0.01' } }, bob.cookie)
    expect(q.status).toBe(200)
    expect(q.body.marketId).toBe(PERP)
    expect(q.body.results.map((r: any) => [r.side, r.response.status, r.response.quoteId, r.response.postOnly])).toEqual([
      ['buy', 'open', 'mm-1', true],
      ['sell', 'open', 'mm-1', true],
    ])
    await order(alice.cookie, { side: 'sell', price: '95600', quantity: '0.01' })
    const crossing = await api.post('/perps/quotes', { marketId: PERP, bid: { price: '95600', quantity: '0.01' }, ask: { price: '97000', quantity: '0.01' } }, bob.cookie)
    expectError(crossing, 422, 'POST_ONLY_WOULD_CROSS')
    expect((await openOrders(bob)).length).toBe(2)
  })

  it('bulk: cancels the caller\'s orders on the market, then posts the batch, as one request', async () => {
    const res = await api.post('/perps/quotes/bulk', {
      marketId: PERP, quoteId: 'mm-2', cancelAll: true,
      quotes: [{ side: 'buy', price: '94100', quantity: '0.01' }, { side: 'buy', price: '94200', quantity: '0.01' }, { side: 'sell', price: '96400', quantity: '0.01' }],
    }, bob.cookie)
    expect(res.status).toBe(200)
    expect(res.body.canceled).toBe(2)
    expect(res.body.results).toHaveLength(3)
    expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(0)
    expect((await openOrders(bob)).map((o) => o.quoteId)).toEqual(['mm-2', 'mm-2', 'mm-2'])
    expect((await api.post('/perps/orders/cancel-all', { quoteId: 'mm-2' }, bob.cookie)).body.canceled).toBe(3)
  })

  it('bulk with amend: moves the ladder by amending the same orders in place; amend needs cancelAll', async () => {
    const ladder = (bid: string, ask: string) => ({ marketId: PERP, quoteId: 'mm-3', cancelAll: true, amend: true, quotes: [{ side: 'buy', price: bid, quantity: '0.01' }, { side: 'sell', price: ask, quantity: '0.01' }] })
    const first = await api.post('/perps/quotes/bulk', ladder('94100', '96400'), bob.cookie)
    expect(first.status).toBe(200)
    const moved = await api.post('/perps/quotes/bulk', ladder('94300', '96200'), bob.cookie)
    expect(moved.status).toBe(200)
    expect(moved.body.canceled).toBe(0)
    const ids = (r: typeof first) => r.body.results.map((l: { response: { id: string } }) => l.response.id)
    expect(ids(moved)).toEqual(ids(first))
    expect(moved.body.results.map((l: { response: { price: string } }) => l.response.price)).toEqual(['94300', '96200'])
    expect((await openOrders(bob)).map((o) => [o.id, o.price]).sort()).toEqual([[ids(first)[0], '94300'], [ids(first)[1], '96200']].sort())
    expectError(await api.post('/perps/quotes/bulk', { ...ladder('94300', '96200'), cancelAll: false }, bob.cookie), 400, 'INVALID_REQUEST')
    expectError(await api.post('/perps/quotes/bulk', { ...ladder('94300', '96200'), amend: 'yes' }, bob.cookie), 400, 'INVALID_REQUEST')
    expect((await api.post('/perps/orders/cancel-all', { quoteId: 'mm-3' }, bob.cookie)).body.canceled).toBe(2)
  })
})

describe('GraphQL account reads', () => {
  it('serves orders, trades, positions and balance under me, own account only', async () => {
    const res = await api.graphql(
      `{ me { id balance { perpsBalance walletBalance } orders(first: 1) { edges { node { id status } } pageInfo { hasNextPage } }
        trades(first: 1) { edges { node { tradeId role } } } positions { edges { node { marketId side } } } } }`,
      undefined,
      aliceRead.auth,
    )
    expect(res.body.errors).toBeUndefined()
    expect(res.body.data.me).toMatchObject({ id: alice.user.id, balance: { perpsBalance: expect.stringMatching(DECIMAL) }, orders: { pageInfo: { hasNextPage: true } } })
    const refused = await api.graphql(`mutation { placeOrder(input: { marketId: "BTC-PERP", side: BUY, price: "80000", quantity: "0.01" }) { id } }`, undefined, alice.cookie)
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'INVALID_PRICE', status: 400 })
  })
})

describe('dead man\'s switch', () => {
  it('cancels every open order when not refreshed in time, and not once disarmed', async () => {
    await api.post('/perps/orders/cancel-all', {}, alice.cookie)
    await order(alice.cookie, { side: 'buy', price: '90000', quantity: '0.01' })
    const armed = await api.post('/orders/cancel-all-after', { timeoutMs: 1_000 }, alice.cookie)
    expect(armed.body).toEqual({ timeoutMs: 1000, cancelAt: expect.stringMatching(ISO) })
    expectError(await api.post('/orders/cancel-all-after', { timeoutMs: 5 }, alice.cookie), 400, 'INVALID_REQUEST')
    // The scheduler's heartbeat past the deadline (sent here directly rather than waiting for it).
    await ex.services.commands.execute({ type: 'Tick' }, { ts: Date.parse(armed.body.cancelAt) })
    const orders = (await api.get('/perps/orders?limit=1', alice.cookie)).body
    expect(orders[0]).toMatchObject({ status: 'canceled', cancelReason: 'dead_man_switch' })
    expect(await openOrders(alice)).toEqual([])
    expect((await api.post('/orders/cancel-all-after', { timeoutMs: 0 }, alice.cookie)).body).toEqual({ timeoutMs: 0, cancelAt: null })
  })
})
