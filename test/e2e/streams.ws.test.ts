// The documented WebSocket sockets with a real `ws` client: the protocol (subscribe/ack/unsubscribe,
// ping/pong, errors as JSON, the close after the ping timeout), prices after pushed marks with replay
// from fromSeq, option feeds after real option trades, quotes after real orders, slow consumers (disconnected, or conflated to a
// fresh snapshot for a book), per-IP connection caps and refused paths.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { publishEvents } from '../../src/bus/eventLog.js'
import type { EngineEvent } from '../../src/engine/events.js'
import { fundPerps, type SignedIn, signIn } from '../support/auth.js'
import { startTestExchange, type TestExchange } from '../support/exchange.js'
import { http, type Http } from '../support/http.js'
import { pushBtcCurve } from '../support/marks.js'
import { SseClient, WsClient, wsUrl } from '../support/streams.js'
import { testClock } from '../support/clock.js'

let ex: TestExchange
/** More API nodes of the same deployment: one with a short ping timeout, one with a small buffer and a low cap. */
let pingy: TestExchange
let small: TestExchange
let api: Http
let alice: SignedIn
let bob: SignedIn
let option: string
const PERP = 'BTC-PERP'
const MAX_BUFFER = 65_536

const open = (path: string, on: TestExchange = ex) => WsClient.open(wsUrl(on.url!, path))

async function subscribed(path: string, subscription: Record<string, unknown>, on: TestExchange = ex): Promise<WsClient> {
  const ws = await open(path, on)
  ws.send({ method: 'subscribe', subscription })
  expect(await ws.json()).toEqual({ type: 'ack', subscription })
  return ws
}

/** Events published on the bus as the engine publishes them (XADD + PUBLISH), after the stream's last. */
async function publish(stream: string, count: number, make: (seq: number) => Pick<EngineEvent, 'eventType' | 'payload'>, after?: number) {
  const [last] = await ex.redis.xrevrange(ex.keys.eventLog(stream), '+', '-', 'COUNT', 1)
  const from = after ?? (last ? Number(last[0].slice(2)) : 0)
  const events: EngineEvent[] = Array.from({ length: count }, (_, i) => ({
    stream, eventSeq: from + 1 + i, engineTs: testClock.now(), sourceTs: null, correlationId: null, causationId: null, ...make(from + 1 + i),
  }))
  await publishEvents(ex.redis, ex.keys, events)
  return events
}

beforeAll(async () => {
  ex = await startTestExchange({ ROLES: 'api,engine,scheduler', MARK_STALE_MS: '3600000' })
  api = http(ex.url!)
  expect((await pushBtcCurve(api, '95000')).status).toBe(200)
  const node = { db: ex.db, redisPrefix: ex.keys.prefix }
  pingy = await startTestExchange({ ROLES: 'api', WS_PING_TIMEOUT_MS: '300' }, node)
  small = await startTestExchange({ ROLES: 'api', STREAM_MAX_BUFFER_BYTES: String(MAX_BUFFER), STREAM_MAX_CONNECTIONS_PER_IP: '3' }, node)
  alice = await signIn(api, ex.url!)
  bob = await signIn(api, ex.url!)
  for (const u of [alice, bob]) {
    await fundPerps(api, u)
    expect((await api.post('/wallet/transfer', { from: 'wallet', to: 'options', amount: '20000' }, u.cookie)).status).toBe(200)
  }
  // An option whose forward is a future's mark (pushed fresh above), at the money.
  const board = (await api.get('/markets/board')).body
  const expiry = Object.keys(board.expiryForwards).find((e) => board.expiryForwards[e] === '95000')!
  const distance = (r: any) => Math.abs(Number(r.strikePrice) - 95000)
  option = board.calls.filter((r: any) => r.expiry === expiry).sort((a: any, b: any) => distance(a) - distance(b))[0].marketId
})
afterAll(async () => {
  await pingy?.close()
  await small?.close()
  await ex?.close()
})

