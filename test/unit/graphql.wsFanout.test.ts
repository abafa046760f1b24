// The graphql-ws fan-out on its own (src/graphql/graphqlWs.ts), with the real schema and graphql-ws
// clients, over a WebSocket server wired as src/streams/streamServer.ts wires it, and a book stream the
// test feeds by hand as the hub does (the same Frame object to every subscriber). A frame's result is
// executed once per document and variables however many subscribers share them (counted by reads of the
// frame's payload), each subscriber gets it under its own id, and a socket past the buffer limit is
// conflated to a fresh snapshot.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createClient, type Client } from 'graphql-ws'
import pino from 'pino'
import { afterEach, describe, expect, it, vi } from 'vitest'
import WebSocket, { WebSocketServer } from 'ws'
import { NO_CREDENTIAL } from '../../src/auth/principal.js'
import { loadConfig } from '../../src/config/env.js'
import { schema } from '../../src/graphql/schema.js'
import { unregisteredApiMetrics } from '../../src/metrics/apiMetrics.js'
import type { Services } from '../../src/services/services.js'
import { makeFrame, type Frame } from '../../src/streams/frame.js'
import { serveGraphqlWs } from '../../src/graphql/graphqlWs.js'
import { adoptTransport } from '../../src/streams/socketFeed.js'
import type { OpenStream, Subscriber } from '../../src/streams/subscriber.js'
import { Inbox } from '../support/streams.js'

const FULL = `subscription($m: String!) { orderbook(marketId: $m) { eventSeq payload { kind sequence changes { side price size } } } }`
const SHORT = `subscription($m: String!) { orderbook(marketId: $m) { eventSeq } }`

interface Book {
  subscribers: Subscriber[]
  resyncs: number
}

let server: Server | null = null
let clients: Client[] = []
/** The clients' WebSockets, in the order they were opened. */
let made: WebSocket[] = []

class Recorded extends WebSocket {
  constructor(...args: ConstructorParameters<typeof WebSocket>) {
    super(...args)
    made.push(this)
  }
}

afterEach(async () => {
  await Promise.all(clients.map((c) => c.dispose()))
  clients = []
  made = []
  await new Promise((r) => (server ? server.close(r) : r(null)))
  server = null
})

