// Trading: orders, quotes, cancels, positions closing, and the order and trade types. Every mutation
// needs scope `trade` and counts against the caller's order-path rate limit.
import type { OrderView } from '../../domain/orders.js'
import type { Preview } from '../../engine/handlers/preview.js'
import type { QuotesReply } from '../../services/trading.js'
import type { TradeView } from '../../store/accountReads.js'
import { builder } from '../builder.js'
import type { GraphQLContext } from '../context.js'
import { chargeOrderRate } from '../orderRate.js'

export const OrderSideEnum = builder.enumType('OrderSide', { values: { BUY: { value: 'buy' }, SELL: { value: 'sell' } } as const })
export const OrderTypeEnum = builder.enumType('OrderType', { values: { LIMIT: { value: 'limit' }, MARKET: { value: 'market' } } as const })
export const TimeInForceEnum = builder.enumType('TimeInForce', {
  values: { GTC: { value: 'gtc' }, IOC: { value: 'ioc' }, FOK: { value: 'fok' } } as const,
})
export const MarginModeEnum = builder.enumType('MarginMode', { values: { CROSS: { value: 'cross' }, ISOLATED: { value: 'isolated' } } as const })
export const OrderStatusEnum = builder.enumType('OrderStatus', {
  values: { OPEN: { value: 'open' }, FILLED: { value: 'filled' }, CANCELED: { value: 'canceled' }, REJECTED: { value: 'rejected' } } as const,
})
export const MarketKindEnum = builder.enumType('MarketKind', {
  description: 'LINEAR: spot, perpetuals and futures; OPTION: options.',
  values: { LINEAR: { value: 'linear' }, OPTION: { value: 'option' } } as const,
})
const KIND_DESCRIPTION = 'Only markets (or orders) of this kind: one of the other kind is unknown (INVALID_MARKET_ID, ORDER_NOT_FOUND), as on the REST paths /perps/* (LINEAR) and the options paths (OPTION). Absent, the market id decides.'

const TradeRoleEnum = builder.enumType('TradeRole', { values: { TAKER: { value: 'taker' }, MAKER: { value: 'maker' } } as const })

/** The caller, guaranteed by the field's auth level. */
export function principal(ctx: GraphQLContext) {
  return ctx.principal!
}

export const OrderRef = builder.objectRef<OrderView>('Order').implement({
  fields: (t) => ({
    id: t.exposeString('id'),
    userId: t.exposeString('userId'),
    marketId: t.exposeString('marketId'),
    clientOrderId: t.exposeString('clientOrderId', { nullable: true }),
    side: t.field({ type: OrderSideEnum, resolve: (o) => o.side }),
    type: t.field({ type: OrderTypeEnum, resolve: (o) => o.type }),
    timeInForce: t.field({ type: TimeInForceEnum, resolve: (o) => o.timeInForce }),
    price: t.field({ type: 'Decimal', nullable: true, description: 'Limit price; null for a market order.', resolve: (o) => o.price }),
    quantity: t.field({ type: 'Decimal', resolve: (o) => o.quantity }),
    filledQuantity: t.field({ type: 'Decimal', resolve: (o) => o.filledQuantity }),
    status: t.field({ type: OrderStatusEnum, resolve: (o) => o.status }),
    postOnly: t.exposeBoolean('postOnly'),
    reduceOnly: t.exposeBoolean('reduceOnly'),
    marginMode: t.field({ type: MarginModeEnum, nullable: true, resolve: (o) => o.marginMode }),
    stopPrice: t.field({ type: 'Decimal', nullable: true, resolve: (o) => o.stopPrice }),
    takeProfitPrice: t.field({ type: 'Decimal', nullable: true, resolve: (o) => o.takeProfitPrice }),
    stopLossPrice: t.field({ type: 'Decimal', nullable: true, resolve: (o) => o.stopLossPrice }),
    triggeredAt: t.field({ type: 'DateTime', nullable: true, resolve: (o) => (o.triggeredAt ? new Date(o.triggeredAt) : null) }),
    parentOrderId: t.exposeString('parentOrderId', {
      nullable: true,
      description: 'On a take-profit or stop-loss order: the id of the order it was attached to; null otherwise.',
    }),
    quoteId: t.exposeString('quoteId', { nullable: true }),
    cancelReason: t.exposeString('cancelReason', {
      nullable: true,
      description: 'Why it ended: user, ioc_unfilled, fok_unfilled, market_unfilled, self_trade, replaced_by_quote, dead_man_switch.',
    }),
    createdAt: t.field({ type: 'DateTime', resolve: (o) => new Date(o.createdAt) }),
    updatedAt: t.field({ type: 'DateTime', resolve: (o) => new Date(o.updatedAt) }),
  }),
})