describe('the protocol', () => {
  it('answers a text ping with pong', async () => {
    const ws = await open('/ws/perps/prices')
    ws.send('ping')
    expect(await ws.messages.next()).toBe('pong')
    ws.close()
  })

  it.each([
    ['an unknown subscription type', { method: 'subscribe', subscription: { type: 'orderbook', symbol: PERP } }, /Unknown subscription type "orderbook".*prices/],
    ['an unknown method', { method: 'watch', subscription: { type: 'prices', symbol: PERP } }, /method/],
    ['no symbol', { method: 'subscribe', subscription: { type: 'prices' } }, /symbol/],
    ['a negative fromSeq', { method: 'subscribe', subscription: { type: 'prices', symbol: PERP, fromSeq: -1 } }, /fromSeq/],
    ['bad JSON', '{"method":', /JSON/],
  ])('answers %s with a JSON error and keeps the socket open', async (_name, message, text) => {
    const ws = await open('/ws/perps/prices')
    ws.send(message)
    const err = await ws.json()
    expect(err).toMatchObject({ type: 'error', code: 'INVALID_REQUEST', message: expect.stringMatching(text) })
    ws.send('ping')
    expect(await ws.messages.next()).toBe('pong')
    ws.close()
  })

  it('answers an unknown symbol with its code', async () => {
    const ws = await open('/ws/perps/prices')
    ws.send({ method: 'subscribe', subscription: { type: 'prices', symbol: 'DOGE-PERP' } })
    expect(await ws.json()).toMatchObject({ type: 'error', code: 'MARKET_NOT_FOUND', subscription: { type: 'prices', symbol: 'DOGE-PERP' } })
    ws.send({ method: 'subscribe', subscription: { type: 'prices', symbol: 'BTC-USDC-SPOT' } })
    expect(await ws.json()).toMatchObject({ type: 'error', code: 'INVALID_MARKET_ID' })
    ws.close()
  })

  it('closes a socket that sends no ping within WS_PING_TIMEOUT_MS', async () => {
    const ws = await open('/ws/perps/prices', pingy)
    const closed = await ws.closed.promise
    expect(closed.code).toBe(4000)
    expect(closed.reason).toMatch(/no ping within 300 ms/)
  })

  it('refuses a WebSocket on a path that has none, and past the per-IP cap', async () => {
    await expect(open('/ws/nothing')).rejects.toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } })
    const held = await Promise.all([1, 2, 3].map(() => open('/ws/quotes', small)))
    await expect(open('/ws/quotes', small)).rejects.toMatchObject({ status: 429, body: { code: 'CONNECTION_LIMIT' } })
    const sse = await SseClient.open(`${small.url}/markets/board/stream`)
    expect([sse.status, sse.body.code]).toEqual([429, 'CONNECTION_LIMIT'])
    // A GraphQL subscription over SSE is a stream connection too.
    const subscription = `${small.url}/graphql?query=${encodeURIComponent('subscription { prices(symbol: "BTC-PERP") { __typename } }')}`
    const gql = await SseClient.open(subscription)
    expect([gql.status, gql.body.code]).toEqual([429, 'CONNECTION_LIMIT'])
    held[0]!.close()
    await held[0]!.closed.promise
    // The slot is free again once the socket is gone; a GraphQL subscription takes it and holds it.
    const taken = await vi.waitFor(async () => {
      const s = await SseClient.open(subscription)
      expect(s.status).toBe(200)
      return s
    })
    await expect(open('/ws/quotes', small)).rejects.toMatchObject({ status: 429, body: { code: 'CONNECTION_LIMIT' } })
    taken.close()
    await vi.waitFor(async () => {
      const again = await open('/ws/quotes', small)
      again.close()
    })
    for (const ws of held.slice(1)) ws.close()
    await Promise.all(held.map((ws) => ws.closed.promise))
  })

  it('frees the slot of an SSE client that leaves while its stream is still opening', async () => {
    // Aborted 0-3 ms in: most leave during the stream's opening awaits, before it could answer.
    for (let round = 0; round < 5; round++) {
      await Promise.all(Array.from({ length: 8 }, async (_, i) => {
        const ac = new AbortController()
        const req = fetch(`${small.url}/perps/book-stream?marketId=BTC-PERP`, { signal: ac.signal }).then((r) => r.body?.cancel(), () => {})
        setTimeout(() => ac.abort(), i % 4)
        await req
      }))
    }
    // Every slot comes back: the whole cap can be held again.
    const held = await vi.waitFor(async () => {
      const streams = await Promise.all([1, 2, 3].map(() => SseClient.open(`${small.url}/perps/book-stream?marketId=BTC-PERP`)))
      if (streams.some((s) => s.status !== 200)) {
        for (const s of streams) s.close()
        throw new Error(`statuses ${streams.map((s) => s.status).join(', ')}`)
      }
      return streams
    }, { timeout: 5_000 })
    for (const s of held) s.close()
  })
})

