// Owns every stream this API node serves, whatever the transport (SSE, the /ws sockets, GraphQL over
// graphql-ws or SSE): each is a StreamOpener that validates its arguments with the spec's codes and then
// feeds a Subscriber. Engine streams read the one EventHub; the board, option ticks and quotes are
// computed here and shared by all local subscribers. Private streams are closed when the credential that
// opened them ends, on every node: an API key revoked or a session logged out (both reach every node on
// the auth channel), or a session or API key reaching its expiry. Every stream opened here counts among
// its kind's open subscribers (metrics) until it is closed.
import type { Redis } from 'ioredis'
import type { Logger } from 'pino'
import type { Principal } from '../auth/principal.js'
import type { Identity } from '../auth/identity.js'
import type { RedisKeys } from '../bus/keys.js'
import { familyCatalog, CATALOG } from '../config/catalog.js'
import type { Config } from '../config/env.js'
import type { Clock } from '../domain/clock.js'
import { DomainError } from '../domain/errors.js'
import { isLinear } from '../domain/market.js'
import { streams as names } from '../engine/events.js'
import type { OrderView } from '../domain/orders.js'
import type { BalancePayload, BookPayload } from '../engine/payloads.js'
import type { SubscriberCount } from '../metrics/streamMetrics.js'
import type { MarketData } from '../services/marketData.js'
import { bucketBalances, walletBalance, type WalletBalance } from '../services/portfolio.js'
import type { AccountReads } from '../store/accountReads.js'
import type { ListedMarket } from '../store/marketRows.js'
import { EventHub } from './eventHub.js'
import { makeFrame, type Frame } from './frame.js'
import { OptionsFeed } from './optionsFeed.js'
import { QuoteFeed } from './quoteFeed.js'
import type { OpenStream, StreamOpener, Subscriber } from './subscriber.js'
import { quoteOrder, type QuoteSnapshotPayload, type QuoteUpdatePayload } from './quoteState.js'
import { Tail } from './tail.js'

/** The kind of market a stream serves: linear (spot, perpetual, future) or option. */
type MarketKind = 'linear' | 'option'

export interface StreamsDeps {
  config: Config
  log: Logger
  redis: Redis
  keys: RedisKeys
  marketData: MarketData
  reads: AccountReads
  identity: Identity
  clock: Clock
  /** Open-subscriber counts by stream (src/metrics/streamMetrics.ts). */
  metrics: { subscriberCount(stream: string): SubscriberCount }
}

/** The streams served, as the subscriber counts name them. */
const STREAM_NAMES = ['book', 'prices', 'trades', 'quotes', 'board', 'ticks', 'my_quotes', 'orders', 'fills', 'balances'] as const
type StreamName = (typeof STREAM_NAMES)[number]

/** A balance stream message: the wallet balance (GET /wallet/balance) as it stands after the event. */
export type BalanceSnapshot = WalletBalance & { kind: 'snapshot' }

export class Streams {
  readonly hub: EventHub
  private readonly optionFeeds = new Map<string, Promise<OptionsFeed>>()
  private readonly quoteFeeds = new Map<string, Promise<QuoteFeed>>()
  /** Open private streams by the credential that authenticated them (credentialOf), each with its ending. */
  private readonly byCredential = new Map<string, Set<() => void>>()
  private readonly subscribers: Record<StreamName, SubscriberCount>

  constructor(private readonly d: StreamsDeps) {
    this.subscribers = Object.fromEntries(STREAM_NAMES.map((n) => [n, d.metrics.subscriberCount(n)])) as Record<StreamName, SubscriberCount>
    this.hub = new EventHub({ redisUrl: d.config.redisUrl, redis: d.redis, keys: d.keys, log: d.log })
    d.identity.events.on((e) => {
      if (e.type === 'key-revoked') this.endCredential(keyCredential(e.keyId))
      else if (e.type === 'session-ended') this.endCredential(sessionCredential(e.sessionId))
    })
  }

  /** Order book of a listed market (of `only` that kind, when given): OrderbookSnapshot, then
   * OrderbookDelta with contiguous sequences. */
  book(marketId: string, only?: MarketKind): StreamOpener {
    return this.counted('book', async (sub) => {
      await this.market(marketId, only)
      return this.tail(sub, { stream: names.book(marketId), snapshot: () => this.bookSnapshot(marketId) })
    })
  }

  /** PerpPrice events of a perpetual. */
  prices(symbol: string, fromSeq: number | null): StreamOpener {
    return this.counted('prices', async (sub) => {
      const m = await this.market(symbol)
      if (m.spec.type !== 'perpetual') throw new DomainError('INVALID_MARKET_ID', `Prices are published for perpetuals; ${symbol} is a ${m.spec.type}`)
      return this.tail(sub, { stream: names.prices(symbol), fromSeq })
    })
  }