export const TradeRef = builder.objectRef<TradeView>('Trade').implement({
  description: 'A row of the caller\'s trade history: a fill, a funding payment, or a settlement at expiry.',
  fields: (t) => ({
    tradeId: t.exposeString('tradeId'),
    marketId: t.exposeString('marketId'),
    orderId: t.exposeString('orderId', { nullable: true }),
    side: t.field({ type: OrderSideEnum, resolve: (f) => f.side }),
    price: t.field({ type: 'Decimal', resolve: (f) => f.price }),
    quantity: t.field({ type: 'Decimal', resolve: (f) => f.quantity }),
    fee: t.field({ type: 'Decimal', resolve: (f) => f.fee }),
    feeBps: t.field({ type: 'Decimal', resolve: (f) => f.feeBps }),
    role: t.field({ type: TradeRoleEnum, nullable: true, resolve: (f) => f.role }),
    premium: t.field({
      type: 'Decimal',
      nullable: true,
      description: 'Option fills: the USDC-T paid by the buyer to the seller (price × quantity × indexPrice, rounded once); null otherwise.',
      resolve: (f) => f.premium,
    }),
    indexPrice: t.field({ type: 'Decimal', nullable: true, description: 'Option fills: the underlying\'s spot index at the fill; null otherwise.', resolve: (f) => f.indexPrice }),
    type: t.exposeString('type', { description: '"trade" (a fill), "liquidation" (a fill of a liquidation order), "funding", "settlement".' }),
    amount: t.field({ type: 'Decimal', nullable: true, description: 'Funding and settlement: USDC-T credited, negative when paid.', resolve: (f) => f.amount }),
    fundingRate: t.field({ type: 'Decimal', nullable: true, resolve: (f) => f.fundingRate }),
    createdAt: t.field({ type: 'DateTime', resolve: (f) => new Date(f.createdAt) }),
  }),
})

const CancelAllRef = builder.objectRef<{ canceled: number; ids: string[] }>('CancelAllResult').implement({
  fields: (t) => ({ canceled: t.exposeInt('canceled'), ids: t.exposeStringList('ids') }),
})

const QuoteLegRef = builder.objectRef<QuotesReply['results'][number]>('QuoteLeg').implement({
  fields: (t) => ({
    side: t.field({ type: OrderSideEnum, resolve: (l) => l.side }),
    response: t.field({ type: OrderRef, resolve: (l) => l.response }),
  }),
})

const QuoteResultRef = builder.objectRef<QuotesReply>('QuoteResult').implement({
  fields: (t) => ({
    marketId: t.exposeString('marketId'),
    quoteId: t.exposeString('quoteId', { nullable: true }),
    canceledIds: t.stringList({ description: 'Orders cancelled first (bulk quotes with cancelAll).', resolve: (q) => q.canceled }),
    results: t.field({ type: [QuoteLegRef], resolve: (q) => q.results }),
  }),
})

