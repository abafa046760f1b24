// Subscriptions (DESIGN.md §2.5, §2.6): the documented streams as GraphQL, over graphql-ws and yoga's
// SSE alike. Every event is the spec's envelope (the StreamEvent interface) with a typed payload; the
// streams themselves live in src/streams. Private streams need scope read, are the caller's own, carry a
// per-user sequence and replay from `fromSeq` while the 5,000-frame buffer still holds it (otherwise a
// ResyncRequired event, whose payload is null, says to refetch).
import type { ObjectRef } from '@pothos/core'
import { DomainError } from '../../domain/errors.js'
import type { BookPayload } from '../../engine/payloads.js'
import type { QuotePayload } from '../../streams/quoteFeed.js'
import type { BoardUpdate, OptionTick } from '../../streams/optionsFeed.js'
import type { Frame } from '../../streams/frame.js'
import { frameIterator, type StreamOpener } from '../../streams/subscriber.js'
import type { TradeView } from '../../store/accountReads.js'
import type { OrderView } from '../../domain/orders.js'
import { builder } from '../builder.js'
import type { GraphQLContext } from '../context.js'
import { WalletBalanceRef } from './account.js'
import { LevelRef } from './markets.js'
import { BoardRef } from './options.js'
import { OrderRef, OrderSideEnum, principal, TradeRef } from './trading.js'

interface PricePayload {
  kind: 'price'
  symbol: string
  price: string
  tsMs: number
}

interface MarketTradePayload {
  tradeId: string
  marketId: string
  price: string
  quantity: string
  takerSide: 'buy' | 'sell'
  tsMs: number
}

interface FillPayload extends Omit<TradeView, 'type' | 'createdAt'> {
  tsMs: number
}

interface TicksPayload {
  kind: 'snapshot' | 'delta'
  seq: number
  ticks: OptionTick[]
  removed?: string[]
}

const StreamEventRef = builder.interfaceRef<Frame>('StreamEvent').implement({
  description: 'The envelope of every stream message (SPEC.md "Events").',
  fields: (t) => ({
    eventId: t.string({ description: '`{eventType}-{eventSeq}-{engineTs}`', resolve: (f) => f.env.eventId }),
    eventType: t.string({ resolve: (f) => f.env.eventType }),
    eventSeq: t.field({ type: 'SafeInt', description: 'Increases by one per event of the stream.', resolve: (f) => f.env.eventSeq }),
    engineTs: t.field({ type: 'SafeInt', description: 'Engine time, unix ms.', resolve: (f) => f.env.engineTs }),
    sourceTs: t.field({ type: 'SafeInt', nullable: true, description: 'Upstream time, unix ms; null for internal events.', resolve: (f) => f.env.sourceTs }),
    correlationId: t.string({ nullable: true, description: 'Correlation id of the request that caused the event.', resolve: (f) => f.env.correlationId }),
    causationId: t.string({ nullable: true, description: 'Id of the event that caused this one.', resolve: (f) => f.env.causationId }),
  }),
})

/** An event type: the envelope plus a payload of the given type (null on ResyncRequired when nullable). */
function eventType<P>(name: string, description: string, payload: ObjectRef<any, P>, opts: { nullable: boolean; of?: (f: Frame) => P }) {
  const of = opts.of ?? ((f: Frame) => f.env.payload as P)
  return builder.objectRef<Frame>(name).implement({
    description,
    interfaces: [StreamEventRef],
    fields: (t) =>
      opts.nullable
        ? { payload: t.field({ type: payload, nullable: true, resolve: (f) => (f.env.eventType === 'ResyncRequired' ? null : of(f)) as never }) }
        : { payload: t.field({ type: payload, resolve: (f) => of(f) as never }) },
  })
}

const BookSideEnum = builder.enumType('BookSide', { values: { BID: { value: 'bid' }, ASK: { value: 'ask' } } as const })

