// GraphQL subscriptions with real clients: graphql-ws (authenticated at connection_init, or by the
// upgrade's cookie from an allowed origin) for the public streams and the caller's private ones, with
// scope auth on subscribe, replay from fromSeq, key revocation and expiry, and session sign-out; and yoga's
// SSE transport with graphql-sse.
import { createClient as createSseClient } from 'graphql-sse'
import { createClient, type Client } from 'graphql-ws'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import WebSocket from 'ws'
import { createKey, del, fundPerps, type SignedIn, signIn } from '../support/auth.js'
import { startTestExchange, type TestExchange } from '../support/exchange.js'
import { DECIMAL, http, type Http } from '../support/http.js'
import { pushBtcCurve } from '../support/marks.js'
import { applyBook, Inbox, levels, wsUrl } from '../support/streams.js'
import { testClock } from '../support/clock.js'

let ex: TestExchange
let api: Http
let alice: SignedIn
let bob: SignedIn
const PERP = 'BTC-PERP'
const clients: Client[] = []

const order = (u: SignedIn, body: Record<string, unknown>) => api.post('/perps/orders', { marketId: PERP, ...body }, u.cookie)

function wsClient(connectionParams?: Record<string, unknown>, webSocketImpl: unknown = WebSocket): Client {
  const c = createClient({ url: wsUrl(ex.url!, '/graphql'), webSocketImpl, connectionParams, retryAttempts: 0, lazy: true })
  clients.push(c)
  return c
}

interface Sub {
  results: Inbox<any>
  /** Errors the server ended the subscription with. */
  error: Promise<any>
  dispose(): void
}

function subscribe(client: Client, query: string, variables?: Record<string, unknown>): Sub {
  const results = new Inbox<any>()
  let fail: (e: unknown) => void = () => {}
  const error = new Promise<any>((resolve) => (fail = resolve))
  const dispose = client.subscribe({ query, variables }, {
    next: (r) => results.push(r),
    error: (e) => {
      fail(e)
      results.close(e)
    },
    complete: () => results.close(new Error('complete')),
  })
  return { results, error, dispose }
}

const ENVELOPE = 'eventId eventType eventSeq engineTs sourceTs correlationId causationId'
const BOOK = `subscription($m: String!) { orderbook(marketId: $m) { ${ENVELOPE} payload { kind marketId sequence bids { price size } asks { price size } changes { side price size } } } }`
const ORDERS = `subscription($f: SafeInt) { myOrders(fromSeq: $f) { eventType eventSeq correlationId payload { id userId status filledQuantity price } } }`
const FILLS = `subscription { myFills { eventType eventSeq payload { tradeId orderId side price quantity role createdAt } } }`
const BALANCES = `subscription { myBalances { eventType eventSeq payload { walletBalance perpsBalance spotBalance } } }`

beforeAll(async () => {
  ex = await startTestExchange({ ROLES: 'api,engine,scheduler', MARK_STALE_MS: '3600000', OPTIONS_FEED_INTERVAL_MS: '50' })
  api = http(ex.url!)
  expect((await pushBtcCurve(api, '95000')).status).toBe(200)
  alice = await signIn(api, ex.url!)
  bob = await signIn(api, ex.url!)
  for (const u of [alice, bob]) await fundPerps(api, u)
})
afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()))
  await ex?.close()
})

