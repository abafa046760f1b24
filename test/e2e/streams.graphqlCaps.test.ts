// GraphQL over WebSocket is capped as the /ws sockets are: at most WS_MAX_SUBSCRIPTIONS operations per
// socket (the one past it gets graphql-ws's `error` message with INVALID_REQUEST; the socket and its
// other subscriptions go on), at most STREAM_MAX_CONNECTIONS_PER_IP sockets per address (the upgrade
// past it is refused 429 CONNECTION_LIMIT), and a closed socket gives back every subscription it held,
// those still opening included (the node's event-hub listeners return to zero).
import { createClient, type Client } from 'graphql-ws'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import WebSocket from 'ws'
import { startTestExchange, type TestExchange } from '../support/exchange.js'
import { http } from '../support/http.js'
import { pushBtcCurve } from '../support/marks.js'
import { Inbox, WsClient, wsUrl } from '../support/streams.js'

let ex: TestExchange
const MAX_SUBS = 3
const MAX_SOCKETS = 2
const BOOK = 'subscription { orderbook(marketId: "BTC-PERP") { eventSeq payload { kind } } }'

beforeAll(async () => {
  ex = await startTestExchange({
    ROLES: 'api,engine,scheduler',
    MARK_STALE_MS: '3600000',
    WS_MAX_SUBSCRIPTIONS: String(MAX_SUBS),
    STREAM_MAX_CONNECTIONS_PER_IP: String(MAX_SOCKETS),
  })
  expect((await pushBtcCurve(http(ex.url!), '95000')).status).toBe(200)
})
afterAll(() => ex?.close())

const listeners = () => ex.services.streams.hub.listenerCount

function client(): Client {
  return createClient({ url: wsUrl(ex.url!, '/graphql'), webSocketImpl: WebSocket, retryAttempts: 0, lazy: true })
}

function subscribe(c: Client, query = BOOK) {
  const results = new Inbox<any>()
  let fail: (e: unknown) => void = () => {}
  const error = new Promise<any>((resolve) => (fail = resolve))
  const dispose = c.subscribe({ query }, { next: (r) => results.push(r), error: (e) => fail(e), complete: () => {} })
  return { results, error, dispose }
}

/** A graphql-ws socket spoken by hand: connection_init, then whatever the test sends. */
async function rawGraphqlWs(): Promise<WsClient> {
  const ws = await WsClient.open(wsUrl(ex.url!, '/graphql'), {}, 'graphql-transport-ws')
  ws.send({ type: 'connection_init' })
  expect(await ws.json()).toEqual({ type: 'connection_ack' })
  return ws
}

describe('graphql-ws caps', () => {
  it(`refuses the subscription past ${MAX_SUBS} on a socket with INVALID_REQUEST, and keeps the socket and the others`, async () => {
    const c = client()
    try {
      const held = Array.from({ length: MAX_SUBS }, () => subscribe(c))
      for (const s of held) expect((await s.results.next()).data.orderbook.payload.kind).toBe('SNAPSHOT')
      const over = subscribe(c)
      const outcome = await Promise.race([over.error.then((errors) => ({ errors })), over.results.next().then((next) => ({ next }))])
      expect(outcome).toEqual({
        errors: [expect.objectContaining({ message: `At most ${MAX_SUBS} subscriptions per socket`, extensions: expect.objectContaining({ code: 'INVALID_REQUEST', status: 400 }) })],
      })
      // One completed makes room for another on the same socket.
      held[0]!.dispose()
      const again = await vi.waitFor(async () => {
        const s = subscribe(c)
        const first = await Promise.race([s.results.next(), s.error.then((e) => ({ refused: e }))])
        if ('refused' in first) throw new Error('still full')
        return first
      })
      expect(again.data.orderbook.payload.kind).toBe('SNAPSHOT')
    } finally {
      await c.dispose()
    }
    await vi.waitFor(() => expect(listeners()).toBe(0))
  })

  it(`refuses a graphql-ws socket past ${MAX_SOCKETS} per address with 429 CONNECTION_LIMIT`, async () => {
    const held = await Promise.all(Array.from({ length: MAX_SOCKETS }, () => rawGraphqlWs()))
    await expect(WsClient.open(wsUrl(ex.url!, '/graphql'), {}, 'graphql-transport-ws')).rejects.toMatchObject({ status: 429, body: { code: 'CONNECTION_LIMIT' } })
    held[0]!.close()
    await held[0]!.closed.promise
    const next = await vi.waitFor(() => rawGraphqlWs())
    for (const ws of [next, ...held.slice(1)]) ws.close()
    await Promise.all([next, ...held].map((ws) => ws.closed.promise))
  })

  it('gives back every subscription of a closed socket, those still opening included', async () => {
    const sockets = await Promise.all(Array.from({ length: MAX_SOCKETS }, () => rawGraphqlWs()))
    // Every socket fills up; the second is closed right after its subscribes, before they have opened.
    for (const ws of sockets) {
      for (let i = 0; i < MAX_SUBS; i++) ws.send({ id: String(i), type: 'subscribe', payload: { query: BOOK } })
    }
    const first = sockets[0]!
    const opened = new Set<string>()
    while (opened.size < MAX_SUBS) {
      const m = await first.json()
      if (m.type === 'next') opened.add(m.id)
    }
    expect(listeners()).toBeGreaterThanOrEqual(MAX_SUBS)
    sockets[1]!.ws.terminate()
    first.close()
    await Promise.all(sockets.map((ws) => ws.closed.promise))
    await vi.waitFor(() => expect(listeners()).toBe(0))
  })
})