/** The graphql-ws endpoint with a book stream per market that records its subscribers. */
async function start(env: Record<string, string> = {}) {
  const books = new Map<string, Book>()
  const logs: string[] = []
  const bookOf = (m: string) => books.get(m) ?? books.set(m, { subscribers: [], resyncs: 0 }).get(m)!
  const services = {
    config: loadConfig(env),
    log: pino({ level: 'info' }, { write: (line: string) => logs.push(line) }),
    identity: { credentials: { resolve: async () => NO_CREDENTIAL } },
    metrics: unregisteredApiMetrics(),
    streams: {
      book: (marketId: string) => async (sub: Subscriber): Promise<OpenStream> => {
        const book = bookOf(marketId)
        book.subscribers.push(sub)
        return { close: () => book.subscribers.splice(book.subscribers.indexOf(sub), 1), resync: () => book.resyncs++ }
      },
    },
  } as unknown as Services
  const wss = new WebSocketServer({ noServer: true })
  serveGraphqlWs(wss, { schema, services, clientIp: () => '127.0.0.1', parseCookie: () => ({}) })
  server = createServer()
  server.on('upgrade', (req, socket, head) =>
    wss.handleUpgrade(req, socket, head, (ws) => {
      adoptTransport(ws, socket)
      wss.emit('connection', ws, req)
    }),
  )
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r))
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`
  const client = (generateID?: () => string) => {
    const c = createClient({ url, webSocketImpl: Recorded, retryAttempts: 0, lazy: true, ...(generateID ? { generateID } : {}) })
    clients.push(c)
    return c
  }
  return { bookOf, client, logs }
}

function subscribe(client: Client, query: string, m: string): Inbox<any> {
  const inbox = new Inbox<any>()
  client.subscribe({ query, variables: { m } }, { next: (r) => inbox.push(r), error: (e) => inbox.close(e), complete: () => inbox.close(new Error('complete')) })
  return inbox
}

/** A book delta whose payload reads are counted: one per execution of a document that selects it. */
function countedDelta(seq: number, reads: { n: number }, changes = [{ side: 'bid', price: '100', size: '1' }]): Frame {
  const f = makeFrame({ eventType: 'OrderbookDelta', eventSeq: seq, engineTs: 0, payload: { kind: 'delta', marketId: 'BTC-PERP', sequence: seq, changes } })
  const payload = f.env.payload
  Object.defineProperty(f.env, 'payload', { get: () => (reads.n++, payload) })
  return f
}

async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setImmediate(r))
}

describe('graphql-ws fan-out', () => {
  it('executes each frame once per document and variables, and sends it to every subscriber under its own id', async () => {
    const { bookOf, client } = await start()
    // Four sockets with the full document, one of them subscribed twice; one with another document.
    const sockets = [client(), client(), client(), client()]
    const full = [...sockets.map((c) => subscribe(c, FULL, 'BTC-PERP')), subscribe(sockets[0]!, FULL, 'BTC-PERP')]
    const short = subscribe(client(), SHORT, 'BTC-PERP')
    const book = bookOf('BTC-PERP')
    await until(() => book.subscribers.length === 6)

    const reads = { n: 0 }
    for (let seq = 1; seq <= 3; seq++) {
      const f = countedDelta(seq, reads)
      for (const sub of book.subscribers) sub.frame(f)
    }
    for (const inbox of full) {
      for (let seq = 1; seq <= 3; seq++) {
        expect((await inbox.next()).data.orderbook).toEqual({ eventSeq: seq, payload: { kind: 'DELTA', sequence: seq, changes: [{ side: 'BID', price: '100', size: '1' }] } })
      }
    }
    for (let seq = 1; seq <= 3; seq++) expect(await short.next()).toEqual({ data: { orderbook: { eventSeq: seq } } })
    // One execution per frame for the five full subscriptions; the short document reads no payload.
    expect(reads.n).toBe(3)
  })

  it('keeps results of different variables apart', async () => {
    const { bookOf, client } = await start()
    const btc = subscribe(client(), FULL, 'BTC-PERP')
    const eth = subscribe(client(), FULL, 'ETH-PERP')
    await until(() => bookOf('BTC-PERP').subscribers.length === 1 && bookOf('ETH-PERP').subscribers.length === 1)
    const reads = { n: 0 }
    bookOf('BTC-PERP').subscribers[0]!.frame(countedDelta(7, reads))
    bookOf('ETH-PERP').subscribers[0]!.frame(countedDelta(9, reads))
    expect((await btc.next()).data.orderbook.eventSeq).toBe(7)
    expect((await eth.next()).data.orderbook.eventSeq).toBe(9)
    expect(reads.n).toBe(2)
  })

  it('sends every message intact, as an ASCII string frame or as UTF-8 bytes: non-ASCII ids and payloads, 7-, 16- and 64-bit lengths', async () => {
    const { bookOf, client } = await start()
    const plain = subscribe(client(), FULL, 'BTC-PERP')
    const accented = subscribe(client(() => 'sub-é'), FULL, 'BTC-PERP')
    const book = bookOf('BTC-PERP')
    await until(() => book.subscribers.length === 2)
    const level = (i: number, size: string) => ({ side: 'bid', price: String(1000 + i), size })
    const deltas = [
      [level(0, '1')],
      [level(0, '1€')],
      Array.from({ length: 20 }, (_, i) => level(i, '2')),
      Array.from({ length: 3_000 }, (_, i) => level(i, '3')),
      Array.from({ length: 3_000 }, (_, i) => level(i, 'ü')),
    ]
    deltas.forEach((changes, i) => {
      const f = countedDelta(i + 1, { n: 0 }, changes)
      for (const sub of book.subscribers) sub.frame(f)
    })
    for (const inbox of [plain, accented]) {
      for (const [i, changes] of deltas.entries()) {
        const expected = changes.map((c) => ({ side: 'BID', price: c.price, size: c.size }))
        expect((await inbox.next()).data.orderbook).toEqual({ eventSeq: i + 1, payload: { kind: 'DELTA', sequence: i + 1, changes: expected } })
      }
    }
  })

  it('conflates a subscriber whose socket is past STREAM_MAX_BUFFER_BYTES, and asks for a fresh snapshot once it drains', async () => {
    const { bookOf, client, logs } = await start({ STREAM_MAX_BUFFER_BYTES: '65536' })
    subscribe(client(), FULL, 'BTC-PERP')
    const book = bookOf('BTC-PERP')
    await until(() => book.subscribers.length === 1)
    // The client stops reading: the server's writes pile up in the kernel, then in the socket.
    const socket = (made[0] as unknown as { _socket: { pause(): void; resume(): void } })._socket
    socket.pause()
    const changes = Array.from({ length: 200 }, (_, i) => ({ side: 'bid', price: String(1000 + i), size: '1' }))
    const conflated = () => logs.some((l) => l.includes('slow stream consumer conflated'))
    for (let seq = 1; seq <= 10_000 && !conflated(); seq++) {
      book.subscribers[0]!.frame(countedDelta(seq, { n: 0 }, changes))
      if (seq % 100 === 0) await new Promise((r) => setImmediate(r))
    }
    expect(conflated()).toBe(true)
    expect(book.resyncs).toBe(0)
    socket.resume()
    await vi.waitFor(() => expect(book.resyncs).toBe(1), { timeout: 10_000 })
  })
})