describe('graphql-ws, public streams', () => {
  it('orderbook: a snapshot first, then deltas with sequence +1; the applied book is the orderbook query', async () => {
    const [s1, s2] = [subscribe(wsClient(), BOOK, { m: PERP }), subscribe(wsClient(), BOOK, { m: PERP })]
    const snap = (await s1.results.next()).data.orderbook
    expect(snap).toMatchObject({ eventType: 'OrderbookSnapshot', sourceTs: null, payload: { kind: 'SNAPSHOT', marketId: PERP, sequence: snap.eventSeq, changes: null } })
    let book = applyBook(null, { kind: 'snapshot', bids: snap.payload.bids.map((l: any) => [l.price, l.size]), asks: snap.payload.asks.map((l: any) => [l.price, l.size]) })
    expect((await s2.results.next()).data.orderbook).toEqual(snap)

    await order(alice, { side: 'buy', price: '94000', quantity: '0.01' })
    await order(bob, { side: 'sell', price: '96000', quantity: '0.02' })
    await order(bob, { side: 'sell', price: '94000', quantity: '0.004' })
    const q = (await api.graphql(`{ orderbook(marketId: "${PERP}") { sequence bids { price size } asks { price size } } }`)).body.data.orderbook
    let seq = snap.eventSeq
    while (seq < q.sequence) {
      const d = (await s1.results.next()).data.orderbook
      expect(d).toMatchObject({ eventType: 'OrderbookDelta', eventSeq: seq + 1, payload: { kind: 'DELTA', sequence: seq + 1, bids: null, asks: null } })
      expect((await s2.results.next()).data.orderbook).toEqual(d)
      book = applyBook(book, { kind: 'delta', changes: d.payload.changes.map((c: any) => ({ ...c, side: c.side.toLowerCase() })) })
      seq = d.eventSeq
    }
    const pairs = (ls: any[]) => ls.map((l) => [l.price, l.size])
    expect(levels(book)).toEqual({ bids: pairs(q.bids), asks: pairs(q.asks) })
    s1.dispose()
    s2.dispose()
  })

  it('prices and trades: PerpPrice after marks move, Trade after a match', async () => {
    const client = wsClient()
    // graphql-ws starts subscriptions concurrently, and these event streams send nothing until an event:
    // from the streams' current sequences, an event published before a subscription is live is replayed.
    const after = async (stream: string) => (await ex.services.streams.hub.lastSeq(stream)) ?? 0
    const prices = subscribe(client, `subscription($f: SafeInt) { prices(symbol: "${PERP}", fromSeq: $f) { eventType eventSeq sourceTs payload { kind symbol price tsMs } } }`, {
      f: await after(`prices:${PERP}`),
    })
    const trades = subscribe(client, `subscription($f: SafeInt) { trades(marketId: "${PERP}", fromSeq: $f) { eventType eventSeq payload { marketId price quantity takerSide } } }`, {
      f: await after(`trades:${PERP}`),
    })
    expect((await pushBtcCurve(api, '95100')).status).toBe(200)
    const tick = (await prices.results.next()).data.prices
    expect(tick).toMatchObject({ eventType: 'PerpPrice', sourceTs: expect.any(Number), payload: { kind: 'PRICE', symbol: PERP, price: expect.stringMatching(DECIMAL) } })
    // The perpetual's mark is the curve index (95,100) plus the book's premium, bounded.
    expect(Math.abs(Number(tick.payload.price) - 95100)).toBeLessThan(500)
    await order(alice, { side: 'buy', price: '95000', quantity: '0.01' })
    await order(bob, { side: 'sell', price: '95000', quantity: '0.01' })
    expect((await trades.results.next()).data.trades).toMatchObject({ eventType: 'Trade', payload: { marketId: PERP, price: '95000', quantity: '0.01', takerSide: 'SELL' } })
    for (const s of [prices, trades]) s.dispose()
  })

  it('optionsBoard and optionTicks: a snapshot, then a delta when the marks move', async () => {
    const client = wsClient()
    const board = subscribe(client, `subscription { optionsBoard(underlying: "BTC") { eventType eventSeq payload { kind seq removed board { underlying spotPrice calls { marketId markPrice } } } } }`)
    const ticks = subscribe(client, `subscription { optionTicks(underlying: "BTC") { eventType eventSeq payload { kind seq ticks { instrumentId bid ask mark iv delta } } } }`)
    const b0 = (await board.results.next()).data.optionsBoard
    const t0 = (await ticks.results.next()).data.optionTicks
    expect(b0).toMatchObject({ eventType: 'BoardSnapshot', payload: { kind: 'SNAPSHOT', seq: b0.eventSeq, board: { underlying: 'BTC', spotPrice: '95100' } } })
    expect(t0).toMatchObject({ eventType: 'OptionSnapshot', payload: { kind: 'SNAPSHOT', seq: t0.eventSeq } })
    expect(t0.payload.ticks.length).toBe(2 * b0.payload.board.calls.length)
    expect((await pushBtcCurve(api, '96100')).status).toBe(200)
    // The engine's heartbeat may move the perpetual's mark first: take deltas until the pushed spot shows.
    const b1 = await board.results.until((r) => r.data.optionsBoard.payload.board.spotPrice === '96100')
    expect(b1.data.optionsBoard).toMatchObject({ eventType: 'BoardDelta', payload: { kind: 'DELTA', seq: b1.data.optionsBoard.eventSeq } })
    expect(b1.data.optionsBoard.eventSeq).toBeGreaterThan(b0.eventSeq)
    expect((await ticks.results.next()).data.optionTicks).toMatchObject({ eventType: 'OptionDelta', eventSeq: t0.eventSeq + 1, payload: { kind: 'DELTA' } })
    board.dispose()
    ticks.dispose()
  })

  it('answers an unknown market with MARKET_NOT_FOUND', async () => {
    const s = subscribe(wsClient(), BOOK, { m: 'NOPE-PERP' })
    expect((await s.results.next()).errors[0].extensions).toMatchObject({ code: 'MARKET_NOT_FOUND', status: 404 })
  })

  it('refuses a document too deep or too long to parse with INVALID_REQUEST, and keeps the socket', async () => {
    const client = wsClient()
    for (const [query, why] of [
      [`subscription { orderbook(marketId: ${'['.repeat(3000)}"x"${']'.repeat(3000)}) { eventSeq } }`, /nested more than 100 levels/],
      [`subscription {${' _'.repeat(6000)} }`, /more than 5000 tokens/],
    ] as const) {
      const refused = await subscribe(client, query, {}).error
      expect(refused[0].extensions).toMatchObject({ code: 'INVALID_REQUEST', status: 400 })
      expect(refused[0].message).toMatch(why)
    }
    const book = subscribe(client, BOOK, { m: PERP })
    expect((await book.results.next()).data.orderbook).toMatchObject({ eventType: 'OrderbookSnapshot' })
    book.dispose()
  })
})

