// Owns the documented WebSocket sockets and their protocol (SPEC.md "WebSocket protocol", DESIGN.md
// §2.6): /ws/perps/prices (`prices`), /ws/feeds (`orderbook`, `fills` of option markets) and /ws/quotes
// (`quotes`, the public top of book, and `myQuotes`, the caller's quote state: src/streams/quoteState.ts;
// both by market id or underlying). The sockets are public; a private type needs the credential of the
// upgrade request (Authorization header, or the session cookie from an allowed Origin), resolved at its
// first use, and is refused with that credential's code otherwise (the socket stays open).
//   → {"method":"subscribe","subscription":{"type":"prices","symbol":"BTC-PERP"}}   (optional fromSeq)
//   ← {"type":"ack","subscription":{...}}            then data messages: the spec's envelope, bare
//   → {"method":"unsubscribe","subscription":{...}}
//   ← {"type":"ack","method":"unsubscribe","subscription":{...}}
//   → ping   ← pong   (text; without a ping for WS_PING_TIMEOUT_MS the socket is closed, code 4000)
//   ← {"type":"error","code":"INVALID_REQUEST","message":"...","subscription":{...}}   the socket stays open
// Each data message is the frame's one serialized string, shared by every subscriber. Past
// STREAM_MAX_BUFFER_BYTES of unsent data an order book or quotes subscription skips frames and, once the
// socket drains, restarts from a fresh snapshot (the book) or the current top (quotes); prices and fills
// close the socket (4008, SLOW_CONSUMER).
import type { Logger } from 'pino'
import type { WebSocket } from 'ws'
import { refusal, type CredentialResult } from '../auth/principal.js'
import { DomainError, type ErrorCode } from '../domain/errors.js'
import type { Config } from '../config/env.js'
import type { Frame } from './frame.js'
import { SocketFeed } from './socketFeed.js'
import type { Streams } from './streams.js'
import type { SlowConsumerMeter } from './slowConsumer.js'
import type { OpenStream, StreamOpener, Subscriber } from './subscriber.js'

const CLOSE_PING_TIMEOUT = 4000
const CLOSE_SLOW_CONSUMER = 4008

/** The socket's credential, resolved once, when a private subscription first needs it. */
export type SocketCredential = () => Promise<CredentialResult>

type Opener = (streams: Streams, symbol: string, fromSeq: number | null, credential: SocketCredential) => StreamOpener

/** A subscription type that needs a credential of `read` scope. */
const authenticated =
  (open: (s: Streams, principal: NonNullable<CredentialResult['principal']>, symbol: string) => StreamOpener): Opener =>
  (s, symbol, _fromSeq, credential) =>
  async (sub) => {
    const c = await credential()
    const refused = refusal(c, 'read')
    if (refused) throw refused
    return open(s, c.principal!, symbol)(sub)
  }

/** Subscription types per socket path. */
export const SOCKETS: Readonly<Record<string, Readonly<Record<string, Opener>>>> = {
  '/ws/perps/prices': { prices: (s, symbol, fromSeq) => s.prices(symbol, fromSeq) },
  '/ws/feeds': {
    orderbook: (s, symbol) => s.book(symbol, 'option'),
    fills: (s, symbol, fromSeq) => s.trades(symbol, fromSeq, 'option'),
  },
  '/ws/quotes': {
    quotes: (s, symbol) => s.quotes(symbol),
    myQuotes: authenticated((s, principal, symbol) => s.myQuotes(principal, symbol)),
  },
}

interface Subscription {
  type: string
  symbol: string
  fromSeq?: number
}

interface Entry extends Subscriber {
  subscription: Subscription
  stream: OpenStream | null
  /** Set once the subscription is acked: sends within the socket's buffer limit. */
  feed: SocketFeed | null
  closed: boolean
}

export class FeedSocket {
  private readonly subs = new Map<string, Entry>()
  private readonly pingTimer: NodeJS.Timeout
  private closed = false

  constructor(
    private readonly ws: WebSocket,
    private readonly types: Readonly<Record<string, Opener>>,
    private readonly streams: Streams,
    private readonly config: Config,
    private readonly log: Logger,
    private readonly credential: SocketCredential,
    private readonly meter: SlowConsumerMeter,
  ) {
    this.pingTimer = setTimeout(() => this.close(CLOSE_PING_TIMEOUT, `no ping within ${config.wsPingTimeoutMs} ms`), config.wsPingTimeoutMs)
    ws.on('message', (data, isBinary) => this.onMessage(isBinary ? null : String(data)))
    ws.once('close', () => this.dispose())
  }

  close(code: number, reason: string): void {
    if (this.closed) return
    this.dispose()
    this.ws.close(code, reason)
  }

  private dispose(): void {
    if (this.closed) return
    this.closed = true
    clearTimeout(this.pingTimer)
    for (const e of this.subs.values()) this.drop(e)
    this.subs.clear()
  }

