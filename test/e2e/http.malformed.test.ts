// Requests that never reach a route, sent over a raw socket: each gets the spec's error body and a
// correlation id, none takes the process down or logs an error, and the server answers afterwards.
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestExchange, type TestExchange } from '../support/exchange.js'
import { http } from '../support/http.js'

let ex: TestExchange
let port: number

beforeAll(async () => {
  ex = await startTestExchange({ ROLES: 'api' })
  port = Number(new URL(ex.url!).port)
})
afterAll(() => ex?.close())

interface RawResponse {
  status: number
  headers: Record<string, string>
  body: unknown
}

/** Writes `request` as is and reads until the server closes the connection (or has sent a whole
 * response with a Content-Length). */
function raw(request: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let data = ''
    const done = () => {
      socket.destroy()
      const [head = '', ...rest] = data.split('\r\n\r\n')
      const [statusLine = '', ...lines] = head.split('\r\n')
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
      const text = rest.join('\r\n\r\n')
      let body: unknown = text
      try {
        body = JSON.parse(text)
      } catch {
        // not JSON
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body })
    }
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1')
      const end = data.indexOf('\r\n\r\n')
      const length = /\r\ncontent-length: *(\d+)/i.exec(data.slice(0, end))
      if (end >= 0 && length && data.length - end - 4 >= Number(length[1])) done()
    })
    socket.on('end', done)
    socket.on('error', reject)
    socket.write(request)
  })
}

const typed = (res: RawResponse, status: number) => {
  expect(res.status).toBe(status)
  expect(res.headers['content-type']).toMatch(/application\/json/)
  expect(res.headers['x-correlation-id']).toMatch(/^[0-9A-Z]{26}$/)
  expect(res.body).toMatchObject({ error: 'RequestError', code: 'INVALID_REQUEST', message: expect.any(String) })
}

const errorLogs = () => ex.logs.filter((line) => (JSON.parse(line) as { level: number }).level >= 50)

describe('requests that never reach a route', () => {
  it('refuse a WebSocket upgrade whose target is no URL with 400, and keep serving', async () => {
    for (const target of ['//', '///', '//[', '//:99999']) {
      const res = await raw(
        `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
      )
      typed(res, 400)
    }
    expect((await http(ex.url!).get('/health')).status).toBe(200)
  })

  it('serve a request that offers an upgrade other than WebSocket as plain HTTP, or refuse it when it has a body', async () => {
    const h2c = await raw('GET /perps/markets HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n')
    expect(h2c.status).toBe(200)
    expect(h2c.headers['x-correlation-id']).toMatch(/^[0-9A-Z]{26}$/)
    expect(h2c.headers['content-type']).toMatch(/application\/json/)
    expect(h2c.body).toEqual((await http(ex.url!).get('/perps/markets')).body)
    const missing = await raw('GET /nothing HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n')
    expect([missing.status, (missing.body as { code: string }).code]).toEqual([404, 'NOT_FOUND'])
    typed(await raw('POST /graphql HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: foo\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}'), 400)
    expect((await http(ex.url!).get('/health')).status).toBe(200)
  })

  it('answer a path that is not valid percent-encoding with 400, and an over-long segment with 414', async () => {
    for (const path of ['/perps/orderbook/%E0%A4%A', '/catalog/instruments/%FF', '/orderbook/%zz', '/%E0%A4%A']) {
      typed(await raw(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`), 400)
    }
    typed(await raw(`GET /perps/orderbook/${'a'.repeat(101)} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`), 414)
    // Up to the router's limit, an id is looked up as usual.
    expect((await http(ex.url!).get(`/perps/orderbook/${'a'.repeat(100)}`)).body).toMatchObject({ code: 'MARKET_NOT_FOUND' })
  })

  it('answer HTTP that the parser refuses with 400, and headers too large with 431', async () => {
    for (const request of [
      'FOO /perps/markets HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /perps/markets HTTP/9.9\r\nHost: x\r\n\r\n',
      'POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
      'POST /graphql HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    ]) {
      typed(await raw(request), 400)
    }
    typed(await raw(`GET /perps/ohlc?symbol=${'A'.repeat(50_000)} HTTP/1.1\r\nHost: x\r\n\r\n`), 431)
    expect((await http(ex.url!).get('/health')).status).toBe(200)
  })

  it('log no error for a body Node refuses after the route was chosen', async () => {
    const before = errorLogs().length
    for (const path of ['/perps/markets', '/graphql']) {
      typed(await raw(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip\r\n\r\n{}`), 400)
    }
    expect((await http(ex.url!).get('/health')).status).toBe(200)
    expect(errorLogs().slice(before)).toEqual([])
  })
})
