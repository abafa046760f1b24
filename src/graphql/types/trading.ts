// Trading: orders, quotes, cancels, positions closing, and the order and trade types. Every mutation
// needs scope `trade` and counts against the caller's order-path rate limit.
import { ERRORS, type ErrorCode } from '../../domain/errors.js'
import { CANCEL_REASONS, type CancelReason, type OrderView } from '../../domain/orders.js'
import type { Preview } from '../../engine/handlers/preview.js'
import type { QuotesReply } from '../../services/trading.js'
import type { TradeView } from '../../store/accountReads.js'
import { builder } from '../builder.js'
import type { GraphQLContext } from '../context.js'
import { chargeOrderRate } from '../orderRate.js'
import { ErrorCodeEnum, errorMeaning } from './errorCodes.js'

export const OrderSideEnum = builder.enumType('OrderSide', {
  description: 'The side of an order or a trade. REST writes `buy` or `sell`.',
  values: {
    BUY: { value: 'buy', description: 'Buys the base (options: contracts), paying the quote.' },
    SELL: { value: 'sell', description: 'Sells the base (options: writes or sells contracts).' },
  } as const,
})
export const OrderTypeEnum = builder.enumType('OrderType', {
  description: 'How an order is priced. REST writes `limit` or `market`.',
  values: {
    LIMIT: { value: 'limit', description: 'Trades at its price or better; the rest rests in the book (as its timeInForce says).' },
    MARKET: { value: 'market', description: 'Trades now at the best prices up to the price band\'s edge; what cannot fill is cancelled (market_unfilled).' },
  } as const,
})
export const TimeInForceEnum = builder.enumType('TimeInForce', {
  description: 'How long an order may wait. REST writes `gtc`, `ioc` or `fok`; another string is INVALID_TIME_IN_FORCE there.',
  values: {
    GTC: { value: 'gtc', description: 'Good till cancelled: rests until filled or cancelled (a market order treats it as IOC).' },
    IOC: { value: 'ioc', description: 'Immediate or cancel: fills what it can now, cancels the rest (ioc_unfilled).' },
    FOK: { value: 'fok', description: 'Fill or kill: fills completely now or is cancelled with nothing filled (fok_unfilled).' },
  } as const,
})
export const MarginModeEnum = builder.enumType('MarginMode', {
  description: 'How a linear position is margined. REST writes `cross` or `isolated`.',
  values: {
    CROSS: { value: 'cross', description: 'Margined by the whole perps bucket, netted across the family\'s positions.' },
    ISOLATED: { value: 'isolated', description: 'Margined by collateral set aside for this position alone (Position.isolatedMargin).' },
  } as const,
})
export const OrderStatusEnum = builder.enumType('OrderStatus', {
  description: 'Where an order stands. REST writes these in lower case.',
  values: {
    OPEN: { value: 'open', description: 'Resting in the book, or a stop order waiting for its trigger; may be partly filled.' },
    FILLED: { value: 'filled', description: 'Filled completely.' },
    CANCELED: { value: 'canceled', description: 'Ended before filling completely (cancelReason says why); filledQuantity is what it filled.' },
    REJECTED: { value: 'rejected', description: 'A conditional order refused when it triggered; cancelReason is the error code.' },
  } as const,
})
export const MarketKindEnum = builder.enumType('MarketKind', {
  description: 'LINEAR: spot, perpetuals and futures (the REST paths under /perps); OPTION: options (the REST paths at the root).',
  values: {
    LINEAR: { value: 'linear', description: 'Spot, perpetuals and quarterly futures.' },
    OPTION: { value: 'option', description: 'Options.' },
  } as const,
})
const KIND_DESCRIPTION = 'Only markets (or orders) of this kind: one of the other kind is unknown (INVALID_MARKET_ID, ORDER_NOT_FOUND), as on the REST paths /perps/* (LINEAR) and the options paths (OPTION). Absent, the market id decides.'

const TradeRoleEnum = builder.enumType('TradeRole', {
  description: 'Which side of a match a fill was. REST writes `taker` or `maker`.',
  values: {
    TAKER: { value: 'taker', description: 'The arriving order that traded against the book (taker fee).' },
    MAKER: { value: 'maker', description: 'The resting order that was traded against (maker fee).' },
  } as const,
})

