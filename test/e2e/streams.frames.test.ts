// Malformed WebSocket frames from an anonymous client, on every WebSocket path: a frame over the
// path's size limit is closed 1009, a text frame that is not UTF-8 1007, and that connection alone goes
// (ws emits these as 'error' on the socket; unhandled, one frame ended the process with every role in
// it). Real sockets; the server runs in this process, so a crash would fail the run. The HTTP server
// itself logs what it reports once listening.
import { connect } from 'node:net'
import { createClient } from 'graphql-ws'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import WebSocket from 'ws'
import { startTestExchange, type TestExchange } from '../support/exchange.js'
import { http, type Http } from '../support/http.js'
import { WsClient, wsUrl } from '../support/streams.js'

let ex: TestExchange
let api: Http
const BODY_LIMIT = 4_096

beforeAll(async () => {
  ex = await startTestExchange({ ROLES: 'api,engine,scheduler', BODY_LIMIT_BYTES: String(BODY_LIMIT) })
  api = http(ex.url!)
})
afterAll(() => ex?.close())

/** The /ws sockets take frames of 64 KiB; graphql-ws at /graphql takes what HTTP takes (BODY_LIMIT_BYTES). */
const PATHS: Array<[path: string, protocol: string | undefined, limit: number]> = [
  ['/ws/perps/prices', undefined, 64 * 1024],
  ['/ws/feeds', undefined, 64 * 1024],
  ['/ws/quotes', undefined, 64 * 1024],
  ['/graphql', 'graphql-transport-ws', BODY_LIMIT],
]

/** Still served: a /ws subscription is acked, graphql-ws answers a query. */
async function stillServed(path: string): Promise<void> {
  if (path === '/graphql') {
    const client = createClient({ url: wsUrl(ex.url!, '/graphql'), webSocketImpl: WebSocket, retryAttempts: 0, lazy: true })
    try {
      const result = await new Promise((resolve, reject) => {
        client.subscribe({ query: '{ market(id: "BTC-PERP") { id } }' }, { next: resolve, error: reject, complete: () => {} })
      })
      expect(result).toEqual({ data: { market: { id: 'BTC-PERP' } } })
    } finally {
      await client.dispose()
    }
    return
  }
  const ws = await WsClient.open(wsUrl(ex.url!, path))
  ws.send('ping')
  expect(await ws.messages.next()).toBe('pong')
  ws.close()
}

describe.each(PATHS)('%s', (path, protocol, limit) => {
  it('closes a frame over the size limit with 1009, and serves the next client', async () => {
    const errors = vi.spyOn(console, 'error')
    const ws = await WsClient.open(wsUrl(ex.url!, path), {}, protocol)
    ws.ws.send('x'.repeat(limit + 1))
    expect((await ws.closed.promise).code).toBe(1009)
    await stillServed(path)
    expect((await api.get('/health')).status).toBe(200)
    expect(errors).not.toHaveBeenCalled()
    errors.mockRestore()
  })

  it('closes a text frame that is not UTF-8 with 1007, and serves the next client', async () => {
    const errors = vi.spyOn(console, 'error')
    const ws = await WsClient.open(wsUrl(ex.url!, path), {}, protocol)
    // ws does not check what it sends: these bytes go out as a text frame.
    ws.ws.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false })
    expect((await ws.closed.promise).code).toBe(1007)
    await stillServed(path)
    expect((await api.get('/health')).status).toBe(200)
    expect(errors).not.toHaveBeenCalled()
    errors.mockRestore()
  })
})

describe('an upgrade the client resets at once', () => {
  it('is let go without a trace, on a path we refuse and on one we serve', async () => {
    const port = Number(new URL(ex.url!).port)
    // Node takes its own 'error' listener off a socket it hands over for an upgrade: answering a reset
    // client (404, 429, the handshake) wrote into ECONNRESET with nobody listening.
    for (let i = 0; i < 100; i++) {
      const path = i % 2 === 0 ? `/ws/nothing/${i}` : '/ws/quotes'
      await new Promise<void>((resolve, reject) => {
        const s = connect(port, '127.0.0.1', () => {
          s.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`)
          setImmediate(() => {
            s.resetAndDestroy()
            resolve()
          })
        })
        s.on('error', reject)
      })
    }
    await stillServed('/ws/quotes')
    expect((await api.get('/health')).status).toBe(200)
  })
})

describe('the HTTP server', () => {
  it('logs an error it reports while listening (EMFILE on accept) and keeps serving', async () => {
    const err = Object.assign(new Error('accept EMFILE'), { code: 'EMFILE', syscall: 'accept' })
    ex.http!.server.emit('error', err)
    expect(ex.logs.some((l) => l.includes('HTTP server error') && l.includes('EMFILE'))).toBe(true)
    expect((await api.get('/health')).status).toBe(200)
  })
})
