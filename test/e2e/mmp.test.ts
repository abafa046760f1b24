// Market-maker protection over real HTTP, between real signed-in users: a taker sweeping a maker's
// quotes trips it; the maker's remaining protected orders end in the batch of the tripping fill (the
// taker's answer comes after that batch commits, and the cancels carry the fill's engine time); new
// protected orders are refused MMP_FROZEN until the freeze ends on the engine's clock or a reset;
// unprotected orders stand; MmpTriggered reaches /ws/quotes (myQuotes) and GraphQL.
import { describe, expect, it } from 'vitest'
import { expectError, signIn, type SignedIn } from '../support/auth.js'
import { testClock } from '../support/clock.js'
import { exchangeFor } from '../support/exchange.js'
import { pushBtcCurve } from '../support/marks.js'
import { WsClient, wsUrl } from '../support/streams.js'

let maker: SignedIn
let taker: SignedIn
let call: string
let put: string
let other: string

const h = exchangeFor({ MARK_STALE_MS: '3600000' }, async (api) => {
  expect((await pushBtcCurve(api, '95000')).status).toBe(200)
  maker = await signIn(api, h.ex.url!)
  taker = await signIn(api, h.ex.url!)
  for (const u of [maker, taker]) {
    expect((await api.post('/wallet/faucet', { amount: '50000' }, u.cookie)).status).toBe(200)
    expect((await api.post('/wallet/transfer', { from: 'wallet', to: 'options', amount: '40000' }, u.cookie)).status).toBe(200)
  }
  const board = (await api.get('/markets/board')).body
  const expiry = Object.keys(board.expiryForwards).find((e) => board.expiryForwards[e] === '95000')!
  const near = (rows: any[]) => rows.filter((r) => r.expiry === expiry).sort((a, b) => Math.abs(a.strikePrice - 95000) - Math.abs(b.strikePrice - 95000))
  call = near(board.calls)[0].marketId
  other = near(board.calls)[1].marketId
  put = near(board.puts)[0].marketId
})

const myOrders = async (u: SignedIn) => (await h.api.get('/orders/me?limit=200', u.cookie)).body as any[]
const ladder = (u: SignedIn, marketId: string, quoteId: string, asks: string[], bids: string[] = []) =>
  h.api.post('/quotes/bulk', {
    marketId, quoteId, cancelAll: true, amend: true,
    quotes: [...asks.map((price) => ({ side: 'sell', price, quantity: '0.3' })), ...bids.map((price) => ({ side: 'buy', price, quantity: '0.3' }))],
  }, u.cookie)

