// The slow-consumer rule on an SSE response (src/streams/sse.ts over src/streams/slowConsumer.ts), with a
// real socket whose reader stops reading: once the response holds more unsent bytes than the limit, a
// snapshot stream skips frames and, when the reader catches up, gets one fresh snapshot; an event stream
// ends with an `event: close` frame saying SLOW_CONSUMER. Frames come from a book the test feeds by hand.
import { connect, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import Fastify, { type FastifyInstance } from 'fastify'
import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/env.js'
import { unregisteredApiMetrics } from '../../src/metrics/apiMetrics.js'
import type { Services } from '../../src/services/services.js'
import { ConnectionCaps } from '../../src/streams/connectionCaps.js'
import { makeFrame } from '../../src/streams/frame.js'
import { registerSseRoutes } from '../../src/streams/sse.js'
import type { OpenStream, Subscriber } from '../../src/streams/subscriber.js'

const LIMIT = 16 * 1024
/** A frame big enough to fill the socket's buffers in a few hundred. */
const PADDING = 'x'.repeat(32 * 1024)

let app: FastifyInstance | null = null
let client: Socket | null = null

afterEach(async () => {
  client?.destroy()
  client = null
  await app?.close()
  app = null
})

const turn = () => new Promise((r) => setImmediate(r))

/** The book stream at /perps/book-stream, fed by the test; resync counted (null: an event stream). */
async function start(resyncs: boolean) {
  const book = { sub: null as Subscriber | null, resyncs: 0, closed: 0 }
  const logs: string[] = []
  const services = {
    config: loadConfig({ STREAM_MAX_BUFFER_BYTES: String(LIMIT) }),
    log: pino({ level: 'info' }, { write: (line: string) => logs.push(line) }),
    metrics: unregisteredApiMetrics(),
    streams: {
      book: () => async (sub: Subscriber): Promise<OpenStream> => {
        book.sub = sub
        return { close: () => book.closed++, resync: resyncs ? () => book.resyncs++ : null }
      },
    },
  } as unknown as Services
  app = Fastify()
  registerSseRoutes(app, { services, caps: new ConnectionCaps(10), open: new Set() })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as AddressInfo).port

  // A reader that takes the response head, then stops reading until told.
  let received = ''
  const socket = (client = connect(port, '127.0.0.1'))
  socket.setEncoding('utf8')
  const head = new Promise<void>((resolve) =>
    socket.on('data', (chunk: string) => {
      received += chunk
      if (received.includes('\r\n\r\n')) resolve()
    }),
  )
  socket.write(`GET /perps/book-stream?marketId=BTC-PERP HTTP/1.1\r\nHost: x\r\n\r\n`)
  await head
  socket.pause()

  const push = (seq: number, payload: unknown = PADDING) => book.sub!.frame(makeFrame({ eventType: 'OrderbookDelta', eventSeq: seq, engineTs: 0, payload }))
  /** Pushes padded frames until the rule acts (logged), and returns the next sequence number. */
  const overflow = async (): Promise<number> => {
    for (let seq = 1; seq <= 5_000; seq++) {
      push(seq)
      if (logs.some((l) => l.includes('slow stream consumer'))) return seq + 1
      await turn()
    }
    throw new Error('the socket never filled')
  }
  const resume = () => socket.resume()
  const readUntil = async (text: string): Promise<string> => {
    resume()
    while (!received.includes(text)) await new Promise((r) => socket.once('data', r))
    return received
  }
  return { book, logs, push, overflow, resume, readUntil }
}

describe('SSE slow consumer', () => {
  it('conflates a snapshot stream: frames skipped while the reader lags, one resync once it has caught up', async () => {
    const { book, logs, push, overflow, resume, readUntil } = await start(true)
    const next = await overflow()
    expect(logs.filter((l) => l.includes('slow stream consumer conflated'))).toHaveLength(1)
    push(next, 'skipped while stale')
    expect(book.resyncs).toBe(0)
    // The reader catches up; the response drains, and the stream asks for its snapshot.
    resume()
    while (book.resyncs === 0) await turn()
    expect(book.resyncs).toBe(1)
    push(next + 1, 'the fresh snapshot')
    const text = await readUntil('the fresh snapshot')
    expect(text).not.toContain('skipped while stale')
    expect(book.closed).toBe(0)
  })

  it('ends an event stream with SLOW_CONSUMER in an `event: close` frame', async () => {
    const { book, logs, push, overflow, readUntil } = await start(false)
    const next = await overflow()
    expect(logs.filter((l) => l.includes('slow stream consumer disconnected'))).toHaveLength(1)
    expect(book.closed).toBe(1)
    push(next, 'after the end')
    const text = await readUntil('SLOW_CONSUMER')
    expect(text).toMatch(/event: close\ndata: \{"error":"\w+","code":"SLOW_CONSUMER"/)
    expect(text).not.toContain('after the end')
  })
})