describe('/ws/perps/prices', () => {
  it('acks a subscription, sends PerpPrice envelopes after marks move, and nothing after unsubscribe', async () => {
    const ws = await subscribed('/ws/perps/prices', { type: 'prices', symbol: PERP })
    expect((await pushBtcCurve(api, '95500')).status).toBe(200)
    const tick = await ws.json()
    expect(tick).toMatchObject({ eventType: 'PerpPrice', correlationId: expect.any(String), causationId: null, sourceTs: expect.any(Number) })
    expect(tick.payload).toEqual({ kind: 'price', symbol: PERP, price: '95500', tsMs: tick.engineTs })
    expect(tick.eventId).toBe(`PerpPrice-${tick.eventSeq}-${tick.engineTs}`)

    ws.send({ method: 'unsubscribe', subscription: { type: 'prices', symbol: PERP } })
    expect(await ws.json()).toEqual({ type: 'ack', method: 'unsubscribe', subscription: { type: 'prices', symbol: PERP } })
    // Another subscriber sees the next tick; the unsubscribed socket's next message is the pong.
    const witness = await subscribed('/ws/perps/prices', { type: 'prices', symbol: PERP })
    expect((await pushBtcCurve(api, '95600')).status).toBe(200)
    expect((await witness.json()).payload.price).toBe('95600')
    ws.send('ping')
    expect(await ws.messages.next()).toBe('pong')
    ws.close()
    witness.close()
  })

  it('replays what followed fromSeq, then goes on live; and answers ResyncRequired when the buffer no longer has it', async () => {
    const first = await subscribed('/ws/perps/prices', { type: 'prices', symbol: PERP })
    expect((await pushBtcCurve(api, '95700')).status).toBe(200)
    const a = await first.json()
    expect((await pushBtcCurve(api, '95800')).status).toBe(200)
    const b = await first.json()
    expect(b.eventSeq).toBe(a.eventSeq + 1)
    first.close()

    const replay = await subscribed('/ws/perps/prices', { type: 'prices', symbol: PERP, fromSeq: a.eventSeq - 1 })
    expect(await replay.json()).toEqual(a)
    expect(await replay.json()).toEqual(b)
    expect((await pushBtcCurve(api, '95900')).status).toBe(200)
    expect(await replay.json()).toMatchObject({ eventSeq: b.eventSeq + 1, payload: { price: '95900' } })
    replay.close()

    // Trim the buffer to its last frame: a replay from the start cannot be served.
    await ex.redis.xtrim(ex.keys.eventLog(`prices:${PERP}`), 'MAXLEN', 1)
    const late = await subscribed('/ws/perps/prices', { type: 'prices', symbol: PERP, fromSeq: 0 })
    expect(await late.json()).toMatchObject({ eventType: 'ResyncRequired', eventSeq: b.eventSeq + 1, payload: { kind: 'resync', fromSeq: 0, resumesAfterSeq: b.eventSeq + 1 } })
    expect((await pushBtcCurve(api, '96000')).status).toBe(200)
    expect(await late.json()).toMatchObject({ eventType: 'PerpPrice', eventSeq: b.eventSeq + 2 })
    late.close()
  })

  it('disconnects a consumer that cannot keep up, with code 4008', async () => {
    const ws = await subscribed('/ws/perps/prices', { type: 'prices', symbol: 'XAUT-USDC-PERP' }, small)
    ws.pause()
    const filler = 'x'.repeat(16_384)
    await publish('prices:XAUT-USDC-PERP', 1_000, () => ({ eventType: 'PerpPrice', payload: { kind: 'price', symbol: 'XAUT-USDC-PERP', price: '1', tsMs: 0, filler } }))
    await vi.waitFor(() => expect(small.logs.some((l) => l.includes('slow stream consumer disconnected'))).toBe(true), { timeout: 10_000 })
    ws.resume()
    const closed = await ws.closed.promise
    expect(closed.code).toBe(4008)
    expect(closed.reason).toMatch(/^SLOW_CONSUMER/)
  })
})

