// Subscriptions (DESIGN.md §2.5, §2.6): the documented streams as GraphQL, over graphql-ws and yoga's
// SSE alike. Every event is the spec's envelope (the StreamEvent interface) with a typed payload; the
// streams themselves live in src/streams. Private streams need scope read, are the caller's own, carry a
// per-user sequence and replay from `fromSeq` while the 5,000-frame buffer still holds it (otherwise a
// ResyncRequired event, whose payload is null, says to refetch).
import type { ObjectRef } from '@pothos/core'
import { DomainError } from '../../domain/errors.js'
import { EVENT_TYPES, type EventType } from '../../engine/events.js'
import type { BookPayload } from '../../engine/payloads.js'
import type { QuotePayload } from '../../streams/quoteFeed.js'
import type { BoardUpdate, OptionTick } from '../../streams/optionsFeed.js'
import type { Frame } from '../../streams/frame.js'
import type { StreamOpener } from '../../streams/subscriber.js'
import { frameIterator } from '../frameQueue.js'
import type { TradeView } from '../../store/accountReads.js'
import type { OrderView } from '../../domain/orders.js'
import { builder } from '../builder.js'
import type { GraphQLContext } from '../context.js'
import { WalletBalanceRef } from './account.js'
import { FAMILY_LIST, LevelRef } from './markets.js'
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

const EVENT_TYPE_DESCRIPTIONS: Record<EventType, string> = {
  OrderbookSnapshot: 'orderbook: the whole book, first on every subscription (and again after a gap the server could not fill).',
  OrderbookDelta: 'orderbook: the levels that changed; its eventSeq follows the previous event\'s by one.',
  PerpPrice: 'prices: a perpetual\'s new mark.',
  Trade: 'trades: a match on the market.',
  Quote: 'quotes: the top of a book, first as it stands, then after each change.',
  BoardSnapshot: 'optionsBoard: the whole board, first on every subscription.',
  BoardDelta: 'optionsBoard: the rows that changed and the rows that left.',
  OptionSnapshot: 'optionTicks: every option\'s tick, first on every subscription.',
  OptionDelta: 'optionTicks: the ticks that changed.',
  OrderUpdate: 'myOrders: one of the caller\'s orders after a change (placed, filled, modified, triggered, ended).',
  MmpTriggered: 'myOrders: the caller\'s market-maker protection tripped (payload null; see OrderEvent.mmpTriggered).',
  Fill: 'myFills: a fill of one of the caller\'s orders.',
  BalanceSnapshot: 'myBalances: the caller\'s balances, first on every subscription.',
  BalanceUpdate: 'myBalances: the caller\'s balances after a change.',
  QuoteSnapshot: 'The /ws/quotes `myQuotes` socket only: the caller\'s open quote orders.',
  QuoteUpdate: 'The /ws/quotes `myQuotes` socket only: one of the caller\'s quote orders after a change.',
  MarkPrice: 'Internal (marks of a family, feeding the options board); not sent to clients.',
  FundingSettled: 'Internal (a perpetual\'s funding period paid); not sent to clients: see me.trades rows of type FUNDING.',
  MarketStatus: 'Internal (a market halted, resumed or settled); not sent to clients: see Market.tradingStatus.',
  ResyncRequired: 'Event streams (prices, trades, myOrders, myFills): the events asked for (fromSeq) or missed left the 5,000-frame buffer; payload null: refetch the state, events continue after this eventSeq.',
}

const StreamEventTypeEnum = builder.enumType('StreamEventType', {
  description: 'The `eventType` of a stream envelope. The values are the wire strings themselves (PascalCase, as in SPEC.md and in `eventId`), the same on graphql-ws, SSE and the /ws sockets; each names the subscription that sends it.',
  values: Object.fromEntries(EVENT_TYPES.map((e) => [e, { value: e, description: EVENT_TYPE_DESCRIPTIONS[e] }])) as { [E in EventType]: { value: E; description: string } },
})

const UpdateKindEnum = builder.enumType('UpdateKind', {
  description: 'Whether an update replaces the state or changes it. The SSE and WebSocket payloads write `snapshot` or `delta`.',
  values: {
    SNAPSHOT: { value: 'snapshot', description: 'The whole state: replace what you hold.' },
    DELTA: { value: 'delta', description: 'Only what changed: apply it to the state of the previous sequence.' },
  } as const,
})

const PerpPriceKindEnum = builder.enumType('PerpPriceKind', {
  description: 'The kind of a PerpPrice payload (the wire writes `price`).',
  values: { PRICE: { value: 'price', description: 'A price tick.' } } as const,
})