  private send(message: unknown): void {
    if (!this.closed) this.ws.send(typeof message === 'string' ? message : JSON.stringify(message))
  }

  private error(code: ErrorCode, message: string, subscription?: unknown): void {
    this.send(subscription === undefined ? { type: 'error', code, message } : { type: 'error', code, message, subscription })
  }

  private onMessage(text: string | null): void {
    if (this.closed) return
    if (text === 'ping') {
      this.pingTimer.refresh()
      return this.send('pong')
    }
    let msg: unknown
    try {
      msg = text === null ? null : JSON.parse(text)
    } catch {
      msg = null
    }
    if (typeof msg !== 'object' || msg === null) return this.error('INVALID_REQUEST', 'Messages are JSON objects {method, subscription}, or the text ping')
    const { method, subscription } = msg as { method?: unknown; subscription?: unknown }
    if (method !== 'subscribe' && method !== 'unsubscribe') return this.error('INVALID_REQUEST', 'method must be subscribe or unsubscribe', subscription)
    const sub = this.parse(subscription)
    if (typeof sub === 'string') return this.error('INVALID_REQUEST', sub, subscription)
    if (method === 'subscribe') void this.subscribe(sub)
    else this.unsubscribe(sub)
  }

  /** The subscription, or why it is malformed. */
  private parse(s: unknown): Subscription | string {
    if (typeof s !== 'object' || s === null) return 'subscription must be an object {type, symbol}'
    const { type, symbol, fromSeq } = s as Record<string, unknown>
    const known = Object.keys(this.types).join(', ')
    if (typeof type !== 'string' || !Object.hasOwn(this.types, type)) return `Unknown subscription type ${JSON.stringify(type)} on this socket; use ${known}`
    if (typeof symbol !== 'string' || symbol === '') return 'subscription.symbol must be a non-empty string'
    if (fromSeq !== undefined && fromSeq !== null && !(typeof fromSeq === 'number' && Number.isSafeInteger(fromSeq) && fromSeq >= 0)) {
      return 'subscription.fromSeq must be a non-negative integer'
    }
    return typeof fromSeq === 'number' ? { type, symbol, fromSeq } : { type, symbol }
  }

  private async subscribe(subscription: Subscription): Promise<void> {
    const key = `${subscription.type}\n${subscription.symbol}`
    if (this.subs.has(key)) return this.send({ type: 'ack', subscription })
    if (this.subs.size >= this.config.wsMaxSubscriptions) {
      return this.error('INVALID_REQUEST', `At most ${this.config.wsMaxSubscriptions} subscriptions per socket`, subscription)
    }
    // Frames that come while the stream opens (its snapshot) wait until the ack is out.
    const early: Frame[] = []
    const entry: Entry = {
      subscription,
      stream: null,
      feed: null,
      closed: false,
      frame: (f) => {
        if (entry.closed) return
        if (entry.feed) entry.feed.send(f.json)
        else early.push(f)
      },
      end: (err) => {
        if (entry.closed) return
        if (this.subs.get(key) === entry) this.subs.delete(key)
        this.drop(entry)
        const e = err instanceof DomainError ? err : new DomainError('UPSTREAM_DEGRADED', 'The stream failed; subscribe again')
        this.error(e.code, e.message, subscription)
      },
    }
    this.subs.set(key, entry)
    try {
      const opener = this.types[subscription.type]!(this.streams, subscription.symbol, subscription.fromSeq ?? null, this.credential)
      entry.stream = await opener(entry)
    } catch (err) {
      if (this.subs.get(key) === entry) this.subs.delete(key)
      entry.closed = true
      if (err instanceof DomainError) return this.error(err.code, err.message, subscription)
      return this.error('UPSTREAM_DEGRADED', 'The stream could not be opened; retry shortly', subscription)
    }
    // Unsubscribed or closed while opening.
    if (entry.closed || this.subs.get(key) !== entry) return this.drop(entry)
    this.send({ type: 'ack', subscription })
    entry.feed = new SocketFeed(this.ws, {
      maxBytes: this.config.streamMaxBufferBytes,
      meter: this.meter,
      resync: entry.stream.resync,
      giveUp: () => this.close(CLOSE_SLOW_CONSUMER, 'SLOW_CONSUMER: the socket buffer overflowed; reconnect to resync'),
      log: { logger: this.log, at: 'FeedSocket#subscribe', fields: { subscription } },
    })
    for (const f of early) entry.feed.send(f.json)
  }

  private unsubscribe(subscription: Subscription): void {
    const key = `${subscription.type}\n${subscription.symbol}`
    const entry = this.subs.get(key)
    if (entry) {
      this.subs.delete(key)
      this.drop(entry)
    }
    this.send({ type: 'ack', method: 'unsubscribe', subscription })
  }

  private drop(entry: Entry): void {
    entry.closed = true
    entry.feed?.close()
    entry.stream?.close()
  }
}