describe('graphql-ws, private streams', () => {
  it('refuses them without a credential, with a forged one, and with a revoked key, each with its code', async () => {
    const none = subscribe(wsClient(), ORDERS)
    expect((await none.results.next()).errors[0].extensions).toMatchObject({ code: 'MISSING_CREDENTIAL', status: 401 })
    const forged = subscribe(wsClient({ authorization: 'Bearer svc_sk_forgedforgedforgedforgedforgedforgedforge' }), ORDERS)
    expect((await forged.results.next()).errors[0].extensions).toMatchObject({ code: 'INVALID_TOKEN' })
    const key = await createKey(api, alice.cookie, { scope: 'read' })
    expect((await del(api, `/perps/me/api-keys/${key.id}`, alice.cookie)).status).toBe(200)
    const revoked = subscribe(wsClient({ authorization: key.auth.authorization }), ORDERS)
    expect((await revoked.results.next()).errors[0].extensions).toMatchObject({ code: 'KEY_REVOKED' })
  })

  it('myOrders, myFills and myBalances: the caller\'s own events with a read key; replay from fromSeq', async () => {
    for (const u of [alice, bob]) expect((await api.post('/perps/orders/cancel-all', {}, u.cookie)).status).toBe(200)
    const key = await createKey(api, alice.cookie, { scope: 'read' })
    const client = wsClient({ authorization: key.auth.authorization })
    const orders = subscribe(client, ORDERS)
    const fills = subscribe(client, FILLS)
    const balances = subscribe(client, BALANCES)
    const b0 = (await balances.results.next()).data.myBalances
    const rest = (await api.get('/wallet/balance', alice.cookie)).body
    expect(b0).toMatchObject({ eventType: 'BalanceSnapshot', payload: { walletBalance: rest.walletBalance, perpsBalance: rest.perpsBalance, spotBalance: rest.spotBalance } })

    const placed = await order(alice, { side: 'buy', price: '96000', quantity: '0.01' })
    const o1 = (await orders.results.next()).data.myOrders
    expect(o1).toMatchObject({ eventType: 'OrderUpdate', correlationId: placed.headers.get('x-correlation-id'), payload: { id: placed.body.id, userId: alice.user.id, status: 'OPEN', price: '96000' } })
    await order(bob, { side: 'sell', price: '96000', quantity: '0.01' })
    expect((await orders.results.next()).data.myOrders).toMatchObject({ eventSeq: o1.eventSeq + 1, payload: { id: placed.body.id, status: 'FILLED', filledQuantity: '0.01' } })
    const fill = (await fills.results.next()).data.myFills
    expect(fill).toMatchObject({ eventType: 'Fill', payload: { orderId: placed.body.id, side: 'BUY', price: '96000', quantity: '0.01', role: 'MAKER' } })
    expect(fill.payload.tradeId).toBe((await api.get('/perps/trades', alice.cookie)).body[0].tradeId)
    const b1 = await balances.results.until((r) => r.data.myBalances.payload.perpsBalance !== b0.payload.perpsBalance)
    expect(b1.data.myBalances.payload.perpsBalance).toBe((await api.get('/wallet/balance', alice.cookie)).body.perpsBalance)

    // A reconnect from the first event's predecessor replays both, then goes on live.
    const replay = subscribe(wsClient({ authorization: key.auth.authorization }), ORDERS, { f: o1.eventSeq - 1 })
    expect((await replay.results.next()).data.myOrders).toEqual(o1)
    expect((await replay.results.next()).data.myOrders).toMatchObject({ eventSeq: o1.eventSeq + 1 })
    for (const s of [orders, fills, balances, replay]) s.dispose()
  })

  it('ends open private subscriptions with KEY_REVOKED when their key is revoked', async () => {
    const key = await createKey(api, alice.cookie, { scope: 'read' })
    const client = wsClient({ authorization: key.auth.authorization })
    const balances = subscribe(client, BALANCES)
    await balances.results.next()
    expect((await del(api, `/perps/me/api-keys/${key.id}`, alice.cookie)).status).toBe(200)
    const errors = await balances.error
    expect(errors[0].extensions).toMatchObject({ code: 'KEY_REVOKED', status: 401 })
  })

  it('ends open private subscriptions with INVALID_TOKEN when their key expires', async () => {
    // A key's expiry is whole days: this one's row is moved to 2 s from now before its first use loads it.
    // The clock stands still while the streams open, so they open before the expiry however slow the
    // machine; then it jumps past it, and the stream's timer, due in 2 s, finds the key expired.
    const key = await createKey(api, alice.cookie, { scope: 'read', expiresInDays: 1 })
    testClock.freeze()
    onTestFinished(() => testClock.resume())
    const expiresAt = new Date(testClock.now() + 2_000)
    await ex.pool.query('UPDATE api_keys SET "expiresAt" = $2 WHERE id = $1', [key.id, expiresAt])
    const client = wsClient({ authorization: key.auth.authorization })
    // A public subscription keeps this connection (authenticated at connection_init) open after the expiry.
    const book = subscribe(client, BOOK, { m: PERP })
    const balances = subscribe(client, BALANCES)
    const sse = createSseClient({ url: `${ex.url}/graphql`, singleConnection: false, headers: key.auth, retryAttempts: 0 })
    const overSse = sse.iterate({ query: BALANCES })
    expect((await balances.results.next()).data.myBalances.eventType).toBe('BalanceSnapshot')
    expect((await overSse.next()).value).toMatchObject({ data: { myBalances: { eventType: 'BalanceSnapshot' } } })
    expect((await book.results.next()).data.orderbook.eventType).toBe('OrderbookSnapshot')
    testClock.advance(2_000)

    const errors = await balances.error
    expect(testClock.now()).toBeGreaterThanOrEqual(expiresAt.getTime())
    expect(errors[0]).toMatchObject({ message: 'The API key of this stream has expired', extensions: { code: 'INVALID_TOKEN', status: 401 } })
    const sseEnd = await overSse.next()
    expect(sseEnd.value.errors[0].extensions).toMatchObject({ code: 'INVALID_TOKEN', status: 401 })
    expect((await overSse.next()).done).toBe(true)
    // A new private subscription on the still open connection of the expired key is refused too.
    const late = subscribe(client, ORDERS)
    expect((await late.error)[0].extensions).toMatchObject({ code: 'INVALID_TOKEN', status: 401 })
    book.dispose()
    sse.dispose()
  })

  it('ends the private subscriptions of a session with INVALID_TOKEN when it signs out; another session of the user keeps its own', async () => {
    // Two sessions of one user: the same wallet signed in twice.
    const ending = await signIn(api, ex.url!, alice.wallet)
    const staying = await signIn(api, ex.url!, alice.wallet)
    class Browser extends WebSocket {
      constructor(url: string, protocols: string[]) {
        super(url, protocols, { headers: { ...ending.cookie, origin: 'http://localhost:5173' } })
      }
    }
    const byJwt = wsClient({ authorization: ending.bearer.authorization })
    // A public subscription keeps this connection (authenticated at connection_init) open after sign-out.
    const book = subscribe(byJwt, BOOK, { m: PERP })
    const balances = subscribe(byJwt, BALANCES)
    const byCookie = subscribe(wsClient(undefined, Browser), BALANCES)
    const sse = createSseClient({ url: `${ex.url}/graphql`, singleConnection: false, headers: ending.bearer, retryAttempts: 0 })
    const overSse = sse.iterate({ query: BALANCES })
    const other = subscribe(wsClient({ authorization: staying.bearer.authorization }), BALANCES)
    for (const s of [balances, byCookie, other]) expect((await s.results.next()).data.myBalances.eventType).toBe('BalanceSnapshot')
    expect((await overSse.next()).value).toMatchObject({ data: { myBalances: { eventType: 'BalanceSnapshot' } } })
    expect((await book.results.next()).data.orderbook.eventType).toBe('OrderbookSnapshot')

    const out = await api.graphql('mutation { signOut }', undefined, ending.bearer)
    expect(out.body).toEqual({ data: { signOut: true } })
    for (const s of [balances, byCookie]) expect((await s.error)[0].extensions).toMatchObject({ code: 'INVALID_TOKEN', status: 401 })
    const sseEnd = await overSse.next()
    expect(sseEnd.value.errors[0].extensions).toMatchObject({ code: 'INVALID_TOKEN', status: 401 })
    expect((await overSse.next()).done).toBe(true)
    // A new private subscription on the still open connection of the ended session is refused too.
    const late = subscribe(byJwt, ORDERS)
    expect((await late.error)[0].extensions).toMatchObject({ code: 'INVALID_TOKEN', status: 401 })

    // The other session's subscription goes on: the next change reaches it, and nothing came before it.
    expect((await api.post('/wallet/transfer', { from: 'wallet', to: 'spot', amount: '1' }, staying.cookie)).status).toBe(200)
    const update = (await other.results.next()).data.myBalances
    expect(update.eventType).toBe('BalanceUpdate')
    expect(update.payload.spotBalance).toBe((await api.get('/wallet/balance', staying.cookie)).body.spotBalance)
    for (const s of [book, other]) s.dispose()
    sse.dispose()
  })

  it('takes the session cookie of the upgrade request, but not from a foreign origin', async () => {
    class Browser extends WebSocket {
      constructor(url: string, protocols: string[]) {
        super(url, protocols, { headers: { ...alice.cookie, origin: 'http://localhost:5173' } })
      }
    }
    class Foreign extends WebSocket {
      constructor(url: string, protocols: string[]) {
        super(url, protocols, { headers: { ...alice.cookie, origin: 'https://evil.example' } })
      }
    }
    const own = subscribe(wsClient(undefined, Browser), BALANCES)
    expect((await own.results.next()).data.myBalances.eventType).toBe('BalanceSnapshot')
    const foreign = subscribe(wsClient(undefined, Foreign), BALANCES)
    expect((await foreign.results.next()).errors[0].extensions.code).toBe('MISSING_CREDENTIAL')
    own.dispose()
  })
})

describe('yoga SSE (graphql-sse, distinct connections)', () => {
  it('serves the same subscriptions, authenticated by the Authorization header', async () => {
    const key = await createKey(api, bob.cookie, { scope: 'read' })
    const client = createSseClient({ url: `${ex.url}/graphql`, singleConnection: false, headers: key.auth, retryAttempts: 0 })
    const it = client.iterate({ query: BALANCES })
    const first = await it.next()
    expect(first.value).toMatchObject({ data: { myBalances: { eventType: 'BalanceSnapshot' } } })
    const books = client.iterate({ query: BOOK, variables: { m: PERP } })
    expect((await books.next()).value).toMatchObject({ data: { orderbook: { eventType: 'OrderbookSnapshot' } } })
    await order(bob, { side: 'sell', price: '99000', quantity: '0.01' })
    expect((await books.next()).value).toMatchObject({ data: { orderbook: { eventType: 'OrderbookDelta', payload: { changes: [{ side: 'ASK', price: '99000', size: '0.01' }] } } } })
    await it.return?.()
    await books.return?.()
    client.dispose()
  })
})