const MmpTripReasonEnum = builder.enumType('MmpTripReason', {
  description: 'Which limit of market-maker protection a fill exceeded. The /ws/quotes payload writes `quantity` or `delta`.',
  values: {
    QUANTITY: { value: 'quantity', description: 'Contracts filled within the window exceeded quantityLimit.' },
    DELTA: { value: 'delta', description: 'The absolute net delta filled within the window exceeded deltaLimit.' },
  } as const,
})

const StreamEventRef = builder.interfaceRef<Frame>('StreamEvent').implement({
  description: 'The envelope of every stream message (SPEC.md "Events"), the same on every transport; `payload` is typed per subscription.',
  fields: (t) => ({
    eventId: t.string({ description: 'Unique id, `{eventType}-{eventSeq}-{engineTs}`.', resolve: (f) => f.env.eventId }),
    eventType: t.field({ type: StreamEventTypeEnum, description: 'What the event is: it decides what the payload holds.', resolve: (f) => f.env.eventType }),
    eventSeq: t.field({ type: 'SafeInt', description: 'Increases by one per event of the stream.', resolve: (f) => f.env.eventSeq }),
    engineTs: t.field({ type: 'SafeInt', description: 'Engine time, unix ms.', resolve: (f) => f.env.engineTs }),
    sourceTs: t.field({ type: 'SafeInt', nullable: true, description: 'Upstream time, unix ms; null for internal events.', resolve: (f) => f.env.sourceTs }),
    correlationId: t.string({ nullable: true, description: 'Correlation id of the request that caused the event.', resolve: (f) => f.env.correlationId }),
    causationId: t.string({ nullable: true, description: 'Id of the event that caused this one.', resolve: (f) => f.env.causationId }),
  }),
})

/** An event type: the envelope plus a payload of the given type (null on ResyncRequired when nullable). */
function eventType<P>(name: string, description: string, payload: ObjectRef<any, P>, opts: { nullable: boolean; payload: string; of?: (f: Frame) => P }) {
  const of = opts.of ?? ((f: Frame) => f.env.payload as P)
  return builder.objectRef<Frame>(name).implement({
    description,
    interfaces: [StreamEventRef],
    fields: (t) =>
      opts.nullable
        ? {
            payload: t.field({
              type: payload,
              nullable: true,
              description: `${opts.payload} Null on ResyncRequired.`,
              resolve: (f) => (f.env.eventType === 'ResyncRequired' ? null : of(f)) as never,
            }),
          }
        : { payload: t.field({ type: payload, description: opts.payload, resolve: (f) => of(f) as never }) },
  })
}

const BookSideEnum = builder.enumType('BookSide', {
  description: 'A side of a book. The SSE and WebSocket payloads write `bid` or `ask`.',
  values: { BID: { value: 'bid', description: 'The buy side.' }, ASK: { value: 'ask', description: 'The sell side.' } } as const,
})

const BookChangeRef = builder.objectRef<NonNullable<BookPayload['changes']>[number]>('OrderbookChange').implement({
  description: 'A level of the book as it now stands.',
  fields: (t) => ({
    side: t.field({ type: BookSideEnum, description: 'Which side.', resolve: (c) => c.side }),
    price: t.field({ type: 'Decimal', description: 'The level\'s price.', resolve: (c) => c.price }),
    size: t.field({ type: 'Decimal', description: 'The new quantity at the price; "0" removes the level.', resolve: (c) => c.size }),
  }),
})

const BookPayloadRef = builder.objectRef<BookPayload>('OrderbookUpdate').implement({
  description: 'A snapshot (bids and asks, best first) or a delta (changed levels); apply deltas in sequence order.',
  fields: (t) => ({
    kind: t.field({ type: UpdateKindEnum, description: 'SNAPSHOT (bids and asks set) or DELTA (changes set).', resolve: (p) => p.kind }),
    marketId: t.exposeString('marketId', { description: 'The market.' }),
    sequence: t.field({ type: 'SafeInt', description: 'The book\'s sequence after this update (the orderbook query\'s `sequence` counts the same changes).', resolve: (p) => p.sequence }),
    bids: t.field({ type: [LevelRef], nullable: true, description: 'Snapshots: the buy levels, best first. Null on a delta.', resolve: (p) => p.bids ?? null }),
    asks: t.field({ type: [LevelRef], nullable: true, description: 'Snapshots: the sell levels, best first. Null on a delta.', resolve: (p) => p.asks ?? null }),
    changes: t.field({ type: [BookChangeRef], nullable: true, description: 'Deltas: the levels that changed. Null on a snapshot.', resolve: (p) => p.changes ?? null }),
  }),
})