const PlaceOrderInput = builder.inputType('PlaceOrderInput', {
  fields: (t) => ({
    marketId: t.string({ required: true }),
    kind: t.field({ type: MarketKindEnum, description: KIND_DESCRIPTION }),
    clientOrderId: t.string({ description: 'Idempotency key, unique per user for all time.' }),
    type: t.field({ type: OrderTypeEnum, defaultValue: 'limit' }),
    side: t.field({ type: OrderSideEnum, required: true }),
    price: t.field({ type: 'Decimal', description: 'Required for a limit order; a market order ignores it.' }),
    quantity: t.field({ type: 'Decimal', required: true }),
    timeInForce: t.field({ type: TimeInForceEnum, defaultValue: 'gtc' }),
    postOnly: t.boolean({ defaultValue: false }),
    reduceOnly: t.boolean({ defaultValue: false }),
    marginMode: t.field({ type: MarginModeEnum, defaultValue: 'cross', description: 'Linear orders; an option order takes CROSS only (it has no margin mode).' }),
    stopPrice: t.field({ type: 'Decimal', description: 'Linear orders only.' }),
    takeProfitPrice: t.field({ type: 'Decimal', description: 'Linear orders only.' }),
    stopLossPrice: t.field({ type: 'Decimal', description: 'Linear orders only.' }),
    mmp: t.boolean({ defaultValue: false, description: 'Option orders only: under market-maker protection, as quotes are (see setMmpConfig).' }),
  }),
})

const QuoteSideInput = builder.inputType('QuoteSideInput', {
  fields: (t) => ({
    price: t.field({ type: 'Decimal', required: true }),
    quantity: t.field({ type: 'Decimal', required: true }),
    clientOrderId: t.string(),
  }),
})

const PlaceQuoteInput = builder.inputType('PlaceQuoteInput', {
  fields: (t) => ({
    marketId: t.string({ required: true }),
    kind: t.field({ type: MarketKindEnum, description: KIND_DESCRIPTION }),
    quoteId: t.string(),
    bid: t.field({ type: QuoteSideInput }),
    ask: t.field({ type: QuoteSideInput }),
  }),
})

const BulkQuoteInput = builder.inputType('BulkQuoteInput', {
  fields: (t) => ({
    side: t.field({ type: OrderSideEnum, required: true }),
    price: t.field({ type: 'Decimal', required: true }),
    quantity: t.field({ type: 'Decimal', required: true }),
    clientOrderId: t.string(),
  }),
})

const PlaceBulkQuotesInput = builder.inputType('PlaceBulkQuotesInput', {
  fields: (t) => ({
    marketId: t.string({ required: true }),
    kind: t.field({ type: MarketKindEnum, description: KIND_DESCRIPTION }),
    quoteId: t.string({ required: true }),
    cancelAll: t.boolean({ defaultValue: false, description: 'Cancel the caller\'s orders on the market first.' }),
    amend: t.boolean({
      defaultValue: false,
      description: 'With cancelAll: amend the caller\'s unfilled quote orders of this quoteId in place (same ids) instead of replacing them; the rest are cancelled or placed new.',
    }),
    quotes: t.field({ type: [BulkQuoteInput], required: true }),
  }),
})

const PreviewRef = builder.objectRef<Preview>('PreviewResult').implement({
  description: 'What placing the order would do, checked exactly as placement checks it, without placing it.',
  fields: (t) => ({
    approved: t.exposeBoolean('approved'),
    reason: t.exposeString('reason', { nullable: true, description: 'The error code placement would answer, when not approved.' }),
    marginImpact: t.field({
      type: builder.objectRef<Preview['marginImpact']>('MarginImpact').implement({
        fields: (f) => ({
          initialMargin: f.field({ type: 'Decimal', resolve: (m) => m.initialMargin }),
          maintenanceMargin: f.field({ type: 'Decimal', resolve: (m) => m.maintenanceMargin }),
        }),
      }),
      resolve: (p) => p.marginImpact,
    }),
    estimatedFee: t.field({ type: 'Decimal', resolve: (p) => p.estimatedFee }),
    liquidationPrice: t.field({ type: 'Decimal', nullable: true, description: 'Estimated, other positions and marks held still.', resolve: (p) => p.liquidationPrice }),
  }),
})

const trade = { authScopes: { level: 'trade' as const } }