const TradeTypeEnum = builder.enumType('TradeType', {
  description: 'What a row of trade history records. REST writes these in lower case.',
  values: {
    TRADE: { value: 'trade', description: 'A fill of one of the caller\'s orders.' },
    LIQUIDATION: { value: 'liquidation', description: 'A fill of the liquidation order the exchange placed on the caller\'s position.' },
    FUNDING: { value: 'funding', description: 'A funding payment on a perpetual position: amount is what was credited (negative: paid), fundingRate the period\'s rate, price the mark, quantity the position.' },
    SETTLEMENT: { value: 'settlement', description: 'A futures or options position settled at expiry: price is the settlement price, amount the P&L credited (negative: paid).' },
  } as const satisfies Record<string, { value: TradeView['type']; description: string }>,
})

const CANCEL_REASON_DESCRIPTIONS: Record<CancelReason, string> = {
  user: 'Cancelled by its owner (cancelOrder, cancelAllOrders), or its take-profit/stop-loss sibling was.',
  ioc_unfilled: 'The unfilled rest of an IOC order.',
  fok_unfilled: 'A FOK order that could not fill completely (nothing filled).',
  market_unfilled: 'The unfilled rest of a market order (the book ran out within the price band).',
  self_trade: 'Resting, it would have traded with an arriving order of the same user: cancelled, and matching went on past it.',
  replaced_by_quote: 'Replaced by a bulk quote with cancelAll (or left over by its amend).',
  dead_man_switch: 'Cancelled by the dead man\'s switch (cancelAllAfter) running out.',
  mmp: 'Cancelled when its owner\'s market-maker protection tripped (or, a protected GTC order, its own fills tripped it before it could rest).',
  oco: 'The other half of a take-profit/stop-loss pair fired.',
  reduce_only: 'A reduce-only order that the position no longer left anything to close.',
  insufficient_funds: 'A resting option bid whose owner could no longer pay its premium and fee when a sell reached it.',
  expired: 'Its market expired.',
  liquidation: 'Cancelled when its account was liquidated.',
}

export const CancelReasonEnum = builder.enumType('CancelReason', {
  description: 'Why an order ended before filling completely; REST writes the lower-case reasons in lower case (`ioc_unfilled`) and error codes as they are. A conditional order refused when it triggered carries the refusal\'s error code (status REJECTED).',
  values: {
    ...(Object.fromEntries(CANCEL_REASONS.map((r) => [r.toUpperCase(), { value: r, description: CANCEL_REASON_DESCRIPTIONS[r] }])) as Record<Uppercase<CancelReason>, { value: CancelReason; description: string }>),
    ...(Object.fromEntries((Object.keys(ERRORS) as ErrorCode[]).map((c) => [c, { value: c, description: `A conditional order refused when it triggered (REJECTED) with this error: ${errorMeaning(c)}` }])) as Record<ErrorCode, { value: ErrorCode; description: string }>),
  },
})

/** The caller, guaranteed by the field's auth level. */
export function principal(ctx: GraphQLContext) {
  return ctx.principal!
}

const ORDER_PRICE = 'USDC per unit of the base; options: units of the underlying per contract'

