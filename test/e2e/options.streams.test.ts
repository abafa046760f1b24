// Option activity on the read side, from real orders and trades: the caller's quote state on /ws/quotes
// (myQuotes: a snapshot, then an update per change of a quote order; a credential is needed), the
// options board's bid, ask, last, open interest and volume (null where absent, the same over REST and
// GraphQL), and the private GraphQL streams carrying option fills and orders.
import { createClient, type Client } from 'graphql-ws'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signIn, type SignedIn } from '../support/auth.js'
import { exchangeFor } from '../support/exchange.js'
import { pushBtcCurve } from '../support/marks.js'
import { Inbox, WsClient, wsUrl } from '../support/streams.js'

const h = exchangeFor({ MARK_STALE_MS: '3600000' })
let alice: SignedIn
let bob: SignedIn
let option: string
let other: string

async function fundOptions(u: SignedIn) {
  expect((await h.api.post('/wallet/faucet', { amount: '50000' }, u.cookie)).status).toBe(200)
  expect((await h.api.post('/wallet/transfer', { from: 'wallet', to: 'options', amount: '40000' }, u.cookie)).status).toBe(200)
}

beforeAll(async () => {
  expect((await pushBtcCurve(h.api, '95000')).status).toBe(200)
  alice = await signIn(h.api, h.ex.url!)
  bob = await signIn(h.api, h.ex.url!)
  await fundOptions(alice)
  await fundOptions(bob)
  const board = (await h.api.get('/markets/board')).body
  const expiry = Object.keys(board.expiryForwards).find((e) => board.expiryForwards[e] === '95000')!
  const calls = board.calls.filter((r: any) => r.expiry === expiry).sort((a: any, b: any) => Math.abs(a.strikePrice - 95000) - Math.abs(b.strikePrice - 95000))
  option = calls[0].marketId
  other = calls[1].marketId
})

async function subscribed(subscription: Record<string, unknown>, headers: Record<string, string> = {}): Promise<WsClient> {
  const ws = await WsClient.open(wsUrl(h.ex.url!, '/ws/quotes'), headers)
  ws.send({ method: 'subscribe', subscription })
  expect(await ws.json()).toEqual({ type: 'ack', subscription })
  return ws
}

describe('/ws/quotes myQuotes: the caller\'s quote state', () => {
  it('needs a credential; the public top of book goes on without one', async () => {
    const ws = await WsClient.open(wsUrl(h.ex.url!, '/ws/quotes'))
    ws.send({ method: 'subscribe', subscription: { type: 'myQuotes', symbol: option } })
    expect(await ws.json()).toMatchObject({ type: 'error', code: 'MISSING_CREDENTIAL', subscription: { type: 'myQuotes', symbol: option } })
    ws.send({ method: 'subscribe', subscription: { type: 'quotes', symbol: option } })
    expect(await ws.json()).toEqual({ type: 'ack', subscription: { type: 'quotes', symbol: option } })
    expect(await ws.json()).toMatchObject({ eventType: 'Quote', payload: { marketId: option, bid: null, ask: null } })
    ws.close()
    const forged = await WsClient.open(wsUrl(h.ex.url!, '/ws/quotes'), { authorization: 'Bearer svc_sk_notakey' })
    forged.send({ method: 'subscribe', subscription: { type: 'myQuotes', symbol: option } })
    expect(await forged.json()).toMatchObject({ type: 'error', code: 'INVALID_TOKEN' })
    forged.close()
  })

  it('sends a snapshot of the open quote orders, then each change: placed, filled, canceled', async () => {
    const ws = await subscribed({ type: 'myQuotes', symbol: option }, alice.cookie)
    expect(await ws.json()).toMatchObject({ eventType: 'QuoteSnapshot', payload: { kind: 'snapshot', symbol: option, quotes: [] } })

    const q = await h.api.post('/quotes', { marketId: option, quoteId: 'mm-1', bid: { price: '0.02', quantity: '0.2' }, ask: { price: '0.09', quantity: '0.2' } }, alice.cookie)
    expect(q.status, q.text).toBe(200)
    const [bidId, askId] = q.body.results.map((r: any) => r.response.id)
    const placed = [await ws.json(), await ws.json()]
    expect(placed.map((f) => f.payload)).toEqual([
      { kind: 'update', orderId: bidId, quoteId: 'mm-1', marketId: option, clientOrderId: null, side: 'buy', price: '0.02', quantity: '0.2', filledQuantity: '0', status: 'open', cancelReason: null, updatedAt: expect.any(String) },
      { kind: 'update', orderId: askId, quoteId: 'mm-1', marketId: option, clientOrderId: null, side: 'sell', price: '0.09', quantity: '0.2', filledQuantity: '0', status: 'open', cancelReason: null, updatedAt: expect.any(String) },
    ])
    expect(placed[0]).toMatchObject({ eventType: 'QuoteUpdate', causationId: expect.stringMatching(/^OrderUpdate-/) })
    expect(placed[1].eventSeq).toBeGreaterThan(placed[0].eventSeq)

    // An order without a quoteId, of the same caller and market, is not quote state.
    expect((await h.api.post('/orders', { marketId: option, side: 'buy', price: '0.01', quantity: '0.1' }, alice.cookie)).status).toBe(200)
    // Bob takes part of the ask.
    const take = await h.api.post('/orders', { marketId: option, side: 'buy', price: '0.09', quantity: '0.05' }, bob.cookie)
    expect(take.body).toMatchObject({ status: 'filled' })
    expect((await ws.json()).payload).toMatchObject({ orderId: askId, filledQuantity: '0.05', status: 'open' })

    expect((await h.api.post('/orders/cancel-all', { quoteId: 'mm-1' }, alice.cookie)).body.canceled).toBe(2)
    const ended = [await ws.json(), await ws.json()].map((f) => f.payload)
    expect(ended.map((p) => [p.orderId, p.status, p.cancelReason]).sort()).toEqual([[askId, 'canceled', 'user'], [bidId, 'canceled', 'user']].sort())
    ws.close()
  })

  it('by underlying, snapshots the open quote orders of every market of the family; another user\'s are not seen', async () => {
    await h.api.post('/quotes', { marketId: other, quoteId: 'mm-2', bid: { price: '0.01', quantity: '0.1' } }, alice.cookie)
    await h.api.post('/quotes', { marketId: other, quoteId: 'bob-1', bid: { price: '0.011', quantity: '0.1' } }, bob.cookie)
    const ws = await subscribed({ type: 'myQuotes', symbol: 'BTC' }, alice.cookie)
    const snap = await ws.json()
    expect(snap.payload.quotes).toEqual([expect.objectContaining({ marketId: other, quoteId: 'mm-2', side: 'buy', price: '0.01', status: 'open' })])
    await h.api.post('/orders/cancel-all', { quoteId: 'bob-1' }, bob.cookie)
    await h.api.post('/orders/cancel-all', { quoteId: 'mm-2' }, alice.cookie)
    expect((await ws.json()).payload).toMatchObject({ quoteId: 'mm-2', status: 'canceled' })
    ws.close()
  })
})