builder.mutationFields((t) => ({
  previewOrder: t.field({
    nullable: true,
    ...trade,
    type: PreviewRef,
    args: { input: t.arg({ type: PlaceOrderInput, required: true }) },
    resolve: (_root, { input: { kind, ...input } }, ctx) => ctx.services.trading.previewOrder(principal(ctx), input, ctx.correlationId, kind),
  }),
  placeOrder: t.field({
    nullable: true,
    ...trade,
    type: OrderRef,
    description: 'One mutation for every product, linear and options: the market id decides.',
    args: { input: t.arg({ type: PlaceOrderInput, required: true }) },
    resolve: async (_root, { input: { kind, ...input } }, ctx) => {
      await chargeOrderRate(ctx)
      return ctx.services.trading.placeOrder(principal(ctx), input, ctx.correlationId, kind)
    },
  }),
  cancelOrder: t.field({
    nullable: true,
    ...trade,
    type: OrderRef,
    args: { id: t.arg.string({ required: true }), kind: t.arg({ type: MarketKindEnum, description: KIND_DESCRIPTION }) },
    resolve: async (_root, { id, kind }, ctx) => {
      await chargeOrderRate(ctx)
      return ctx.services.trading.cancelOrder(principal(ctx), id, ctx.correlationId, kind)
    },
  }),
  modifyOrder: t.field({
    nullable: true,
    ...trade,
    type: OrderRef,
    description: 'New price and/or new total quantity. Only lowering the quantity keeps time priority.',
    args: {
      id: t.arg.string({ required: true }),
      price: t.arg({ type: 'Decimal' }),
      quantity: t.arg({ type: 'Decimal' }),
      kind: t.arg({ type: MarketKindEnum, description: KIND_DESCRIPTION }),
    },
    resolve: async (_root, { id, price, quantity, kind }, ctx) => {
      await chargeOrderRate(ctx)
      return ctx.services.trading.modifyOrder(principal(ctx), id, { price, quantity }, ctx.correlationId, kind)
    },
  }),
  cancelAllOrders: t.field({
    nullable: true,
    ...trade,
    type: CancelAllRef,
    description: 'Cancels the caller\'s open orders, all of them or those matching every filter given; with `kind`, only orders of that kind.',
    args: { marketId: t.arg.string(), quoteId: t.arg.string(), clientOrderId: t.arg.string(), kind: t.arg({ type: MarketKindEnum, description: KIND_DESCRIPTION }) },
    resolve: async (_root, { kind, ...args }, ctx) => {
      await chargeOrderRate(ctx)
      return ctx.services.trading.cancelAll(principal(ctx), args, ctx.correlationId, kind)
    },
  }),
  placeQuote: t.field({
    nullable: true,
    ...trade,
    type: QuoteResultRef,
    description: 'A post-only quote: both sides rest or neither.',
    args: { input: t.arg({ type: PlaceQuoteInput, required: true }) },
    resolve: async (_root, { input: { kind, ...input } }, ctx) => {
      await chargeOrderRate(ctx)
      return ctx.services.trading.placeQuote(principal(ctx), input, ctx.correlationId, kind)
    },
  }),
  placeBulkQuotes: t.field({
    nullable: true,
    ...trade,
    type: QuoteResultRef,
    description: 'Optionally cancels the caller\'s orders on the market, then posts every quote: all or none. Counts as one request.',
    args: { input: t.arg({ type: PlaceBulkQuotesInput, required: true }) },
    resolve: async (_root, { input: { kind, ...input } }, ctx) => {
      await chargeOrderRate(ctx)
      return ctx.services.trading.placeBulkQuotes(principal(ctx), input, ctx.correlationId, kind)
    },
  }),
  closePosition: t.field({
    nullable: true,
    ...trade,
    type: OrderRef,
    description: 'A reduce-only market order for the whole linear position, or for `quantity` of it.',
    args: { marketId: t.arg.string({ required: true }), quantity: t.arg({ type: 'Decimal' }) },
    resolve: async (_root, { marketId, quantity }, ctx) => {
      await chargeOrderRate(ctx)
      return ctx.services.trading.closePosition(principal(ctx), marketId, quantity, ctx.correlationId)
    },
  }),
}))
