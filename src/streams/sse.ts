// Owns the documented SSE streams (SPEC.md "Streams"): /perps/book-stream, /markets/board/stream,
// /stream/options/ticks and /portfolio/balances/stream. A request is checked (credential, arguments, the
// per-IP cap) before anything is written, so refusals get the spec's JSON error body and status; then
// the response becomes `text/event-stream`: `id:` is the eventSeq, `event:` the eventType, `data:` the
// envelope, and a `: keep-alive` comment goes out every SSE_KEEPALIVE_MS. All four are snapshot streams:
// a reconnect (with or without Last-Event-ID) starts from a fresh snapshot. A consumer whose unsent
// bytes pass STREAM_MAX_BUFFER_BYTES is conflated: frames are skipped and one fresh snapshot goes out
// once the socket drains (the balance stream too: its Tail reads the wallet balance again). The
// slow-consumer branch, ending with an `event: close` frame saying SLOW_CONSUMER, is for event streams
// without resync (none of these four); a stream ended for another reason (KEY_REVOKED, INVALID_TOKEN when
// its session ends or its credential expires) gets that frame too.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Logger } from 'pino'
import { DomainError, errorBody } from '../domain/errors.js'
import { parsePart } from '../rest/requestSchema.js'
import type { Services } from '../services/services.js'
import type { ConnectionCaps } from './connectionCaps.js'
import { sseText, type Frame } from './frame.js'
import { sseQueries } from './streamDocs.js'
import { slowConsumer, SlowConsumerGate, type SlowConsumerMeter } from './slowConsumer.js'
import type { OpenStream, StreamOpener, Subscriber } from './subscriber.js'

export interface SseHost {
  services: Services
  caps: ConnectionCaps
  /** Ends every open SSE response (server stop). */
  readonly open: Set<() => void>
}

function closeText(err: unknown): string {
  const body = err instanceof DomainError ? errorBody(err.code, err.message, err.details) : errorBody('INTERNAL_ERROR')
  return `event: close\ndata: ${JSON.stringify(body)}\n\n`
}

class SseResponse implements Subscriber {
  /** Frames produced while the stream opens, before the response head is written. */
  private early: string[] | null = []
  private gate: SlowConsumerGate | null = null
  private stream: OpenStream | null = null
  ended = false
  endError: unknown = undefined

  constructor(
    private readonly raw: ServerResponse,
    private readonly maxBytes: number,
    private readonly log: Logger,
    private readonly meter: SlowConsumerMeter,
  ) {}

  frame(f: Frame): void {
    if (this.ended) return
    if (this.early) {
      this.early.push(sseText(f))
      return
    }
    if (this.gate?.admit()) this.raw.write(sseText(f))
  }

  end(err?: unknown): void {
    if (this.ended) return
    this.ended = true
    this.endError = err
    this.gate?.close()
    this.stream?.close()
    if (this.early) return // not started: the handler answers with the error instead
    if (err !== undefined) this.raw.write(closeText(err))
    this.raw.end()
  }

  /** The stream is open and its head written: the early frames go out, and the rule applies from now. */
  start(stream: OpenStream): void {
    this.stream = stream
    const raw = this.raw
    this.gate = new SlowConsumerGate(
      {
        bytes: () => raw.writableLength,
        whenBelow: (_bytes, drained) => {
          // Emitted once the response's buffer is empty (past the limit, its writes asked for one).
          raw.once('drain', drained)
          return () => raw.off('drain', drained)
        },
      },
      {
        maxBytes: this.maxBytes,
        meter: this.meter,
        resync: stream.resync,
        giveUp: () => this.end(slowConsumer()),
        log: { logger: this.log, at: 'SseResponse#frame' },
      },
    )
    for (const text of this.early ?? []) this.raw.write(text)
    this.early = null
  }

  /** The client left: nothing more is written, and a conflated stream does not resync. */
  gone(): void {
    this.ended = true
    this.gate?.close()
  }
}

async function serve(host: SseHost, req: FastifyRequest, reply: FastifyReply, open: StreamOpener): Promise<FastifyReply> {
  const { config } = host.services
  const ip = req.ip
  if (!host.caps.acquire(ip)) throw new DomainError('CONNECTION_LIMIT', host.caps.limitMessage)
  let released = false
  const release = () => {
    if (!released) host.caps.release(ip)
    released = true
  }
  const raw = reply.raw
  const res = new SseResponse(raw, config.streamMaxBufferBytes, host.services.log, host.services.metrics.streams.slowConsumers.sse)
  let stream: OpenStream | null = null
  let keepAlive: NodeJS.Timeout | undefined
  const stop = () => res.end()
  // Listening before the stream opens: a client that leaves while it opens (its 'close' comes during
  // the await) must still release its slot, and the stream must not be left running.
  let gone = false
  // A write the peer can no longer take is reported here; its 'close' does the cleaning up.
  raw.on('error', () => {})
  raw.once('close', () => {
    gone = true
    clearInterval(keepAlive)
    host.open.delete(stop)
    release()
    res.gone()
    stream?.close()
  })
  let opened: OpenStream
  try {
    opened = await open(res)
  } catch (err) {
    release()
    throw err
  }
  if (gone) {
    opened.close()
    reply.hijack()
    return reply
  }
  if (res.ended) {
    opened.close()
    release()
    throw res.endError ?? new DomainError('UPSTREAM_DEGRADED')
  }
  stream = opened
  // On the reply, not only on the wire: the request metrics leave event streams out by it.
  reply.header('content-type', 'text/event-stream; charset=utf-8')
  reply.hijack()
  raw.writeHead(200, {
    ...(reply.getHeaders() as OutgoingHttpHeaders),
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  })
  res.start(opened)
  raw.flushHeaders()
  keepAlive = setInterval(() => {
    if (!res.ended) raw.write(': keep-alive\n\n')
  }, config.sseKeepAliveMs)
  host.open.add(stop)
  return reply
}


export function registerSseRoutes(app: FastifyInstance, host: SseHost): void {
  const streams = host.services.streams
  const route = (path: string, auth: 'public' | 'read', opener: (req: FastifyRequest) => StreamOpener) =>
    app.get(path, { config: { auth } }, (req, reply) => serve(host, req, reply, opener(req)))

  route('/perps/book-stream', 'public', (req) => streams.book(parsePart(sseQueries.book, req.query, 'query').marketId, 'linear'))
  route('/markets/board/stream', 'public', (req) => streams.board(parsePart(sseQueries.board, req.query, 'query').underlying ?? 'BTC'))
  route('/stream/options/ticks', 'public', (req) => streams.ticks(parsePart(sseQueries.ticks, req.query, 'query').underlying ?? 'BTC'))
  route('/portfolio/balances/stream', 'read', (req) => streams.balances(req.credential.principal!))
}