  /** Public Trade events of a market. */
  trades(marketId: string, fromSeq: number | null, only?: 'option'): StreamOpener {
    return this.counted('trades', async (sub) => {
      await this.market(marketId, only)
      return this.tail(sub, { stream: names.trades(marketId), fromSeq })
    })
  }

  /** A market id as itself, or an underlying as its live markets (as listed now). */
  private async symbolMarkets(symbol: string): Promise<string[]> {
    const md = this.d.marketData
    const one = await md.market(symbol)
    if (one) return [symbol]
    if (!familyCatalog(symbol)) throw new DomainError('MARKET_NOT_FOUND', `${symbol} is neither a market nor an underlying`, { underlyings: CATALOG.map((c) => c.family) })
    return (await md.listed()).filter((m) => m.spec.family === symbol && m.status !== 'settled').map((m) => m.spec.id)
  }

  /** Top of book of a market, or of every live market of an underlying. */
  quotes(symbol: string): StreamOpener {
    return this.counted('quotes', async (sub) => {
      const ids = await this.symbolMarkets(symbol)
      const open: OpenStream[] = []
      try {
        for (const id of ids) open.push(await this.quoteStream(id, sub))
      } catch (err) {
        for (const s of open) s.close()
        throw err
      }
      return { close: () => open.forEach((s) => s.close()), resync: () => open.forEach((s) => s.resync?.()) }
    })
  }

  /** The options board of an underlying: BoardSnapshot, then BoardDelta with the changed rows. */
  board(underlying: string): StreamOpener {
    return this.counted('board', (sub) => this.optionsStream(underlying, (feed) => feed.subscribeBoard(sub)))
  }

  /** Option ticks of an underlying: OptionSnapshot, then OptionDelta with the changed ticks. */
  ticks(underlying: string): StreamOpener {
    return this.counted('ticks', (sub) => this.optionsStream(underlying, (feed) => feed.subscribeTicks(sub)))
  }

  /**
   * The caller's quote state in a market or an underlying's markets (src/streams/quoteState.ts): a
   * QuoteSnapshot of their open quote orders (from PostgreSQL, at the order stream's latest sequence),
   * then a QuoteUpdate per OrderUpdate event of an order with a quoteId there.
   */
  myQuotes(principal: Principal, symbol: string): StreamOpener {
    const userId = principal.userId
    const stream = names.orders(userId)
    return this.counted('my_quotes', this.private(principal, async (sub) => {
      const ids = await this.symbolMarkets(symbol)
      const markets = new Set(ids)
      const snapshot = async () => {
        const seq = (await this.hub.lastSeq(stream)) ?? 0
        const quotes = (await this.d.reads.openQuoteOrders(userId, ids)).map(quoteOrder)
        return makeFrame({ eventType: 'QuoteSnapshot', eventSeq: seq, engineTs: this.d.clock(), payload: { kind: 'snapshot', symbol, quotes } satisfies QuoteSnapshotPayload })
      }
      const emit = (f: Frame) => {
        if (f.env.eventType === 'MmpTriggered') {
          // Market-maker protection tripped on an underlying of these markets: every protected quote there is gone.
          const u = (f.env.payload as { underlying: string }).underlying
          if (symbol === u || ids.some((id) => id.startsWith(`${u}-`))) sub.frame(f)
          return
        }
        if (f.env.eventType !== 'OrderUpdate') return sub.frame(f)
        const o = f.env.payload as OrderView
        if (o.quoteId === null || !markets.has(o.marketId)) return
        sub.frame(makeFrame({ ...f.env, eventType: 'QuoteUpdate', causationId: f.env.eventId, payload: { kind: 'update', ...quoteOrder(o) } satisfies QuoteUpdatePayload }))
      }
      return this.tail({ frame: emit, end: (err) => sub.end(err) }, { stream, snapshot })
    }))
  }

  /** The caller's OrderUpdate events; replay after `fromSeq` from the buffer. */
  orders(principal: Principal, fromSeq: number | null): StreamOpener {
    return this.counted('orders', this.private(principal, (sub) => this.tail(sub, { stream: names.orders(principal.userId), fromSeq })))
  }

  /** The caller's Fill events; replay after `fromSeq` from the buffer. */
  fills(principal: Principal, fromSeq: number | null): StreamOpener {
    return this.counted('fills', this.private(principal, (sub) => this.tail(sub, { stream: names.fills(principal.userId), fromSeq })))
  }