const PriceRef = builder.objectRef<PricePayload>('PerpPrice').implement({
  description: 'A perpetual\'s mark price tick (SPEC.md PerpPrice, /ws/perps/prices).',
  fields: (t) => ({
    kind: t.field({ type: PerpPriceKindEnum, description: 'Always PRICE.', resolve: (p) => p.kind }),
    symbol: t.exposeString('symbol', { description: 'The perpetual\'s market id, e.g. `BTC-PERP`.' }),
    price: t.field({ type: 'Decimal', description: 'The mark price, USDC.', resolve: (p) => p.price }),
    tsMs: t.field({ type: 'SafeInt', description: 'Engine time of the tick, unix ms.', resolve: (p) => p.tsMs }),
  }),
})

const MarketTradeRef = builder.objectRef<MarketTradePayload>('MarketTrade').implement({
  description: 'A match on a market, public: no users, the taker\'s side.',
  fields: (t) => ({
    tradeId: t.exposeString('tradeId', { description: 'The match\'s id.' }),
    marketId: t.exposeString('marketId', { description: 'The market.' }),
    price: t.field({ type: 'Decimal', description: 'The trade price (USDC; options: units of the underlying).', resolve: (p) => p.price }),
    quantity: t.field({ type: 'Decimal', description: 'The quantity traded, units of the base (options: contracts).', resolve: (p) => p.quantity }),
    takerSide: t.field({ type: OrderSideEnum, description: 'The arriving order\'s side: BUY lifted an ask, SELL hit a bid.', resolve: (p) => p.takerSide }),
    tsMs: t.field({ type: 'SafeInt', description: 'Engine time of the match, unix ms.', resolve: (p) => p.tsMs }),
  }),
})

const BoardUpdateRef = builder.objectRef<BoardUpdate>('OptionsBoardUpdate').implement({
  description: 'A snapshot (the whole board) or a delta (the board with only its changed rows, and the rows that left).',
  fields: (t) => ({
    kind: t.field({ type: UpdateKindEnum, description: 'SNAPSHOT (every row) or DELTA (changed rows only).', resolve: (u) => u.kind }),
    seq: t.field({ type: 'SafeInt', description: 'The board\'s sequence (the event\'s eventSeq).', resolve: (u) => u.seq }),
    board: t.field({ type: BoardRef, description: 'The board; on a delta its calls and puts hold only the rows that changed.', resolve: (u) => u.board }),
    removed: t.exposeStringList('removed', { description: 'Market ids no longer on the board.' }),
  }),
})

const OptionTickRef = builder.objectRef<OptionTick>('OptionTick').implement({
  description: 'One option\'s quotes and mark (SPEC.md OptionSnapshot/OptionDelta ticks). Prices in units of the underlying.',
  fields: (t) => ({
    instrumentId: t.exposeString('instrumentId', { description: 'The option market id.' }),
    bid: t.field({ type: 'Decimal', nullable: true, description: 'Null when that side of the book is empty.', resolve: (k) => k.bid }),
    ask: t.field({ type: 'Decimal', nullable: true, description: 'Null when that side of the book is empty.', resolve: (k) => k.ask }),
    mark: t.field({ type: 'Decimal', nullable: true, description: 'The theoretical mark (the board\'s markPrice); null without the marks it needs.', resolve: (k) => k.mark }),
    iv: t.field({ type: 'Decimal', nullable: true, description: 'The mark\'s volatility, a fraction per year; null with mark.', resolve: (k) => k.iv }),
    delta: t.field({ type: 'Decimal', nullable: true, description: 'The mark\'s delta per contract; null with mark.', resolve: (k) => k.delta }),
  }),
})

const TicksRef = builder.objectRef<TicksPayload>('OptionTicksUpdate').implement({
  description: 'Option ticks of an underlying: all of them (snapshot) or those that changed (delta).',
  fields: (t) => ({
    kind: t.field({ type: UpdateKindEnum, description: 'SNAPSHOT (every option) or DELTA (changed ticks only).', resolve: (p) => p.kind }),
    seq: t.field({ type: 'SafeInt', description: 'The feed\'s sequence (the event\'s eventSeq).', resolve: (p) => p.seq }),
    ticks: t.field({ type: [OptionTickRef], description: 'The ticks.', resolve: (p) => p.ticks }),
    removed: t.stringList({ description: 'Option ids no longer listed (expired); empty on a snapshot.', resolve: (p) => p.removed ?? [] }),
  }),
})