describe('/ws/feeds', () => {
  it('streams an option book (snapshot, then deltas) and its fills; a linear market is refused', async () => {
    const ws = await subscribed('/ws/feeds', { type: 'orderbook', symbol: option })
    const snap = await ws.json()
    const rest = (await api.get(`/orderbook/${option}`)).body
    expect(snap).toMatchObject({ eventType: 'OrderbookSnapshot', eventSeq: rest.sequence, payload: { kind: 'snapshot', marketId: option, sequence: rest.sequence, bids: [], asks: [] } })
    ws.send({ method: 'subscribe', subscription: { type: 'fills', symbol: option } })
    expect(await ws.json()).toEqual({ type: 'ack', subscription: { type: 'fills', symbol: option } })

    // Real option trades: alice bids, bob sells into the bid.
    const bid = await api.post('/orders', { marketId: option, side: 'buy', price: '0.05', quantity: '0.1' }, alice.cookie)
    expect(bid.status, bid.text).toBe(200)
    expect(await ws.json()).toMatchObject({ eventType: 'OrderbookDelta', eventSeq: rest.sequence + 1, payload: { kind: 'delta', marketId: option, sequence: rest.sequence + 1, changes: [{ side: 'bid', price: '0.05', size: '0.1' }] } })
    const sell = await api.post('/orders', { marketId: option, side: 'sell', type: 'market', quantity: '0.04' }, bob.cookie)
    expect(sell.body, sell.text).toMatchObject({ status: 'filled', filledQuantity: '0.04' })
    // The book's delta and the public trade arrive on their own streams, in either order.
    const frames = [await ws.json(), await ws.json()]
    const trade = frames.find((f) => f.eventType === 'Trade')
    const delta = frames.find((f) => f.eventType === 'OrderbookDelta')
    expect(delta).toMatchObject({ eventSeq: rest.sequence + 2, payload: { changes: [{ side: 'bid', price: '0.05', size: '0.06' }] } })
    const [mine] = (await api.get('/trades/me', bob.cookie)).body
    expect(trade).toMatchObject({ payload: { tradeId: expect.any(String), marketId: option, price: '0.05', quantity: '0.04', takerSide: 'sell' } })
    expect(mine).toMatchObject({ marketId: option, orderId: sell.body.id, side: 'sell', price: '0.05', quantity: '0.04' })
    await api.post(`/orders/${bid.body.id}/cancel`, {}, alice.cookie)
    expect(await ws.json()).toMatchObject({ eventSeq: rest.sequence + 3, payload: { changes: [{ side: 'bid', price: '0.05', size: '0' }] } })

    ws.send({ method: 'subscribe', subscription: { type: 'orderbook', symbol: PERP } })
    expect(await ws.json()).toMatchObject({ type: 'error', code: 'INVALID_MARKET_ID' })
    ws.send({ method: 'subscribe', subscription: { type: 'prices', symbol: PERP } })
    expect(await ws.json()).toMatchObject({ type: 'error', code: 'INVALID_REQUEST', message: expect.stringContaining('orderbook, fills') })
    ws.close()
  })
})

