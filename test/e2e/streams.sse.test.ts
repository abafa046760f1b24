// The documented SSE streams over real HTTP with an EventSource-style client: the linear book stream
// (snapshot, contiguous deltas after real orders, a client book equal to GET /perps/orderbook,
// Last-Event-ID, keep-alive), the options board and option ticks, the balance stream with its credential
// rules, key revocation and expiry, session logout and expiry, and a second API node delivering the same
// events.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { createKey, del, fundPerps, type SignedIn, signIn } from '../support/auth.js'
import { startTestExchange, type TestExchange } from '../support/exchange.js'
import { http, type Http } from '../support/http.js'
import { pushBtcCurve } from '../support/marks.js'
import { applyBook, levels, SseClient } from '../support/streams.js'
import { testClock } from '../support/clock.js'

let ex: TestExchange
let api: Http
let alice: SignedIn
let bob: SignedIn
const PERP = 'BTC-PERP'
const ENVELOPE_KEYS = ['causationId', 'correlationId', 'engineTs', 'eventId', 'eventSeq', 'eventType', 'payload', 'sourceTs']

const order = (u: SignedIn, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  api.post('/perps/orders', { marketId: PERP, ...body }, { ...u.cookie, ...headers })

const stream = (path: string, headers?: Record<string, string>) => SseClient.open(`${ex.url}${path}`, headers)

/** Reads deltas, each the next sequence, until one's payload matches. */
async function nextDelta(sse: SseClient, afterSeq: number, match: (payload: any) => boolean) {
  for (let seq = afterSeq + 1; ; seq++) {
    const d = await sse.nextJson()
    expect(d.data.eventSeq).toBe(seq)
    if (match(d.data.payload)) return d
  }
}

beforeAll(async () => {
  ex = await startTestExchange({ ROLES: 'api,engine,scheduler', MARK_STALE_MS: '3600000', SSE_KEEPALIVE_MS: '100', OPTIONS_FEED_INTERVAL_MS: '50' })
  api = http(ex.url!)
  expect((await pushBtcCurve(api, '95000')).status).toBe(200)
  alice = await signIn(api, ex.url!)
  bob = await signIn(api, ex.url!)
  await fundPerps(api, alice)
  await fundPerps(api, bob)
})
afterAll(() => ex?.close())

describe('/perps/book-stream', () => {
  it('sends a snapshot, then one delta per change with sequence +1, and the applied book is GET /perps/orderbook', async () => {
    const sse = await stream(`/perps/book-stream?marketId=${PERP}`)
    expect(sse.status).toBe(200)
    expect(sse.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const first = await sse.nextJson()
    expect(first.event.event).toBe('OrderbookSnapshot')
    expect(first.event.id).toBe(String(first.data.eventSeq))
    expect(Object.keys(first.data).sort()).toEqual(ENVELOPE_KEYS)
    expect(first.data.payload).toEqual({ kind: 'snapshot', marketId: PERP, sequence: first.data.eventSeq, bids: expect.any(Array), asks: expect.any(Array) })
    let book = applyBook(null, first.data.payload)
    let seq: number = first.data.eventSeq

    const placed = await order(alice, { side: 'buy', price: '94000', quantity: '0.01' }, { 'x-correlation-id': 'stream-corr-0001' })
    expect(placed.status).toBe(200)
    await order(alice, { side: 'buy', price: '94100', quantity: '0.02' })
    await order(bob, { side: 'sell', price: '96000', quantity: '0.01' })
    await order(bob, { side: 'sell', price: '95900', quantity: '0.03' })
    await api.post(`/perps/orders/${placed.body.id}/cancel`, {}, alice.cookie)
    // Crosses alice's best bid: fills 0.015 of it, nothing rests.
    await order(bob, { side: 'sell', price: '94100', quantity: '0.015' })

    const rest = (await api.get(`/perps/orderbook/${PERP}`)).body
    const deltas: any[] = []
    while (seq < rest.sequence) {
      const { event, data } = await sse.nextJson()
      expect(event.event).toBe('OrderbookDelta')
      expect(data.eventSeq).toBe(seq + 1)
      expect(event.id).toBe(String(data.eventSeq))
      expect(data.eventId).toBe(`OrderbookDelta-${data.eventSeq}-${data.engineTs}`)
      expect(data.payload).toMatchObject({ kind: 'delta', marketId: PERP, sequence: data.eventSeq })
      seq = data.eventSeq
      deltas.push(data)
      book = applyBook(book, data.payload)
    }
    expect(deltas.length).toBe(6)
    // The first order's delta carries that request's correlation id.
    expect(deltas[0]).toMatchObject({ correlationId: 'stream-corr-0001', sourceTs: null, payload: { changes: [{ side: 'bid', price: '94000', size: '0.01' }] } })
    // The cancel removes its level with size "0".
    expect(deltas[4].payload.changes).toEqual([{ side: 'bid', price: '94000', size: '0' }])
    expect({ sequence: seq, ...levels(book) }).toEqual({ sequence: rest.sequence, bids: rest.bids, asks: rest.asks })
    sse.close()
  })

  it('starts a reconnect with Last-Event-ID from a fresh snapshot, and keeps the connection alive with comments', async () => {
    const before = (await api.get(`/perps/orderbook/${PERP}`)).body
    await order(alice, { side: 'buy', price: '93000', quantity: '0.01' })
    const sse = await stream(`/perps/book-stream?marketId=${PERP}`, { 'last-event-id': String(before.sequence) })
    const { event, data } = await sse.nextJson()
    const now = (await api.get(`/perps/orderbook/${PERP}`)).body
    expect(event.event).toBe('OrderbookSnapshot')
    expect(data.payload).toEqual({ kind: 'snapshot', marketId: PERP, sequence: now.sequence, bids: now.bids, asks: now.asks })
    expect(await sse.comments.until((c) => c === 'keep-alive')).toBe('keep-alive')
    sse.close()
  })

  it.each([
    ['/perps/book-stream?marketId=NOPE-PERP', 404, 'MARKET_NOT_FOUND'],
    ['/perps/book-stream', 400, 'INVALID_REQUEST'],
    ['/markets/board/stream?underlying=DOGE', 404, 'PRODUCT_NOT_FOUND'],
    ['/stream/options/ticks?underlying=DOGE', 404, 'PRODUCT_NOT_FOUND'],
  ])('%s answers %i %s before any event', async (path, status, code) => {
    const sse = await stream(path)
    expect(sse.status).toBe(status)
    expect(sse.body).toMatchObject({ code, error: expect.any(String), message: expect.any(String) })
  })
  it('serves linear books only: an option market is 404 MARKET_NOT_FOUND, as on GET /perps/orderbook', async () => {
    const optionId = (await api.get('/markets/board')).body.calls[0].marketId
    const sse = await stream(`/perps/book-stream?marketId=${encodeURIComponent(optionId)}`)
    expect(sse.status).toBe(404)
    expect(sse.body).toMatchObject({ code: 'MARKET_NOT_FOUND', error: expect.any(String), message: expect.any(String) })
  })
})

describe('options board and option ticks', () => {
  it('board: a BoardSnapshot shaped like GET /markets/board, then a BoardDelta when the marks move', async () => {
    const sse = await stream('/markets/board/stream')
    const snap = await sse.nextJson()
    expect(snap.event.event).toBe('BoardSnapshot')
    const rest = (await api.get('/markets/board')).body
    const { kind, seq, ...board } = snap.data.payload
    expect([kind, seq]).toEqual(['snapshot', snap.data.eventSeq])
    // Theoretical values move with time to expiry; everything else is GET /markets/board's.
    const timeless = (rows: any[]) => rows.map(({ markPrice, markIv, delta, ...r }) => ({ ...r, theo: [typeof markPrice, typeof markIv, typeof delta] }))
    expect({ ...board, expiryForwards: Object.keys(board.expiryForwards), calls: timeless(board.calls), puts: timeless(board.puts), timestamp: rest.timestamp })
      .toEqual({ ...rest, expiryForwards: Object.keys(rest.expiryForwards), calls: timeless(rest.calls), puts: timeless(rest.puts) })
    expect(board.calls.length).toBeGreaterThan(0)

    expect((await pushBtcCurve(api, '97000')).status).toBe(200)
    // The engine's heartbeat may move the perpetual's mark first: deltas follow one another until ours.
    const delta = await nextDelta(sse, snap.data.eventSeq, (p) => p.spotPrice === '97000')
    expect(delta.event.event).toBe('BoardDelta')
    expect(delta.data.payload).toMatchObject({ kind: 'delta', seq: delta.data.eventSeq, underlying: 'BTC', spotPrice: '97000', removed: [] })
    expect(delta.data.causationId).toMatch(/^MarkPrice-\d+-\d+$/)
    const changed = [...delta.data.payload.calls, ...delta.data.payload.puts]
    // Only rows that changed, and a 2,000 move of spot changes most marks.
    const before = new Map<string, any>([...board.calls, ...board.puts].map((r: any) => [r.marketId, r]))
    for (const row of changed) expect(row).not.toEqual(before.get(row.marketId))
    expect(changed.filter((r) => r.markPrice !== before.get(r.marketId).markPrice).length).toBeGreaterThan(before.size / 2)
    sse.close()
  })

  it('ticks: an OptionSnapshot, then an OptionDelta with bid, ask, mark, iv and delta of the changed options', async () => {
    const sse = await stream('/stream/options/ticks?underlying=BTC')
    const snap = await sse.nextJson()
    expect(snap.event.event).toBe('OptionSnapshot')
    expect(snap.data.payload.kind).toBe('snapshot')
    const tick = snap.data.payload.ticks[0]
    expect(Object.keys(tick).sort()).toEqual(['ask', 'bid', 'delta', 'instrumentId', 'iv', 'mark'])
    for (const k of ['mark', 'iv', 'delta']) expect(typeof tick[k]).toBe('string')
    // No option order rests in this exchange: an empty side is null, not "0".
    expect({ bid: tick.bid, ask: tick.ask }).toEqual({ bid: null, ask: null })

    expect((await pushBtcCurve(api, '96000')).status).toBe(200)
    const was = new Map<string, any>(snap.data.payload.ticks.map((t: any) => [t.instrumentId, t]))
    const moved = (p: any) => p.ticks.filter((t: any) => t.mark !== was.get(t.instrumentId).mark).length > was.size / 2
    const delta = await nextDelta(sse, snap.data.eventSeq, moved)
    expect(delta.event.event).toBe('OptionDelta')
    expect(delta.data.payload).toMatchObject({ kind: 'delta', seq: delta.data.eventSeq, removed: [] })
    sse.close()
  })
})

describe('/portfolio/balances/stream', () => {
  it('needs a credential: 401 MISSING_CREDENTIAL without, INVALID_TOKEN for a forged key', async () => {
    const none = await stream('/portfolio/balances/stream')
    expect([none.status, none.body.code]).toEqual([401, 'MISSING_CREDENTIAL'])
    const forged = await stream('/portfolio/balances/stream', { authorization: 'Bearer svc_sk_forgedforgedforgedforgedforgedforgedforge' })
    expect([forged.status, forged.body.code]).toEqual([401, 'INVALID_TOKEN'])
  })

  it('sends the wallet balance first, a snapshot after every change, and ends with KEY_REVOKED when its key is revoked', async () => {
    const key = await createKey(api, alice.cookie, { scope: 'read' })
    const sse = await stream('/portfolio/balances/stream', key.auth)
    expect(sse.status).toBe(200)
    const first = await sse.nextJson()
    expect(first.event.event).toBe('BalanceSnapshot')
    expect(first.data.payload).toEqual({ kind: 'snapshot', ...(await api.get('/wallet/balance', alice.cookie)).body })

    const moved = await api.post('/wallet/transfer', { from: 'wallet', to: 'spot', amount: '250' }, { ...alice.cookie, 'x-correlation-id': 'balance-corr-01' })
    expect(moved.status).toBe(200)
    const update = await sse.nextJson()
    expect(update.event.event).toBe('BalanceUpdate')
    expect(update.data).toMatchObject({ correlationId: 'balance-corr-01', eventSeq: first.data.eventSeq + 1 })
    expect(update.data.payload).toEqual({ kind: 'snapshot', ...(await api.get('/wallet/balance', alice.cookie)).body })

    expect((await del(api, `/perps/me/api-keys/${key.id}`, alice.cookie)).status).toBe(200)
    const closed = await sse.nextJson()
    expect(closed.event.event).toBe('close')
    expect(closed.data).toMatchObject({ error: 'AuthError', code: 'KEY_REVOKED' })
    await sse.ended.promise
    // And the revoked key cannot open it again.
    const again = await stream('/portfolio/balances/stream', key.auth)
    expect([again.status, again.body.code]).toEqual([401, 'KEY_REVOKED'])
  })

  it('ends with INVALID_TOKEN on every node when its session logs out; another session of the same user stays open', async () => {
    // Two sessions of one user: the same wallet signed in twice.
    const ending = await signIn(api, ex.url!, alice.wallet)
    const staying = await signIn(api, ex.url!, alice.wallet)
    expect(staying.user.id).toBe(ending.user.id)
    const node2 = await startTestExchange({ ROLES: 'api', MARK_STALE_MS: '3600000' }, { db: ex.db, redisPrefix: ex.keys.prefix })
    try {
      const byCookie = await stream('/portfolio/balances/stream', ending.cookie)
      const byJwtOnNode2 = await SseClient.open(`${node2.url}/portfolio/balances/stream`, ending.bearer)
      const other = await stream('/portfolio/balances/stream', staying.cookie)
      for (const s of [byCookie, byJwtOnNode2, other]) expect((await s.nextJson()).event.event).toBe('BalanceSnapshot')

      expect((await api.post('/auth/logout', {}, ending.cookie)).status).toBe(200)
      for (const s of [byCookie, byJwtOnNode2]) {
        const closed = await s.nextJson()
        expect(closed.event.event).toBe('close')
        expect(closed.data).toMatchObject({ error: 'AuthError', code: 'INVALID_TOKEN' })
        await s.ended.promise
      }
      // The other session's stream goes on: the next change reaches it, and nothing came before it.
      expect((await api.post('/wallet/transfer', { from: 'wallet', to: 'spot', amount: '1' }, staying.cookie)).status).toBe(200)
      const update = await other.nextJson()
      expect(update.event.event).toBe('BalanceUpdate')
      expect(update.data.payload).toEqual({ kind: 'snapshot', ...(await api.get('/wallet/balance', staying.cookie)).body })
      other.close()
      // And the ended session cannot open it again.
      const again = await stream('/portfolio/balances/stream', ending.bearer)
      expect([again.status, again.body.code]).toEqual([401, 'INVALID_TOKEN'])
    } finally {
      await node2.close()
    }
  })

  it('leaves nothing registered or running when it cannot tell whether its session has ended', async () => {
    const sessions = ex.services.identity.sessions
    const registered = () => [...((ex.services.streams as any).byCredential as Map<string, Set<unknown>>).values()].reduce((n, set) => n + set.size, 0)
    const before = registered()
    const isLive = sessions.isLive
    sessions.isLive = () => Promise.reject(new Error('Redis is unreachable'))
    try {
      const sse = await stream('/portfolio/balances/stream', alice.cookie)
      expect([sse.status, sse.body.code]).toEqual([500, 'INTERNAL_ERROR'])
    } finally {
      sessions.isLive = isLive
    }
    expect(registered()).toBe(before)
  })

  it('ends with INVALID_TOKEN when its session expires', async () => {
    // A session issued so that its JWT expires 1-2 s from now (exp is whole seconds). The clock stands
    // still while the stream opens, then jumps past the expiry (the stream's timer finds it expired).
    testClock.freeze()
    onTestFinished(() => testClock.resume())
    const sessions = ex.services.identity.sessions
    const issued = await sessions.issue({ userId: alice.user.id, address: alice.user.address }, testClock.now() - sessions.ttlMs + 2_000)
    const sse = await stream('/portfolio/balances/stream', { authorization: `Bearer ${issued.token}` })
    expect((await sse.nextJson()).event.event).toBe('BalanceSnapshot')
    testClock.advance(2_000)
    const closed = await sse.nextJson()
    expect(closed.event.event).toBe('close')
    expect(closed.data).toMatchObject({ error: 'AuthError', code: 'INVALID_TOKEN', message: 'Session has expired; sign in again' })
    expect(testClock.now()).toBeGreaterThanOrEqual(Math.floor(issued.expiresAt.getTime() / 1000) * 1000)
    await sse.ended.promise
  })

  it('ends with INVALID_TOKEN when its API key expires', async () => {
    // A key's expiry is whole days: this one's row is moved to 2 s from now before its first use loads it.
    const key = await createKey(api, alice.cookie, { scope: 'read', expiresInDays: 1 })
    testClock.freeze()
    onTestFinished(() => testClock.resume())
    const expiresAt = new Date(testClock.now() + 2_000)
    await ex.pool.query('UPDATE api_keys SET "expiresAt" = $2 WHERE id = $1', [key.id, expiresAt])
    const sse = await stream('/portfolio/balances/stream', key.auth)
    expect((await sse.nextJson()).event.event).toBe('BalanceSnapshot')
    testClock.advance(2_000)
    const closed = await sse.nextJson()
    expect(closed.event.event).toBe('close')
    expect(closed.data).toMatchObject({ error: 'AuthError', code: 'INVALID_TOKEN', message: 'The API key of this stream has expired' })
    expect(testClock.now()).toBeGreaterThanOrEqual(expiresAt.getTime())
    await sse.ended.promise
    // And the expired key cannot open it again.
    const again = await stream('/portfolio/balances/stream', key.auth)
    expect([again.status, again.body.code]).toEqual([401, 'INVALID_TOKEN'])
  })
})

describe('two API nodes', () => {
  it('deliver the same events to their subscribers', async () => {
    const node2 = await startTestExchange({ ROLES: 'api', MARK_STALE_MS: '3600000' }, { db: ex.db, redisPrefix: ex.keys.prefix })
    try {
      const a = await stream(`/perps/book-stream?marketId=${PERP}`)
      const b = await SseClient.open(`${node2.url}/perps/book-stream?marketId=${PERP}`)
      const [snapA, snapB] = [await a.nextJson(), await b.nextJson()]
      expect(snapA.data.payload).toEqual(snapB.data.payload)
      await order(bob, { side: 'sell', price: '99000', quantity: '0.01' })
      const [da, db] = [await a.events.next(), await b.events.next()]
      expect(da.event).toBe('OrderbookDelta')
      expect(db).toEqual(da)
      a.close()
      b.close()
    } finally {
      await node2.close()
    }
  })
})