const QuoteRef = builder.objectRef<QuotePayload>('Quote').implement({
  description: 'Top of a book; null prices and sizes on an empty side.',
  fields: (t) => ({
    marketId: t.exposeString('marketId', { description: 'The market.' }),
    sequence: t.field({ type: 'SafeInt', description: 'The book sequence the quote was taken at.', resolve: (q) => q.sequence }),
    bid: t.field({ type: 'Decimal', nullable: true, description: 'The best bid price; null when no one bids.', resolve: (q) => q.bid }),
    bidSize: t.field({ type: 'Decimal', nullable: true, description: 'The quantity at the best bid; null with bid.', resolve: (q) => q.bidSize }),
    ask: t.field({ type: 'Decimal', nullable: true, description: 'The best ask price; null when no one offers.', resolve: (q) => q.ask }),
    askSize: t.field({ type: 'Decimal', nullable: true, description: 'The quantity at the best ask; null with ask.', resolve: (q) => q.askSize }),
  }),
})

const OrderbookEventRef = eventType('OrderbookEvent', 'OrderbookSnapshot first, then OrderbookDelta with contiguous sequences.', BookPayloadRef, {
  nullable: false,
  payload: 'The snapshot or the delta.',
})
const PriceEventRef = eventType('PriceEvent', 'PerpPrice, or ResyncRequired (null payload).', PriceRef, { nullable: true, payload: 'The price tick.' })
const MarketTradeEventRef = eventType('MarketTradeEvent', 'Trade, or ResyncRequired (null payload).', MarketTradeRef, { nullable: true, payload: 'The match.' })
const QuoteEventRef = eventType('QuoteEvent', 'Quote: the current top first, then every change of it.', QuoteRef, { nullable: false, payload: 'The top of the book.' })
const BoardEventRef = eventType('OptionsBoardEvent', 'BoardSnapshot first, then BoardDelta.', BoardUpdateRef, {
  nullable: false,
  payload: 'The board, whole or its changed rows.',
  of: (f) => f.data as BoardUpdate,
})
const TicksEventRef = eventType('OptionTicksEvent', 'OptionSnapshot first, then OptionDelta with the changed ticks.', TicksRef, { nullable: false, payload: 'The ticks.' })
const OrderEventRef = eventType('OrderEvent', 'OrderUpdate: the order as it stands after each change; MmpTriggered (payload null, see mmpTriggered); or ResyncRequired.', OrderRef, {
  nullable: true,
  payload: 'The order as it stands after the change; null on MmpTriggered.',
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
    underlying: t.exposeString('underlying', { description: 'The underlying whose protection tripped.' }),
    reason: t.field({ type: MmpTripReasonEnum, description: 'The limit exceeded.', resolve: (p) => p.reason }),
    quantity: t.field({ type: 'Decimal', description: 'Contracts filled in the window, the tripping fill included.', resolve: (p) => p.quantity }),
    delta: t.field({ type: 'Decimal', description: 'Net delta filled in the window.', resolve: (p) => p.delta }),
    trippedAt: t.field({ type: 'DateTime', description: 'When it tripped (the fill\'s time).', resolve: (p) => new Date(p.trippedAt) }),
    frozenUntil: t.field({ type: 'DateTime', nullable: true, description: 'When protected orders are accepted again; null: until resetMmp.', resolve: (p) => (p.frozenUntil ? new Date(p.frozenUntil) : null) }),
    canceledIds: t.exposeStringList('canceledIds', { description: 'The protected orders it cancelled (cancelReason MMP).' }),
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
  payload: 'The fill, as a trade history row of type TRADE (`createdAt` is the fill\'s time).',
  of: (f) => {
    const { tsMs, ...fill } = f.env.payload as FillPayload
    return { ...fill, type: 'trade', createdAt: new Date(tsMs).toISOString() }
  },
})
const BalanceEventRef = eventType('BalanceEvent', 'BalanceSnapshot first, then a BalanceUpdate snapshot after every change.', WalletBalanceRef, { nullable: false, payload: 'The balances as they stand.' })

const iterate = (ctx: GraphQLContext, open: StreamOpener) =>
  frameIterator(open, ctx.services.config.streamMaxBufferBytes, ctx.services.metrics.streams.slowConsumers.graphqlSse)

function fromSeqOf(v: number | null | undefined): number | null {
  if (v === null || v === undefined) return null
  if (v < 0) throw new DomainError('INVALID_REQUEST', 'fromSeq must not be negative')
  return v
}

const read = { authScopes: { level: 'read' as const } }