describe('/ws/quotes', () => {
  it('sends the current top of book first, then each change of it after real orders', async () => {
    const ws = await subscribed('/ws/quotes', { type: 'quotes', symbol: PERP })
    const first = await ws.json()
    const book = (await api.get(`/perps/orderbook/${PERP}`)).body
    expect(first).toMatchObject({ eventType: 'Quote', eventSeq: book.sequence, payload: { kind: 'quote', marketId: PERP, sequence: book.sequence, bid: book.bids[0]?.[0] ?? null, ask: book.asks[0]?.[0] ?? null } })

    const placed = await api.post('/perps/orders', { marketId: PERP, side: 'buy', price: '94500', quantity: '0.01' }, alice.cookie)
    expect(placed.status).toBe(200)
    const q = await ws.json()
    expect(q).toMatchObject({ eventType: 'Quote', payload: { bid: '94500', bidSize: '0.01', ask: null, askSize: null }, causationId: `OrderbookDelta-${q.eventSeq}-${q.engineTs}` })
    await api.post('/perps/orders', { marketId: PERP, side: 'buy', price: '94000', quantity: '0.01' }, alice.cookie) // below the top: no quote
    await api.post('/perps/orders', { marketId: PERP, side: 'sell', price: '96500', quantity: '0.02' }, bob.cookie)
    expect((await ws.json()).payload).toMatchObject({ bid: '94500', ask: '96500', askSize: '0.02' })
    await api.post(`/perps/orders/${placed.body.id}/cancel`, {}, alice.cookie)
    expect((await ws.json()).payload).toMatchObject({ bid: '94000', bidSize: '0.01', ask: '96500' })
    ws.close()
  })

  it('by underlying, sends the top of every live market of the family', async () => {
    const ws = await subscribed('/ws/quotes', { type: 'quotes', symbol: 'BTC' })
    const markets = (await api.get('/perps/markets')).body.filter((m: any) => m.base === 'BTC').map((m: any) => m.marketId)
    expect(markets.length).toBeGreaterThan(1)
    const seen = new Set<string>()
    while (!markets.every((id: string) => seen.has(id))) seen.add((await ws.json()).payload.marketId)
    ws.close()
  })
})

describe('book conflation', () => {
  it('skips a slow SSE book consumer ahead to a fresh snapshot instead of buffering without bound', async () => {
    const market = 'WTIOIL-USDC-SPOT'
    const sse = await SseClient.open(`${small.url}/perps/book-stream?marketId=${market}`)
    const snap = await sse.nextJson()
    expect(snap.event.event).toBe('OrderbookSnapshot')
    sse.pause()
    const changes = Array.from({ length: 200 }, (_, i) => ({ side: 'bid', price: String(60 + i / 100), size: '1' }))
    await publish(`book:${market}`, 1_000, (seq) => ({ eventType: 'OrderbookDelta', payload: { kind: 'delta', marketId: market, sequence: seq, changes } }), snap.data.eventSeq)
    await vi.waitFor(() => expect(small.logs.some((l) => l.includes('slow stream consumer conflated'))).toBe(true), { timeout: 10_000 })
    sse.resume()
    let n = 0
    for (;;) {
      const { event, data } = await sse.nextJson()
      if (event.event === 'OrderbookSnapshot') break
      expect(data.eventSeq).toBe(snap.data.eventSeq + ++n)
    }
    expect(n).toBeLessThan(1_000)
    sse.close()
  })
})