  /**
   * The caller's wallet balance: BalanceSnapshot (from PostgreSQL, at the stream's latest sequence), then
   * one BalanceUpdate snapshot per engine balance event. Each event carries every bucket, so whichever
   * event lands after the read, the last message is the committed state.
   */
  balances(principal: Principal): StreamOpener {
    const userId = principal.userId
    const stream = names.balances(userId)
    return this.counted('balances', this.private(principal, async (sub) => {
      let current: WalletBalance | null = null
      const snapshot = async () => {
        const seq = (await this.hub.lastSeq(stream)) ?? 0
        current = await walletBalance(this.d.reads, userId)
        return makeFrame({ eventType: 'BalanceSnapshot', eventSeq: seq, engineTs: this.d.clock(), payload: { kind: 'snapshot', ...current } satisfies BalanceSnapshot })
      }
      const emit = (f: Frame) => {
        if (f.env.eventType !== 'BalanceUpdate') return sub.frame(f)
        const p = f.env.payload as ReturnType<BalancePayload['toJSON']>
        current = { ...current!, ...bucketBalances(p), onchainDepositTotal: p.onchainDepositTotal, pendingWithdrawalTotal: p.pendingWithdrawalTotal }
        sub.frame(makeFrame({ ...f.env, payload: { kind: 'snapshot', ...current } satisfies BalanceSnapshot }))
      }
      return this.tail({ frame: emit, end: (err) => sub.end(err) }, { stream, snapshot })
    }))
  }

  async close(): Promise<void> {
    for (const p of [...this.optionFeeds.values(), ...this.quoteFeeds.values()]) void p.then((f) => f.close(), () => {})
    this.optionFeeds.clear()
    this.quoteFeeds.clear()
    await this.hub.close()
  }

  /** Counts the stream among its kind's open subscribers from the moment it opens until it is closed. */
  private counted(name: StreamName, open: StreamOpener): StreamOpener {
    const count = this.subscribers[name]
    return async (sub) => {
      const stream = await open(sub)
      count.inc()
      let closed = false
      return {
        close: () => {
          if (!closed) count.dec()
          closed = true
          stream.close()
        },
        resync: stream.resync,
      }
    }
  }

  private async market(id: string, only?: MarketKind): Promise<ListedMarket> {
    const m = await this.d.marketData.marketOrThrow(id)
    if (only === 'option' && m.spec.type !== 'option') throw new DomainError('INVALID_MARKET_ID', `${id} is not an option market`)
    // The linear book stream is /perps/book-stream's: an option id is unknown there, as on GET /perps/orderbook.
    if (only === 'linear' && !isLinear(m.spec.type)) throw new DomainError('MARKET_NOT_FOUND', `No linear market ${id}`)
    return m
  }

  private async bookSnapshot(marketId: string): Promise<Frame> {
    const b = await this.d.marketData.orderbook(marketId)
    return makeFrame({
      eventType: 'OrderbookSnapshot',
      eventSeq: b.sequence,
      engineTs: Date.parse(b.timestamp),
      payload: { kind: 'snapshot', marketId: b.marketId, sequence: b.sequence, bids: b.bids, asks: b.asks } satisfies BookPayload,
    })
  }

  private async tail(sub: Subscriber, o: { stream: string; snapshot?: () => Promise<Frame>; fromSeq?: number | null }): Promise<OpenStream> {
    const tail = await Tail.open({ hub: this.hub, ...o, emit: (f) => sub.frame(f), fail: (err) => sub.end(err) })
    return { close: () => tail.close(), resync: tail.resync }
  }

  private async optionsStream(underlying: string, subscribe: (feed: OptionsFeed) => OpenStream | null): Promise<OpenStream> {
    const family = familyCatalog(underlying)
    if (!family) throw new DomainError('PRODUCT_NOT_FOUND', `Unknown underlying ${underlying}`, { underlyings: CATALOG.map((c) => c.family) })
    const deps = { hub: this.hub, marketData: this.d.marketData, log: this.d.log, intervalMs: this.d.config.optionsFeedIntervalMs }
    return this.sharedFeed(this.optionFeeds, family.family, (onIdle) => OptionsFeed.open(deps, family.family, onIdle), subscribe)
  }

  private quoteStream(marketId: string, sub: Subscriber): Promise<OpenStream> {
    const open = (onIdle: () => void) => QuoteFeed.open(this.hub, marketId, () => this.bookSnapshot(marketId), onIdle)
    return this.sharedFeed(this.quoteFeeds, marketId, open, (feed) => feed.subscribe(sub))
  }