const BookChangeRef = builder.objectRef<NonNullable<BookPayload['changes']>[number]>('OrderbookChange').implement({
  fields: (t) => ({
    side: t.field({ type: BookSideEnum, resolve: (c) => c.side }),
    price: t.field({ type: 'Decimal', resolve: (c) => c.price }),
    size: t.field({ type: 'Decimal', description: '"0" removes the level.', resolve: (c) => c.size }),
  }),
})

const BookPayloadRef = builder.objectRef<BookPayload>('OrderbookUpdate').implement({
  description: 'A snapshot (bids and asks, best first) or a delta (changed levels); apply deltas in sequence order.',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: '"snapshot" or "delta"' }),
    marketId: t.exposeString('marketId'),
    sequence: t.field({ type: 'SafeInt', resolve: (p) => p.sequence }),
    bids: t.field({ type: [LevelRef], nullable: true, resolve: (p) => p.bids ?? null }),
    asks: t.field({ type: [LevelRef], nullable: true, resolve: (p) => p.asks ?? null }),
    changes: t.field({ type: [BookChangeRef], nullable: true, resolve: (p) => p.changes ?? null }),
  }),
})

const PriceRef = builder.objectRef<PricePayload>('PerpPrice').implement({
  fields: (t) => ({
    kind: t.exposeString('kind'),
    symbol: t.exposeString('symbol'),
    price: t.field({ type: 'Decimal', resolve: (p) => p.price }),
    tsMs: t.field({ type: 'SafeInt', resolve: (p) => p.tsMs }),
  }),
})

const MarketTradeRef = builder.objectRef<MarketTradePayload>('MarketTrade').implement({
  description: 'A match on a market, public: no users, the taker\'s side.',
  fields: (t) => ({
    tradeId: t.exposeString('tradeId'),
    marketId: t.exposeString('marketId'),
    price: t.field({ type: 'Decimal', resolve: (p) => p.price }),
    quantity: t.field({ type: 'Decimal', resolve: (p) => p.quantity }),
    takerSide: t.field({ type: OrderSideEnum, resolve: (p) => p.takerSide }),
    tsMs: t.field({ type: 'SafeInt', resolve: (p) => p.tsMs }),
  }),
})

const BoardUpdateRef = builder.objectRef<BoardUpdate>('OptionsBoardUpdate').implement({
  description: 'A snapshot (the whole board) or a delta (the board with only its changed rows, and the rows that left).',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: '"snapshot" or "delta"' }),
    seq: t.field({ type: 'SafeInt', resolve: (u) => u.seq }),
    board: t.field({ type: BoardRef, resolve: (u) => u.board }),
    removed: t.exposeStringList('removed', { description: 'Market ids no longer on the board.' }),
  }),
})

const OptionTickRef = builder.objectRef<OptionTick>('OptionTick').implement({
  fields: (t) => ({
    instrumentId: t.exposeString('instrumentId'),
    bid: t.field({ type: 'Decimal', nullable: true, description: 'Null when that side of the book is empty.', resolve: (k) => k.bid }),
    ask: t.field({ type: 'Decimal', nullable: true, description: 'Null when that side of the book is empty.', resolve: (k) => k.ask }),
    mark: t.field({ type: 'Decimal', nullable: true, resolve: (k) => k.mark }),
    iv: t.field({ type: 'Decimal', nullable: true, resolve: (k) => k.iv }),
    delta: t.field({ type: 'Decimal', nullable: true, resolve: (k) => k.delta }),
  }),
})

const TicksRef = builder.objectRef<TicksPayload>('OptionTicksUpdate').implement({
  fields: (t) => ({
    kind: t.exposeString('kind', { description: '"snapshot" or "delta"' }),
    seq: t.field({ type: 'SafeInt', resolve: (p) => p.seq }),
    ticks: t.field({ type: [OptionTickRef], resolve: (p) => p.ticks }),
    removed: t.stringList({ resolve: (p) => p.removed ?? [] }),
  }),
})