describe('market-maker protection', () => {
  it('is configured, read and refused out of range over REST', async () => {
    expect((await h.api.get('/mmp/config', maker.cookie)).body).toEqual({
      underlying: 'BTC', enabled: false, intervalMs: 0, frozenMs: 0, quantityLimit: '0', deltaLimit: '0', frozen: false, trippedAt: null, frozenUntil: null,
    })
    expectError(await h.api.get('/mmp/config'), 401, 'MISSING_CREDENTIAL')
    expectError(await h.api.post('/mmp/config', { intervalMs: 1000, frozenMs: 5000, quantityLimit: 0.5 }, maker.cookie), 400, 'INVALID_REQUEST')
    expectError(await h.api.post('/mmp/config', { intervalMs: 1000, frozenMs: 5000, quantityLimit: '0.0000001' }, maker.cookie), 400, 'INVALID_REQUEST')
    expectError(await h.api.post('/mmp/config', { intervalMs: 1000, frozenMs: 5000 }, maker.cookie), 400, 'INVALID_REQUEST')
    expectError(await h.api.post('/mmp/config', { intervalMs: 1000, frozenMs: 5000, quantityLimit: '1', limit: '1' }, maker.cookie), 400, 'INVALID_REQUEST')
    expectError(await h.api.post('/mmp/config', { underlying: 'XAUT', intervalMs: 1000, frozenMs: 5000, quantityLimit: '1' }, maker.cookie), 400, 'INVALID_REQUEST')
    const set = await h.api.post('/mmp/config', { intervalMs: 10_000, frozenMs: 5_000, quantityLimit: '0.5' }, maker.cookie)
    expect(set.status, set.text).toBe(200)
    expect(set.body).toMatchObject({ underlying: 'BTC', enabled: true, intervalMs: 10_000, frozenMs: 5_000, quantityLimit: '0.5', deltaLimit: '0', frozen: false })
    expect((await h.api.get('/mmp/config?underlying=BTC', maker.cookie)).body).toEqual(set.body)
  })

  it('trips when a taker sweeps the quotes: the rest go in the same batch, new quotes are refused until the freeze ends, unprotected orders stand', async () => {
    const ws = await WsClient.open(wsUrl(h.ex.url!, '/ws/quotes'), maker.cookie)
    ws.send({ method: 'subscribe', subscription: { type: 'myQuotes', symbol: 'BTC' } })
    expect(await ws.json()).toMatchObject({ type: 'ack' })
    expect(await ws.json()).toMatchObject({ eventType: 'QuoteSnapshot' })

    expect((await ladder(maker, call, 'mm-call', ['0.0900', '0.0910', '0.0920'], ['0.0100'])).status).toBe(200)
    expect((await h.api.post('/quotes', { marketId: put, quoteId: 'mm-put', bid: { price: '0.0100', quantity: '0.3' }, ask: { price: '0.0900', quantity: '0.3' } }, maker.cookie)).status).toBe(200)
    const protectedOrder = await h.api.post('/orders', { marketId: other, side: 'sell', price: '0.0900', quantity: '0.3', mmp: true }, maker.cookie)
    expect(protectedOrder.status, protectedOrder.text).toBe(200)
    const plain = await h.api.post('/orders', { marketId: call, side: 'buy', price: '0.0050', quantity: '0.3' }, maker.cookie)
    expect(plain.status).toBe(200)

    // 0.3 at 0.09 (0.3 ≤ 0.5), then 0.3 at 0.091: 0.6 > 0.5 trips; the 0.092 ask is gone before the taker reaches it.
    const take = await h.api.post('/orders', { marketId: call, side: 'buy', price: '0.0920', quantity: '0.9', timeInForce: 'ioc' }, taker.cookie)
    expect(take.body).toMatchObject({ status: 'canceled', filledQuantity: '0.6' })

    // The taker's answer came after its batch committed: the maker's protected orders are already ended.
    const orders = await myOrders(maker)
    const fills = (await h.api.get('/trades/me', taker.cookie)).body as any[]
    const tripAt = fills.find((f) => f.orderId === take.body.id && f.price === '0.091').createdAt
    const ended = orders.filter((o) => o.cancelReason === 'mmp')
    expect(ended.map((o) => `${o.marketId} ${o.side} ${o.price}`).sort()).toEqual(
      [`${call} sell 0.092`, `${call} buy 0.01`, `${put} buy 0.01`, `${put} sell 0.09`, `${other} sell 0.09`].sort(),
    )
    for (const o of ended) expect([o.status, o.updatedAt]).toEqual(['canceled', tripAt])
    expect(orders.find((o) => o.id === plain.body.id)).toMatchObject({ status: 'open' })
    const book = (await h.api.get(`/orderbook/${call}`)).body
    expect([book.asks, book.bids]).toEqual([[], [['0.005', '0.3']]])

    // The maker hears of it on /ws/quotes, among the updates of its quotes.
    let trip: any
    for (let i = 0; i < 40 && !trip; i++) {
      const f = await ws.json()
      if (f.eventType === 'MmpTriggered') trip = f
    }
    expect(trip.payload).toMatchObject({ underlying: 'BTC', reason: 'quantity', quantity: '0.6', trippedAt: tripAt, frozenUntil: new Date(Date.parse(tripAt) + 5_000).toISOString() })
    expect(trip.payload.canceledIds).toHaveLength(5)
    ws.close()

    // Frozen: quotes and mmp orders are refused, an ordinary order is taken.
    expectError(await ladder(maker, call, 'mm-call', ['0.0900']), 422, 'MMP_FROZEN')
    expectError(await h.api.post('/quotes', { marketId: put, ask: { price: '0.0900', quantity: '0.3' } }, maker.cookie), 422, 'MMP_FROZEN')
    expectError(await h.api.post('/orders', { marketId: put, side: 'sell', price: '0.0900', quantity: '0.3', mmp: true }, maker.cookie), 422, 'MMP_FROZEN')
    expect((await h.api.post('/orders', { marketId: put, side: 'sell', price: '0.0900', quantity: '0.3' }, maker.cookie)).status).toBe(200)
    expect((await h.api.get('/mmp/config', maker.cookie)).body).toMatchObject({ frozen: true, trippedAt: tripAt })

    // The freeze ends on the engine's clock: move it (and this node's) past frozenUntil.
    testClock.set(Date.parse(tripAt) + 5_000)
    await h.ex.services.commands.execute({ type: 'Tick' }, { ts: testClock.now() })
    expect((await h.api.get('/mmp/config', maker.cookie)).body).toMatchObject({ frozen: false })
    const again = await h.api.post('/quotes', { marketId: call, quoteId: 'mm-call', ask: { price: '0.0900', quantity: '0.3' } }, maker.cookie)
    expect(again.status, again.text).toBe(200)
    expect((await myOrders(maker)).find((o) => o.id === plain.body.id)).toMatchObject({ status: 'open' })
  })

  it('freezes until a reset with frozenMs 0, over GraphQL too', async () => {
    const SET = `mutation($input: SetMmpConfigInput!) { setMmpConfig(input: $input) { enabled frozenMs quantityLimit deltaLimit } }`
    const set = await h.api.graphql(SET, { input: { intervalMs: 60_000, frozenMs: 0, quantityLimit: '0.2', deltaLimit: '5' } }, maker.cookie)
    expect(set.body.data.setMmpConfig).toEqual({ enabled: true, frozenMs: 0, quantityLimit: '0.2', deltaLimit: '5' })
    expect((await ladder(maker, other, 'mm-other', ['0.0900', '0.0910'])).status).toBe(200)
    expect((await h.api.post('/orders', { marketId: other, side: 'buy', price: '0.0910', quantity: '0.6', timeInForce: 'ioc' }, taker.cookie)).body).toMatchObject({ filledQuantity: '0.3' })

    const read = await h.api.graphql(`{ mmpConfig(underlying: "BTC") { frozen frozenUntil trippedAt } }`, {}, maker.cookie)
    expect(read.body.data.mmpConfig).toMatchObject({ frozen: true, frozenUntil: null, trippedAt: expect.any(String) })
    testClock.advance(600_000)
    await h.ex.services.commands.execute({ type: 'Tick' }, { ts: testClock.now() })
    const refused = await h.api.graphql(`mutation { placeQuote(input: {marketId: "${other}", kind: OPTION, ask: {price: "0.0900", quantity: "0.3"}}) { marketId } }`, {}, maker.cookie)
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'MMP_FROZEN', status: 422 })

    const reset = await h.api.graphql(`mutation { resetMmp(underlying: "BTC") { frozen trippedAt enabled } }`, {}, maker.cookie)
    expect(reset.body.data.resetMmp).toEqual({ frozen: false, trippedAt: null, enabled: true })
    const again = await ladder(maker, other, 'mm-other', ['0.0900'])
    expect(again.status, again.text).toBe(200)
    // REST reset answers the same shape.
    expect((await h.api.post('/mmp/reset', {}, maker.cookie)).body).toMatchObject({ underlying: 'BTC', frozen: false })
  })
})