export const OrderRef = builder.objectRef<OrderView>('Order').implement({
  description: 'An order of the caller, linear or option, as it stands (REST returns the same object, enums in lower case). Quantities are in units of the base (options: contracts); prices in USDC (options: units of the underlying).',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The order id, a ULID (REST paths /orders/{id}/… and /perps/orders/{id}/… take it).' }),
    userId: t.exposeString('userId', { description: 'Its owner, a ULID.' }),
    marketId: t.exposeString('marketId', { description: 'The market.' }),
    clientOrderId: t.exposeString('clientOrderId', { nullable: true, description: 'The caller\'s idempotency key; null when none was given.' }),
    side: t.field({ type: OrderSideEnum, description: 'Buy or sell.', resolve: (o) => o.side }),
    type: t.field({ type: OrderTypeEnum, description: 'Limit or market.', resolve: (o) => o.type }),
    timeInForce: t.field({ type: TimeInForceEnum, description: 'How long it may rest.', resolve: (o) => o.timeInForce }),
    price: t.field({ type: 'Decimal', nullable: true, description: `Limit price (${ORDER_PRICE}); null for a market order.`, resolve: (o) => o.price }),
    quantity: t.field({ type: 'Decimal', description: 'The order\'s total quantity (after any modify), filled part included.', resolve: (o) => o.quantity }),
    filledQuantity: t.field({ type: 'Decimal', description: 'How much has filled; "0" when nothing has.', resolve: (o) => o.filledQuantity }),
    status: t.field({ type: OrderStatusEnum, description: 'Open, filled, canceled or rejected.', resolve: (o) => o.status }),
    postOnly: t.exposeBoolean('postOnly', { description: 'Refused (POST_ONLY_WOULD_CROSS) rather than trade on arrival.' }),
    reduceOnly: t.exposeBoolean('reduceOnly', { description: 'May only shrink the position; cut or cancelled (reduce_only) when the position no longer covers it.' }),
    marginMode: t.field({ type: MarginModeEnum, nullable: true, description: 'Linear orders: cross or isolated. Null for option orders.', resolve: (o) => o.marginMode }),
    stopPrice: t.field({
      type: 'Decimal',
      nullable: true,
      description: 'A stop order: it waits outside the book until the mark reaches this price (a buy above the mark, a sell below), then is placed. Null otherwise.',
      resolve: (o) => o.stopPrice,
    }),
    takeProfitPrice: t.field({
      type: 'Decimal',
      nullable: true,
      description: 'When this order first fills, a reduce-only take-profit order triggering at this price is attached (with stopLossPrice, one cancels the other). Null when none.',
      resolve: (o) => o.takeProfitPrice,
    }),
    stopLossPrice: t.field({
      type: 'Decimal',
      nullable: true,
      description: 'When this order first fills, a reduce-only stop-loss order triggering at this price is attached. Null when none.',
      resolve: (o) => o.stopLossPrice,
    }),
    triggeredAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When a stop, take-profit or stop-loss order triggered; null for other orders and before it triggers.',
      resolve: (o) => o.triggeredAt || null,
    }),
    parentOrderId: t.exposeString('parentOrderId', {
      nullable: true,
      description: 'On a take-profit or stop-loss order: the id of the order it was attached to; null otherwise.',
    }),
    quoteId: t.exposeString('quoteId', { nullable: true, description: 'The quoteId of the quote or bulk quote that placed it; null for other orders.' }),
    cancelReason: t.field({
      type: CancelReasonEnum,
      nullable: true,
      description: 'Why it ended before filling completely (CANCELED), or the error code that refused it when it triggered (REJECTED); null while open or once filled.',
      resolve: (o) => o.cancelReason,
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was accepted.', resolve: (o) => o.createdAt }),
    updatedAt: t.field({ type: 'DateTime', description: 'When it last changed (fill, modify, trigger, end).', resolve: (o) => o.updatedAt }),
  }),
})