const QuoteRef = builder.objectRef<QuotePayload>('Quote').implement({
  description: 'Top of a book; null prices and sizes on an empty side.',
  fields: (t) => ({
    marketId: t.exposeString('marketId'),
    sequence: t.field({ type: 'SafeInt', description: 'The book sequence the quote was taken at.', resolve: (q) => q.sequence }),
    bid: t.field({ type: 'Decimal', nullable: true, resolve: (q) => q.bid }),
    bidSize: t.field({ type: 'Decimal', nullable: true, resolve: (q) => q.bidSize }),
    ask: t.field({ type: 'Decimal', nullable: true, resolve: (q) => q.ask }),
    askSize: t.field({ type: 'Decimal', nullable: true, resolve: (q) => q.askSize }),
  }),
})

const OrderbookEventRef = eventType('OrderbookEvent', 'OrderbookSnapshot first, then OrderbookDelta with contiguous sequences.', BookPayloadRef, { nullable: false })
const PriceEventRef = eventType('PriceEvent', 'PerpPrice, or ResyncRequired (null payload).', PriceRef, { nullable: true })
const MarketTradeEventRef = eventType('MarketTradeEvent', 'Trade, or ResyncRequired (null payload).', MarketTradeRef, { nullable: true })
const QuoteEventRef = eventType('QuoteEvent', 'Quote: the current top first, then every change of it.', QuoteRef, { nullable: false })
const BoardEventRef = eventType('OptionsBoardEvent', 'BoardSnapshot first, then BoardDelta.', BoardUpdateRef, {
  nullable: false,
  of: (f) => f.data as BoardUpdate,
})
const TicksEventRef = eventType('OptionTicksEvent', 'OptionSnapshot first, then OptionDelta with the changed ticks.', TicksRef, { nullable: false })
const OrderEventRef = eventType('OrderEvent', 'OrderUpdate: the order as it stands after each change; MmpTriggered (payload null, see mmpTriggered); or ResyncRequired.', OrderRef, {
  nullable: true,
  of: (f) => (f.env.eventType === 'MmpTriggered' ? null : (f.env.payload as OrderView)),
})

interface MmpTriggeredPayload {
  underlying: string
  reason: 'quantity' | 'delta'
  quantity: string
  delta: string
  trippedAt: string
  frozenUntil: string | null
  canceledIds: string[]
}

const MmpTriggeredRef = builder.objectRef<MmpTriggeredPayload>('MmpTriggered').implement({
  description: 'The caller\'s market-maker protection tripped: its protected orders on the underlying were cancelled in the same batch as the fill.',
  fields: (t) => ({
    underlying: t.exposeString('underlying'),
    reason: t.exposeString('reason', { description: '"quantity" or "delta": the limit exceeded.' }),
    quantity: t.field({ type: 'Decimal', description: 'Contracts filled in the window, the tripping fill included.', resolve: (p) => p.quantity }),
    delta: t.field({ type: 'Decimal', description: 'Net delta filled in the window.', resolve: (p) => p.delta }),
    trippedAt: t.field({ type: 'DateTime', resolve: (p) => new Date(p.trippedAt) }),
    frozenUntil: t.field({ type: 'DateTime', nullable: true, description: 'Null: until reset.', resolve: (p) => (p.frozenUntil ? new Date(p.frozenUntil) : null) }),
    canceledIds: t.exposeStringList('canceledIds'),
  }),
})

builder.objectField(OrderEventRef, 'mmpTriggered', (t) =>
  t.field({
    type: MmpTriggeredRef,
    nullable: true,
    description: 'On an MmpTriggered event; null otherwise.',
    resolve: (f) => (f.env.eventType === 'MmpTriggered' ? (f.env.payload as MmpTriggeredPayload) : null),
  }),
)
const FillEventRef = eventType('FillEvent', 'Fill: one of the caller\'s fills; or ResyncRequired.', TradeRef, {
  nullable: true,
  of: (f) => {
    const { tsMs, ...fill } = f.env.payload as FillPayload
    return { ...fill, type: 'trade', createdAt: new Date(tsMs).toISOString() }
  },
})
const BalanceEventRef = eventType('BalanceEvent', 'BalanceSnapshot first, then a BalanceUpdate snapshot after every change.', WalletBalanceRef, { nullable: false })