describe('the options board from books and trades', () => {
  it('shows the best bid and ask, the last trade, open interest and volume; null where absent; GraphQL alike', async () => {
    expect((await h.api.post('/orders', { marketId: other, side: 'buy', price: '0.015', quantity: '0.3' }, alice.cookie)).status).toBe(200)
    expect((await h.api.post('/orders', { marketId: other, side: 'sell', price: '0.03', quantity: '0.2' }, bob.cookie)).status).toBe(200)
    expect((await h.api.post('/orders', { marketId: other, side: 'sell', type: 'market', quantity: '0.1' }, bob.cookie)).body.status).toBe('filled')
    const board = (await h.api.get('/markets/board')).body
    const row = board.calls.find((r: any) => r.marketId === other)
    // Bob's market sell filled 0.1 of alice's bid, and 0.2 of it rests.
    expect(row).toMatchObject({ bid: '0.015', ask: '0.03', lastPrice: '0.015', openInterest: '0.1', volume24h: '0.1' })
    const idle = board.puts.find((r: any) => r.expiry === row.expiry && r.strikePrice === row.strikePrice)
    expect(idle).toMatchObject({ bid: null, ask: null, lastPrice: null, openInterest: '0', volume24h: '0' })
    const g = (await h.api.graphql(`{ optionsBoard(underlying: "BTC") { calls { marketId bid ask lastPrice openInterest volume24h } } }`)).body.data.optionsBoard
    expect(g.calls.find((r: any) => r.marketId === other)).toEqual({ marketId: other, bid: '0.015', ask: '0.03', lastPrice: '0.015', openInterest: '0.1', volume24h: '0.1' })
  })
})

describe('private GraphQL streams carry option activity', () => {
  let client: Client
  beforeAll(() => {
    client = createClient({ url: wsUrl(h.ex.url!, '/graphql'), webSocketImpl: WebSocket, connectionParams: { authorization: alice.bearer.authorization }, retryAttempts: 0 })
  })
  afterAll(() => client?.dispose())

  function subscribe(query: string): { results: Inbox<any>; dispose: () => void } {
    const results = new Inbox<any>()
    const dispose = client.subscribe({ query }, { next: (r) => results.push(r), error: (e) => results.close(e), complete: () => results.close(new Error('complete')) })
    return { results, dispose }
  }

  it('myFills has the option fill with its premium and index, myOrders the order, myBalances the options bucket', async () => {
    const fills = subscribe('subscription { myFills { eventType payload { marketId side price quantity premium indexPrice fee feeBps } } }')
    const orders = subscribe('subscription { myOrders { eventType payload { marketId side status filledQuantity marginMode } } }')
    const balances = subscribe('subscription { myBalances { eventType payload { optionsBalance } } }')
    const b0 = (await balances.results.next()).data.myBalances
    expect(b0).toMatchObject({ eventType: 'BalanceSnapshot', payload: { optionsBalance: (await h.api.get('/balances/me', alice.cookie)).body.total } })

    expect((await h.api.post('/orders', { marketId: option, side: 'sell', price: '0.025', quantity: '0.1' }, bob.cookie)).status).toBe(200)
    expect((await h.api.post('/orders', { marketId: option, side: 'buy', price: '0.025', quantity: '0.1' }, alice.cookie)).body.status).toBe('filled')
    // 0.025 × 0.1 × 95,000 = 237.5 of premium; 3 bps of 0.1 × 95,000 = 2.85 of fee.
    const fill = (await fills.results.next()).data.myFills
    expect(fill).toEqual({ eventType: 'Fill', payload: { marketId: option, side: 'BUY', price: '0.025', quantity: '0.1', premium: '237.5', indexPrice: '95000', fee: '2.85', feeBps: '3' } })
    const order = (await orders.results.until((r) => r.data.myOrders.payload.status === 'FILLED')).data.myOrders
    expect(order).toMatchObject({ eventType: 'OrderUpdate', payload: { marketId: option, side: 'BUY', filledQuantity: '0.1', marginMode: null } })
    const b1 = await balances.results.until((r) => r.data.myBalances.payload.optionsBalance !== b0.payload.optionsBalance)
    expect(b1.data.myBalances.payload.optionsBalance).toBe((await h.api.get('/balances/me', alice.cookie)).body.total)
    for (const sub of [fills, orders, balances]) sub.dispose()
  })
})