export const TradeRef = builder.objectRef<TradeView>('Trade').implement({
  description: 'A row of the caller\'s trade history: a fill, a funding payment, or a settlement at expiry (`type` says which). Money in USDC-T; prices in USDC (option fills: units of the underlying).',
  fields: (t) => ({
    tradeId: t.exposeString('tradeId', { description: 'The row\'s id; ids sort by time.' }),
    marketId: t.exposeString('marketId', { description: 'The market.' }),
    orderId: t.exposeString('orderId', { nullable: true, description: 'The order that filled; null for funding and settlement rows.' }),
    side: t.field({ type: OrderSideEnum, description: 'Fills: the order\'s side. Funding: BUY for a long position, SELL for a short. Settlement: the side that closed the position.', resolve: (f) => f.side }),
    price: t.field({ type: 'Decimal', description: 'Fills: the trade price. Funding: the mark it was paid at. Settlement: the settlement price.', resolve: (f) => f.price }),
    quantity: t.field({ type: 'Decimal', description: 'Fills: the quantity filled. Funding: the position. Settlement: the quantity closed. Units of the base (options: contracts).', resolve: (f) => f.quantity }),
    fee: t.field({ type: 'Decimal', description: 'The fee paid, USDC-T ("0" for funding and settlement).', resolve: (f) => f.fee }),
    feeBps: t.field({ type: 'Decimal', description: 'The fee rate applied, basis points.', resolve: (f) => f.feeBps }),
    role: t.field({ type: TradeRoleEnum, nullable: true, description: 'Fills: taker or maker. Null for funding and settlement rows.', resolve: (f) => f.role }),
    premium: t.field({
      type: 'Decimal',
      nullable: true,
      description: 'Option fills: the USDC-T paid by the buyer to the seller (price × quantity × indexPrice, rounded once); null otherwise.',
      resolve: (f) => f.premium,
    }),
    indexPrice: t.field({ type: 'Decimal', nullable: true, description: 'Option fills: the underlying\'s spot index at the fill (USDC); null otherwise.', resolve: (f) => f.indexPrice }),
    type: t.field({ type: TradeTypeEnum, description: 'What the row records: a fill, a liquidation fill, funding or a settlement.', resolve: (f) => f.type }),
    amount: t.field({ type: 'Decimal', nullable: true, description: 'Funding and settlement: USDC-T credited, negative when paid. Null for fills (REST leaves it out there).', resolve: (f) => f.amount }),
    fundingRate: t.field({ type: 'Decimal', nullable: true, description: 'Funding rows: the period\'s rate, a fraction ("0.0001" = 1 bp; positive: longs pay). Null otherwise.', resolve: (f) => f.fundingRate }),
    createdAt: t.field({ type: 'DateTime', description: 'When it happened.', resolve: (f) => new Date(f.createdAt) }),
  }),
})

const CancelAllRef = builder.objectRef<{ canceled: number; ids: string[] }>('CancelAllResult').implement({
  description: 'What a cancel-all ended.',
  fields: (t) => ({
    canceled: t.exposeInt('canceled', { description: 'How many orders were cancelled.' }),
    ids: t.exposeStringList('ids', { description: 'Their ids.' }),
  }),
})

const QuoteLegRef = builder.objectRef<QuotesReply['results'][number]>('QuoteLeg').implement({
  description: 'One side of a quote and the order it placed.',
  fields: (t) => ({
    side: t.field({ type: OrderSideEnum, description: 'BUY for the bid, SELL for the ask.', resolve: (l) => l.side }),
    response: t.field({ type: OrderRef, description: 'The order placed for it (a post-only GTC limit order).', resolve: (l) => l.response }),
  }),
})

const QuoteResultRef = builder.objectRef<QuotesReply>('QuoteResult').implement({
  description: 'The orders a quote or bulk quote placed (REST: `{marketId, quoteId, results}`; bulk adds `canceled` and `canceledIds`).',
  fields: (t) => ({
    marketId: t.exposeString('marketId', { description: 'The market quoted.' }),
    quoteId: t.exposeString('quoteId', { nullable: true, description: 'The quoteId the orders carry; null when none was given.' }),
    canceledIds: t.stringList({ description: 'Orders cancelled first (bulk quotes with cancelAll); empty otherwise.', resolve: (q) => q.canceled }),
    results: t.field({ type: [QuoteLegRef], description: 'One entry per side quoted, in request order.', resolve: (q) => q.results }),
  }),
})