  /**
   * Subscribes to the feed of `key` shared by this node's subscribers, opening it on first use; it leaves
   * `feeds` when it goes idle or fails to open. A feed that went idle between lookup and subscription
   * (subscribe answers null) is replaced by a new one.
   */
  private async sharedFeed<F>(
    feeds: Map<string, Promise<F>>,
    key: string,
    open: (onIdle: () => void) => Promise<F>,
    subscribe: (feed: F) => OpenStream | null,
  ): Promise<OpenStream> {
    for (;;) {
      let p = feeds.get(key)
      if (!p) {
        const forget = () => {
          if (feeds.get(key) === opened) feeds.delete(key)
        }
        const opened = open(forget)
        feeds.set(key, (p = opened))
        opened.catch(forget)
      }
      const stream = subscribe(await p)
      if (stream) return stream
    }
  }

  /**
   * Registers a private stream under the credential that opened it, so that its end closes the stream
   * with the code a new request with it would get: KEY_REVOKED for a revoked key, INVALID_TOKEN for an
   * expired key or a session logged out or expired.
   */
  private private(principal: Principal, open: StreamOpener): StreamOpener {
    const credential = this.credentialOf(principal)
    if (!credential) return open
    return async (sub) => {
      const stream = await open(sub)
      let cancelExpiry = () => {}
      let ended = false
      const end = (err: DomainError) => {
        if (ended) return
        ended = true
        forget()
        stream.close()
        sub.end(err)
      }
      const revoke = () => end(credential.ended())
      let set = this.byCredential.get(credential.id)
      if (!set) this.byCredential.set(credential.id, (set = new Set()))
      set.add(revoke)
      const forget = () => {
        cancelExpiry()
        set.delete(revoke)
        if (set.size === 0 && this.byCredential.get(credential.id) === set) this.byCredential.delete(credential.id)
      }
      if (principal.expiresAt !== undefined) {
        cancelExpiry = runAt(this.d.clock, principal.expiresAt, () => end(credential.expired()))
      }
      // An end announced while this stream was opening was not seen by the handler: check the record.
      let hasEnded: boolean
      try {
        hasEnded = await credential.hasEnded()
      } catch (err) {
        // Unopened for the caller (it gets the error): leave nothing registered or running.
        forget()
        stream.close()
        throw err
      }
      if (hasEnded) revoke()
      return {
        close: () => {
          forget()
          stream.close()
        },
        resync: stream.resync,
      }
    }
  }

  /**
   * The credential a private stream lives by: its map key, how to tell it ended, and the errors it ends
   * with when ended (revoked, logged out) and when it reaches its `expiresAt`.
   */
  private credentialOf(principal: Principal): { id: string; hasEnded(): Promise<boolean>; ended(): DomainError; expired(): DomainError } | null {
    const { keyId, sessionId } = principal
    if (keyId !== undefined) {
      return {
        id: keyCredential(keyId),
        hasEnded: () => this.d.identity.revocations.isRevoked(keyId),
        ended: () => new DomainError('KEY_REVOKED', 'The API key of this stream has been revoked'),
        expired: () => new DomainError('INVALID_TOKEN', 'The API key of this stream has expired'),
      }
    }
    if (sessionId !== undefined) {
      return {
        id: sessionCredential(sessionId),
        hasEnded: async () => !(await this.d.identity.sessions.isLive(sessionId)),
        ended: () => new DomainError('INVALID_TOKEN', 'Session has ended; sign in again'),
        expired: () => new DomainError('INVALID_TOKEN', 'Session has expired; sign in again'),
      }
    }
    return null
  }

  private endCredential(id: string): void {
    const set = this.byCredential.get(id)
    if (!set) return
    this.byCredential.delete(id)
    for (const revoke of set) revoke()
  }
}

const keyCredential = (keyId: string) => `key:${keyId}`
const sessionCredential = (sessionId: string) => `session:${sessionId}`

/** setTimeout's longest delay (~24.8 days); sessions and keys may last longer, so a far deadline is re-armed. */
const MAX_TIMER_MS = 2_147_483_647

/** Calls `fn` at `atMs` (epoch ms by `clock`), without keeping the process alive; returns the cancel. */
function runAt(clock: Clock, atMs: number, fn: () => void): () => void {
  let timer: NodeJS.Timeout
  const arm = () => {
    const wait = atMs - clock()
    if (wait <= 0) return fn()
    timer = setTimeout(arm, Math.min(wait, MAX_TIMER_MS))
    timer.unref()
  }
  arm()
  return () => clearTimeout(timer)
}