builder.subscriptionFields((t) => ({
  orderbook: t.field({
    type: OrderbookEventRef,
    description: 'A market\'s book: a snapshot, then deltas with contiguous sequences (on a gap, a new snapshot). SSE: /perps/book-stream (linear); WebSocket: /ws/feeds `orderbook` (options).',
    args: { marketId: t.arg.string({ required: true, description: 'Any market id, linear or option (MARKET_NOT_FOUND when unknown).' }) },
    subscribe: (_root, args, ctx) => iterate(ctx, ctx.services.streams.book(args.marketId)),
    resolve: (f) => f,
  }),
  prices: t.field({
    type: PriceEventRef,
    description: 'A perpetual\'s mark price ticks (symbol = its market id, e.g. BTC-PERP; another market type is INVALID_MARKET_ID). WebSocket: /ws/perps/prices `prices`.',
    args: {
      symbol: t.arg.string({ required: true, description: 'The perpetual\'s market id.' }),
      fromSeq: t.arg({ type: 'SafeInt', description: 'Replay the events after this sequence first (the eventSeq last seen); absent: live events only.' }),
    },
    subscribe: (_root, args, ctx) => iterate(ctx, ctx.services.streams.prices(args.symbol, fromSeqOf(args.fromSeq))),
    resolve: (f) => f,
  }),
  trades: t.field({
    type: MarketTradeEventRef,
    description: 'Every match on a market, public. WebSocket: /ws/feeds `fills` (options).',
    args: {
      marketId: t.arg.string({ required: true, description: 'Any market id.' }),
      fromSeq: t.arg({ type: 'SafeInt', description: 'Replay the events after this sequence first (the eventSeq last seen); absent: live events only.' }),
    },
    subscribe: (_root, args, ctx) => iterate(ctx, ctx.services.streams.trades(args.marketId, fromSeqOf(args.fromSeq))),
    resolve: (f) => f,
  }),
  quotes: t.field({
    type: QuoteEventRef,
    description: 'Top of book of a market, or of every live market of an underlying (symbol BTC). WebSocket: /ws/quotes `quotes`.',
    args: { symbol: t.arg.string({ required: true, description: `A market id, or a family (${FAMILY_LIST}) for all its live markets.` }) },
    subscribe: (_root, args, ctx) => iterate(ctx, ctx.services.streams.quotes(args.symbol)),
    resolve: (f) => f,
  }),
  optionsBoard: t.field({
    type: BoardEventRef,
    description: 'The options board (query optionsBoard), then its changed rows. SSE: /markets/board/stream.',
    args: { underlying: t.arg.string({ defaultValue: 'BTC', description: 'The underlying (BTC).' }) },
    subscribe: (_root, args, ctx) => iterate(ctx, ctx.services.streams.board(args.underlying ?? 'BTC')),
    resolve: (f) => f,
  }),
  optionTicks: t.field({
    type: TicksEventRef,
    description: 'Every option\'s bid, ask, mark, IV and delta, then the ticks that change. SSE: /stream/options/ticks.',
    args: { underlying: t.arg.string({ defaultValue: 'BTC', description: 'The underlying (BTC).' }) },
    subscribe: (_root, args, ctx) => iterate(ctx, ctx.services.streams.ticks(args.underlying ?? 'BTC')),
    resolve: (f) => f,
  }),
  myOrders: t.field({
    ...read,
    type: OrderEventRef,
    description: 'The caller\'s orders after every change, and market-maker protection trips. Needs a credential; ends when it does.',
    args: { fromSeq: t.arg({ type: 'SafeInt', description: 'Replay the events after this sequence first (the eventSeq last seen); absent: live events only.' }) },
    subscribe: (_root, args, ctx) => iterate(ctx, ctx.services.streams.orders(principal(ctx), fromSeqOf(args.fromSeq))),
    resolve: (f) => f,
  }),
  myFills: t.field({
    ...read,
    type: FillEventRef,
    description: 'The caller\'s fills. Needs a credential; ends when it does.',
    args: { fromSeq: t.arg({ type: 'SafeInt', description: 'Replay the events after this sequence first (the eventSeq last seen); absent: live events only.' }) },
    subscribe: (_root, args, ctx) => iterate(ctx, ctx.services.streams.fills(principal(ctx), fromSeqOf(args.fromSeq))),
    resolve: (f) => f,
  }),
  myBalances: t.field({
    ...read,
    type: BalanceEventRef,
    description: 'The caller\'s balances (me.balance), then again after every change. SSE: /portfolio/balances/stream. Needs a credential; ends when it does.',
    subscribe: (_root, _args, ctx) => iterate(ctx, ctx.services.streams.balances(principal(ctx))),
    resolve: (f) => f,
  }),
}))