const PlaceOrderInput = builder.inputType('PlaceOrderInput', {
  description: 'An order, with the REST request\'s field names (SPEC.md "Order request fields"). Decimals are strings: prices in USDC (options: units of the underlying), quantities in units of the base (options: contracts).',
  fields: (t) => ({
    marketId: t.string({ required: true, description: 'The market; an unknown one is INVALID_MARKET_ID.' }),
    kind: t.field({ type: MarketKindEnum, description: KIND_DESCRIPTION }),
    clientOrderId: t.string({ description: 'Idempotency key, unique per user for all time (1–64 of A–Z a–z 0–9 _ . : -); a reused one is DUPLICATE_CLIENT_ORDER_ID with the existing order in details.existingOrder.' }),
    type: t.field({ type: OrderTypeEnum, defaultValue: 'limit', description: 'Limit (default) or market.' }),
    side: t.field({ type: OrderSideEnum, required: true, description: 'Buy or sell.' }),
    price: t.field({ type: 'Decimal', description: 'Required for a limit order: a multiple of the tick within the price band (INVALID_PRICE otherwise); a market order ignores it.' }),
    quantity: t.field({ type: 'Decimal', required: true, description: 'Positive, at least the minimum, a multiple of the step (INVALID_QUANTITY otherwise).' }),
    timeInForce: t.field({ type: TimeInForceEnum, defaultValue: 'gtc', description: 'GTC (default), IOC or FOK.' }),
    postOnly: t.boolean({ defaultValue: false, description: 'Refuse the order (POST_ONLY_WOULD_CROSS) rather than trade on arrival; GTC limit orders only.' }),
    reduceOnly: t.boolean({ defaultValue: false, description: 'Only shrink the position (REDUCE_ONLY_VIOLATION otherwise).' }),
    marginMode: t.field({ type: MarginModeEnum, defaultValue: 'cross', description: 'Linear orders; an option order takes CROSS only (it has no margin mode).' }),
    stopPrice: t.field({ type: 'Decimal', description: 'Linear orders only: makes it a stop order, placed when the mark reaches this price (a buy stop above the mark, a sell stop below).' }),
    takeProfitPrice: t.field({ type: 'Decimal', description: 'Linear orders only: attach a reduce-only take-profit at this price when the order first fills.' }),
    stopLossPrice: t.field({ type: 'Decimal', description: 'Linear orders only: attach a reduce-only stop-loss at this price when the order first fills.' }),
    mmp: t.boolean({ defaultValue: false, description: 'Option orders only: under market-maker protection, as quotes are (see setMmpConfig).' }),
  }),
})

const QuoteSideInput = builder.inputType('QuoteSideInput', {
  description: 'One side of a quote: a post-only GTC limit order.',
  fields: (t) => ({
    price: t.field({ type: 'Decimal', required: true, description: 'Limit price, a multiple of the tick.' }),
    quantity: t.field({ type: 'Decimal', required: true, description: 'Quantity, a multiple of the step.' }),
    clientOrderId: t.string({ description: 'Idempotency key of this side\'s order, unique per user for all time.' }),
  }),
})

const PlaceQuoteInput = builder.inputType('PlaceQuoteInput', {
  description: 'A one- or two-sided quote (REST POST /quotes, /perps/quotes).',
  fields: (t) => ({
    marketId: t.string({ required: true, description: 'The market.' }),
    kind: t.field({ type: MarketKindEnum, description: KIND_DESCRIPTION }),
    quoteId: t.string({ description: 'A label the orders carry (Order.quoteId); bulk quotes and cancel-all select by it.' }),
    bid: t.field({ type: QuoteSideInput, description: 'The buy side; omit for an ask-only quote.' }),
    ask: t.field({ type: QuoteSideInput, description: 'The sell side; omit for a bid-only quote.' }),
  }),
})

const BulkQuoteInput = builder.inputType('BulkQuoteInput', {
  description: 'One order of a bulk quote: a post-only GTC limit order.',
  fields: (t) => ({
    side: t.field({ type: OrderSideEnum, required: true, description: 'Buy or sell.' }),
    price: t.field({ type: 'Decimal', required: true, description: 'Limit price, a multiple of the tick.' }),
    quantity: t.field({ type: 'Decimal', required: true, description: 'Quantity, a multiple of the step.' }),
    clientOrderId: t.string({ description: 'Idempotency key, unique per user for all time.' }),
  }),
})