const iterate = (ctx: GraphQLContext, open: StreamOpener) => frameIterator(open, ctx.services.config.streamMaxBufferBytes)

function fromSeqOf(v: number | null | undefined): number | null {
  if (v === null || v === undefined) return null
  if (v < 0) throw new DomainError('INVALID_REQUEST', 'fromSeq must not be negative')
  return v
}

const read = { authScopes: { level: 'read' as const } }

builder.subscriptionFields((t) => ({
  orderbook: t.field({
    type: OrderbookEventRef,
    args: { marketId: t.arg.string({ required: true }) },
    subscribe: (_root, args, ctx) => iterate(ctx, ctx.services.streams.book(args.marketId)),
    resolve: (f) => f,
  }),
  prices: t.field({
    type: PriceEventRef,
    description: 'A perpetual\'s price (symbol = its market id, e.g. BTC-PERP).',
    args: { symbol: t.arg.string({ required: true }), fromSeq: t.arg({ type: 'SafeInt', description: 'Replay the events after this sequence first.' }) },
    subscribe: (_root, args, ctx) => iterate(ctx, ctx.services.streams.prices(args.symbol, fromSeqOf(args.fromSeq))),
    resolve: (f) => f,
  }),
  trades: t.field({
    type: MarketTradeEventRef,
    args: { marketId: t.arg.string({ required: true }), fromSeq: t.arg({ type: 'SafeInt', description: 'Replay the events after this sequence first.' }) },
    subscribe: (_root, args, ctx) => iterate(ctx, ctx.services.streams.trades(args.marketId, fromSeqOf(args.fromSeq))),
    resolve: (f) => f,
  }),
  quotes: t.field({
    type: QuoteEventRef,
    description: 'Top of book of a market, or of every live market of an underlying (symbol BTC).',
    args: { symbol: t.arg.string({ required: true }) },
    subscribe: (_root, args, ctx) => iterate(ctx, ctx.services.streams.quotes(args.symbol)),
    resolve: (f) => f,
  }),
  optionsBoard: t.field({
    type: BoardEventRef,
    args: { underlying: t.arg.string({ defaultValue: 'BTC' }) },
    subscribe: (_root, args, ctx) => iterate(ctx, ctx.services.streams.board(args.underlying ?? 'BTC')),
    resolve: (f) => f,
  }),
  optionTicks: t.field({
    type: TicksEventRef,
    args: { underlying: t.arg.string({ defaultValue: 'BTC' }) },
    subscribe: (_root, args, ctx) => iterate(ctx, ctx.services.streams.ticks(args.underlying ?? 'BTC')),
    resolve: (f) => f,
  }),
  myOrders: t.field({
    ...read,
    type: OrderEventRef,
    args: { fromSeq: t.arg({ type: 'SafeInt', description: 'Replay the events after this sequence first.' }) },
    subscribe: (_root, args, ctx) => iterate(ctx, ctx.services.streams.orders(principal(ctx), fromSeqOf(args.fromSeq))),
    resolve: (f) => f,
  }),
  myFills: t.field({
    ...read,
    type: FillEventRef,
    args: { fromSeq: t.arg({ type: 'SafeInt', description: 'Replay the events after this sequence first.' }) },
    subscribe: (_root, args, ctx) => iterate(ctx, ctx.services.streams.fills(principal(ctx), fromSeqOf(args.fromSeq))),
    resolve: (f) => f,
  }),
  myBalances: t.field({
    ...read,
    type: BalanceEventRef,
    subscribe: (_root, _args, ctx) => iterate(ctx, ctx.services.streams.balances(principal(ctx))),
    resolve: (f) => f,
  }),
}))