const PlaceBulkQuotesInput = builder.inputType('PlaceBulkQuotesInput', {
  description: 'A ladder of quotes on one market, placed all or none (REST POST /quotes/bulk, /perps/quotes/bulk); at most 100 orders.',
  fields: (t) => ({
    marketId: t.string({ required: true, description: 'The market.' }),
    kind: t.field({ type: MarketKindEnum, description: KIND_DESCRIPTION }),
    quoteId: t.string({ required: true, description: 'The label every order of the ladder carries.' }),
    cancelAll: t.boolean({ defaultValue: false, description: 'Cancel the caller\'s orders on the market first (replaced_by_quote).' }),
    amend: t.boolean({
      defaultValue: false,
      description: 'With cancelAll: amend the caller\'s unfilled quote orders of this quoteId in place (same ids) instead of replacing them; the rest are cancelled or placed new.',
    }),
    quotes: t.field({ type: [BulkQuoteInput], required: true, description: 'The orders to place.' }),
  }),
})

const MarginImpactRef = builder.objectRef<Preview['marginImpact']>('MarginImpact').implement({
  description: 'The margin an order would add to the caller\'s requirement, USDC-T (options: what the options bucket would lock more, a buy\'s premium reserve included).',
  fields: (f) => ({
    initialMargin: f.field({ type: 'Decimal', description: 'Added initial margin: what must be available to place it.', resolve: (m) => m.initialMargin }),
    maintenanceMargin: f.field({ type: 'Decimal', description: 'Added maintenance margin: below it, positions are liquidated.', resolve: (m) => m.maintenanceMargin }),
  }),
})

const PreviewRef = builder.objectRef<Preview>('PreviewResult').implement({
  description: 'What placing the order would do, checked exactly as placement checks it, without placing it.',
  fields: (t) => ({
    approved: t.exposeBoolean('approved', { description: 'Whether placement would accept it now.' }),
    reason: t.field({
      type: ErrorCodeEnum,
      nullable: true,
      description: 'The error code placement would answer, when not approved; null when approved.',
      // Preview catches DomainErrors only, so a reason is always one of their codes.
      resolve: (p) => p.reason as ErrorCode | null,
    }),
    marginImpact: t.field({ type: MarginImpactRef, description: 'The margin it would add; "0" where it adds none (spot, reduce-only orders) or was refused.', resolve: (p) => p.marginImpact }),
    estimatedFee: t.field({ type: 'Decimal', description: 'The fee if it filled completely at its price (the taker rate if it would cross, the maker rate if it would rest), USDC-T.', resolve: (p) => p.estimatedFee }),
    liquidationPrice: t.field({
      type: 'Decimal',
      nullable: true,
      description: 'Linear orders: the mark at which the resulting position would be liquidated, other positions and marks held still; null when there would be none (or no position).',
      resolve: (p) => p.liquidationPrice,
    }),
  }),
})

const trade = { authScopes: { level: 'trade' as const } }

builder.mutationFields((t) => ({
  previewOrder: t.field({
    nullable: true,
    ...trade,
    type: PreviewRef,
    description: 'Checks an order as placeOrder would, and estimates its fee, margin and liquidation price, without placing it; not rate-limited. REST: POST /perps/orders/preview (kind LINEAR), POST /orders/preview (kind OPTION).',
    args: { input: t.arg({ type: PlaceOrderInput, required: true, description: 'The order, as placeOrder takes it.' }) },
    resolve: (_root, { input: { kind, ...input } }, ctx) => ctx.services.trading.previewOrder(principal(ctx), input, ctx.correlationId, kind),
  }),
  placeOrder: t.field({
    nullable: true,
    ...trade,
    type: OrderRef,
    description: 'Places an order on any product, linear or option: the market id decides. Answers once the engine has committed it. Counts against the order rate. REST: POST /perps/orders (kind LINEAR), POST /orders (kind OPTION).',
    args: { input: t.arg({ type: PlaceOrderInput, required: true, description: 'The order.' }) },
    resolve: async (_root, { input: { kind, ...input } }, ctx) => {
      await chargeOrderRate(ctx)
      return ctx.services.trading.placeOrder(principal(ctx), input, ctx.correlationId, kind)
    },
  }),
  cancelOrder: t.field({
    nullable: true,
    ...trade,
    type: OrderRef,
    description: 'Cancels one of the caller\'s open orders (and its take-profit/stop-loss sibling) and returns it, CANCELED. ORDER_NOT_FOUND when it is not the caller\'s, ORDER_NOT_CANCELABLE when it already ended. REST: POST /perps/orders/{id}/cancel, POST /orders/{id}/cancel.',
    args: { id: t.arg.string({ required: true, description: 'The order id.' }), kind: t.arg({ type: MarketKindEnum, description: KIND_DESCRIPTION }) },
    resolve: async (_root, { id, kind }, ctx) => {
      await chargeOrderRate(ctx)
      return ctx.services.trading.cancelOrder(principal(ctx), id, ctx.correlationId, kind)
    },
  }),
  modifyOrder: t.field({
    nullable: true,
    ...trade,
    type: OrderRef,
    description: 'Changes an open order\'s price and/or total quantity and returns it. Only lowering the quantity keeps time priority; anything else re-enters the book (and may trade). REST: POST /perps/orders/{id}/modify, POST /orders/{id}/modify.',
    args: {
      id: t.arg.string({ required: true, description: 'The order id.' }),
      price: t.arg({ type: 'Decimal', description: 'The new limit price; absent: unchanged.' }),
      quantity: t.arg({ type: 'Decimal', description: 'The new total quantity, filled part included (more than filledQuantity); absent: unchanged.' }),
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
    description: 'Cancels the caller\'s open orders, all of them or those matching every filter given; with `kind`, only orders of that kind. Counts as one request. REST: POST /perps/orders/cancel-all (kind LINEAR), POST /orders/cancel-all (kind OPTION).',
    args: {
      marketId: t.arg.string({ description: 'Only orders on this market (INVALID_MARKET_ID when it names none).' }),
      quoteId: t.arg.string({ description: 'Only orders placed with this quoteId.' }),
      clientOrderId: t.arg.string({ description: 'Only the order with this clientOrderId.' }),
      kind: t.arg({ type: MarketKindEnum, description: KIND_DESCRIPTION }),
    },
    resolve: async (_root, { kind, ...args }, ctx) => {
      await chargeOrderRate(ctx)
      return ctx.services.trading.cancelAll(principal(ctx), args, ctx.correlationId, kind)
    },
  }),
  placeQuote: t.field({
    nullable: true,
    ...trade,
    type: QuoteResultRef,
    description: 'A post-only quote: both sides rest or neither (a side that would cross refuses the whole quote). REST: POST /perps/quotes (kind LINEAR), POST /quotes (kind OPTION).',
    args: { input: t.arg({ type: PlaceQuoteInput, required: true, description: 'The quote.' }) },
    resolve: async (_root, { input: { kind, ...input } }, ctx) => {
      await chargeOrderRate(ctx)
      return ctx.services.trading.placeQuote(principal(ctx), input, ctx.correlationId, kind)
    },
  }),
  placeBulkQuotes: t.field({
    nullable: true,
    ...trade,
    type: QuoteResultRef,
    description: 'Optionally cancels the caller\'s orders on the market, then posts every quote: all or none. Counts as one request. REST: POST /perps/quotes/bulk (kind LINEAR), POST /quotes/bulk (kind OPTION).',
    args: { input: t.arg({ type: PlaceBulkQuotesInput, required: true, description: 'The ladder.' }) },
    resolve: async (_root, { input: { kind, ...input } }, ctx) => {
      await chargeOrderRate(ctx)
      return ctx.services.trading.placeBulkQuotes(principal(ctx), input, ctx.correlationId, kind)
    },
  }),
  closePosition: t.field({
    nullable: true,
    ...trade,
    type: OrderRef,
    description: 'Places a reduce-only market order for the whole linear position, or for `quantity` of it, and returns it. REST: POST /perps/positions/close.',
    args: {
      marketId: t.arg.string({ required: true, description: 'The market of the position.' }),
      quantity: t.arg({ type: 'Decimal', description: 'How much to close, in units of the base; absent: all of it.' }),
    },
    resolve: async (_root, { marketId, quantity }, ctx) => {
      await chargeOrderRate(ctx)
      return ctx.services.trading.closePosition(principal(ctx), marketId, quantity, ctx.correlationId)
    },
  }),
}))
