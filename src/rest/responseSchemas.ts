// The documented REST response bodies (SPEC.md "Resources and their fields", DESIGN.md where the spec
// says "not shown") as zod schemas: the OpenAPI document's response schemas, and what
// test/e2e/openapi.responses.test.ts holds the real responses to. Named ones become components.
import { z } from 'zod'
import { USER_BUCKETS } from '../domain/buckets.js'
import { ERRORS } from '../domain/errors.js'
import { MARGIN_MODES, ORDER_STATUSES, ORDER_TYPES, SIDES, TIME_IN_FORCE } from '../domain/orders.js'

/** Component schemas of responses, by id. */
export const responseComponents = z.registry<{ id: string }>()

const named = <T extends z.ZodType>(id: string, schema: T): T => {
  responseComponents.add(schema, { id })
  return schema
}

const dec = (description?: string) => z.string().meta({ description: description ? `${description} (decimal string)` : 'Decimal string.' })
const time = (description?: string) => z.iso.datetime({ offset: true }).meta(description ? { description } : {})
const nullable = <T extends z.ZodType>(s: T) => s.nullable()

export const ErrorBody = named(
  'Error',
  z
    .object({
      error: z.string().meta({ description: 'Family: AuthError, OrderError, MarginError, AccountError, MarketError, RateLimitError, RequestError, InternalError.' }),
      code: z.enum(Object.keys(ERRORS) as [keyof typeof ERRORS, ...Array<keyof typeof ERRORS>]).meta({ description: 'Stable, machine-readable code.' }),
      message: z.string(),
      details: z.record(z.string(), z.unknown()).optional().meta({
        description:
          '`issues` (a list of `{path, code, message}`) for a request that fails its schema; `existingOrder` for DUPLICATE_CLIENT_ORDER_ID; `requiredIm`, `availableIm` for INSUFFICIENT_MARGIN; `commandId`, `orderIds` for OUTCOME_UNKNOWN.',
      }),
      retryAfterMs: z.number().int().optional().meta({ description: 'ORDER_RATE_LIMIT only (also in `details`).' }),
    })
    .meta({ description: 'The body of every non-2xx response.' }),
)

export const Order = named(
  'Order',
  z.object({
    id: z.string().meta({ description: 'ULID.' }),
    userId: z.string(),
    marketId: z.string(),
    clientOrderId: nullable(z.string()),
    side: z.enum(SIDES),
    type: z.enum(ORDER_TYPES),
    timeInForce: z.enum(TIME_IN_FORCE),
    price: nullable(dec('Limit price; null on a market order')),
    quantity: dec(),
    filledQuantity: dec(),
    status: z.enum(ORDER_STATUSES),
    postOnly: z.boolean(),
    reduceOnly: z.boolean(),
    marginMode: nullable(z.enum(MARGIN_MODES)).meta({ description: 'Linear orders only; null on options.' }),
    stopPrice: nullable(dec()),
    takeProfitPrice: nullable(dec()),
    stopLossPrice: nullable(dec()),
    triggeredAt: nullable(time('When a stop order entered the book.')),
    parentOrderId: nullable(z.string()).meta({ description: 'On a take-profit or stop-loss order: the order it is attached to.' }),
    quoteId: nullable(z.string()),
    cancelReason: nullable(z.string()).meta({ description: 'user, ioc_unfilled, fok_unfilled, market_unfilled, self_trade, replaced_by_quote, dead_man_switch, …' }),
    createdAt: time(),
    updatedAt: time(),
  }),
)
export const OrderList = named('OrderList', z.array(Order))

const MARKET_TYPES = ['spot', 'perpetual', 'future', 'option'] as const
const TRADING_STATUSES = ['active', 'halted', 'settled'] as const

export const Market = named(
  'Market',
  z.object({
    marketId: z.string(),
    base: z.string(),
    quote: z.string(),
    type: z.enum(MARKET_TYPES),
    tradingStatus: z.enum(TRADING_STATUSES),
    tickSize: dec(),
    stepSize: dec(),
    minQuantity: dec(),
    priceBandLow: nullable(dec()),
    priceBandHigh: nullable(dec()),
    takerFeeBps: dec(),
    makerFeeBps: dec(),
    fundingIntervalMs: nullable(z.number().int()).meta({ description: 'Perpetuals: 300000.' }),
    fundingMaxRateBps: nullable(dec()),
    expiry: time('Futures and options only.').optional(),
    strike: dec('Options only').optional(),
    optionType: z.enum(['call', 'put']).optional(),
  }),
)

const level = z.tuple([dec('price'), dec('size')])
export const Orderbook = named(
  'Orderbook',
  z.object({
    marketId: z.string(),
    sequence: z.number().int().meta({ description: 'Increases monotonically.' }),
    bids: z.array(level).meta({ description: '`[price, size]` pairs, best first.' }),
    asks: z.array(level).meta({ description: '`[price, size]` pairs, best first.' }),
    timestamp: time(),
  }),
)

export const MarketStats = named(
  'MarketStats',
  z.object({
    marketId: z.string(),
    last: dec(),
    high24h: dec(),
    low24h: dec(),
    volume24h: dec(),
    openInterest: dec(),
    change24h: dec(),
    fundingRate: nullable(dec()),
    nextFundingAt: nullable(time()),
  }),
)

export const Candle = named(
  'Candle',
  z.object({
    timestamp: z.number().int().meta({ description: 'Candle start, unix seconds.' }),
    open: dec(),
    high: dec(),
    low: dec(),
    close: dec(),
    volume: dec(),
  }),
)

const boardRow = z.object({
  marketId: z.string(),
  strikePrice: dec(),
  expiry: z.string().meta({ description: 'Expiry date, YYYY-MM-DD.' }),
  optionType: z.enum(['call', 'put']),
  bid: nullable(dec()),
  ask: nullable(dec()),
  lastPrice: nullable(dec()),
  openInterest: dec(),
  volume24h: dec(),
  markPrice: nullable(dec('Theoretical price, in units of the underlying')),
  markIv: nullable(dec()),
  delta: nullable(dec()),
})
export const OptionsBoard = named(
  'OptionsBoard',
  z.object({
    underlying: z.string(),
    spotPrice: nullable(dec()),
    timestamp: time(),
    expiryForwards: z.record(z.string(), dec()).meta({ description: 'Forward price per expiry date.' }),
    calls: z.array(boardRow),
    puts: z.array(boardRow),
  }),
)

export const Instrument = named(
  'Instrument',
  z.object({
    id: z.string(),
    type: z.enum(MARKET_TYPES),
    underlying: z.string(),
    quote: z.string(),
    basePrice: nullable(dec()),
    computedAt: nullable(z.number().int()).meta({ description: 'Unix milliseconds.' }),
  }),
)

export const Product = named(
  'Product',
  z.object({
    productId: z.string(),
    underlying: z.string(),
    type: z.enum(MARKET_TYPES),
    assetClass: z.string(),
    marginGroup: z.string(),
    takerFeeBps: dec(),
    makerFeeBps: dec(),
    markets: z.array(Market),
  }),
)

export const Trade = named(
  'Trade',
  z.object({
    tradeId: z.string(),
    marketId: z.string(),
    orderId: nullable(z.string()),
    side: z.enum(SIDES),
    price: dec(),
    quantity: dec(),
    fee: dec(),
    feeBps: dec(),
    role: nullable(z.enum(['taker', 'maker'])).meta({ description: 'Null on funding and settlement rows.' }),
    type: z.string().meta({ description: '`fill`, `funding`, `settlement`, …' }),
    amount: dec('Funding and settlement rows: the amount paid (negative) or received').optional(),
    fundingRate: dec('Funding rows').optional(),
    createdAt: time(),
  }),
)

export const OptionTrade = named(
  'OptionTrade',
  z.object({
    tradeId: z.string(),
    marketId: z.string(),
    orderId: nullable(z.string()),
    side: z.enum(SIDES),
    price: dec('In units of the underlying'),
    quantity: dec(),
    fee: dec(),
    feeBps: dec(),
    premium: nullable(dec('USDC-T paid by the buyer: price × quantity × indexPrice')),
    indexPrice: nullable(dec()),
    type: z.string(),
    amount: dec('Settlement rows').optional(),
    createdAt: time(),
  }),
)

export const Liquidation = named(
  'Liquidation',
  z.object({
    id: z.string(),
    marketId: z.string(),
    orderId: nullable(z.string()),
    marginMode: z.enum(MARGIN_MODES),
    quantity: dec(),
    closedQuantity: dec(),
    price: nullable(dec()),
    realizedPnl: dec(),
    fee: dec(),
    insurance: dec(),
    equity: nullable(dec()),
    maintenanceMargin: nullable(dec()),
    createdAt: time(),
  }),
)

export const Position = named(
  'Position',
  z.object({
    marketId: z.string(),
    side: z.enum(['long', 'short']),
    quantity: dec('Positive'),
    avgPrice: dec(),
    markPrice: nullable(dec()),
    realizedPnl: dec(),
    unrealizedPnl: dec(),
    fundingPayment: dec(),
    marginMode: z.enum(MARGIN_MODES),
    initialMargin: dec(),
    maintenanceMargin: dec(),
    isolatedMargin: dec(),
  }),
)

export const OptionPosition = named(
  'OptionPosition',
  z.object({
    marketId: z.string(),
    quantity: dec('Signed: negative when short'),
    avgPrice: dec(),
    realizedPnl: dec(),
    unrealizedPnl: dec(),
  }),
)

export const PreviewResult = named(
  'PreviewResult',
  z.object({
    approved: z.boolean(),
    reason: nullable(z.string()).meta({ description: 'An error code (for example INSUFFICIENT_MARGIN) when not approved.' }),
    marginImpact: z.object({ initialMargin: dec(), maintenanceMargin: dec() }),
    estimatedFee: dec(),
    liquidationPrice: nullable(dec()),
  }),
)

export const QuoteResult = named(
  'QuoteResult',
  z.object({
    marketId: z.string(),
    quoteId: nullable(z.string()),
    results: z.array(z.object({ side: z.enum(SIDES), response: Order })),
  }),
)

export const BulkQuoteResult = named(
  'BulkQuoteResult',
  QuoteResult.extend({
    canceled: z.number().int().meta({ description: 'Orders cancelled first (cancelAll).' }),
    canceledIds: z.array(z.string()),
  }),
)

export const CancelAllResult = named('CancelAllResult', z.object({ canceled: z.number().int(), ids: z.array(z.string()) }))

export const OptionsBalance = named('OptionsBalance', z.object({ available: dec(), locked: dec(), total: dec() }))

const buckets = z.object({ wallet: dec(), spot: dec(), perps: dec(), options: dec() })

export const WalletBalance = named(
  'WalletBalance',
  z.object({
    onchainDepositTotal: dec(),
    tradableBalance: dec(),
    walletBalance: dec(),
    spotBalance: dec(),
    perpsBalance: dec(),
    optionsBalance: dec(),
    pendingWithdrawalTotal: dec(),
  }),
)

export const TransferResult = named(
  'TransferResult',
  z.object({ from: z.enum(USER_BUCKETS), to: z.enum(USER_BUCKETS), amount: dec(), balances: buckets }),
)

export const Withdrawal = named(
  'Withdrawal',
  z.object({
    id: z.string(),
    amount: dec(),
    toAddress: z.string(),
    status: z.enum(['pending', 'sent', 'completed', 'failed']),
    txHash: nullable(z.string()),
    error: nullable(z.string()),
    createdAt: time(),
    updatedAt: time(),
  }),
)

export const Deposit = named(
  'Deposit',
  z.object({
    id: z.string(),
    txHash: z.string(),
    logIndex: z.number().int(),
    blockNumber: z.number().int(),
    amount: dec(),
    confirmations: z.number().int(),
    status: z.enum(['pending', 'confirmed', 'credited']),
    createdAt: time(),
    creditedAt: nullable(time()),
  }),
)

export const PortfolioBalances = named(
  'PortfolioBalances',
  z.object({ buckets, total: dec(), options: OptionsBalance, onchainDepositTotal: dec(), pendingWithdrawalTotal: dec() }),
)

export const Portfolio = named(
  'Portfolio',
  z.object({
    equity: dec('Every bucket plus unrealized P&L and the mark value of spot holdings and options'),
    marginUsed: dec(),
    available: dec('equity − marginUsed, at least 0'),
    unrealizedPnl: dec(),
    openOrderCount: z.number().int(),
    buckets,
    positions: z.array(Position),
    optionPositions: z.array(OptionPosition.extend({ markPrice: nullable(dec()) })),
  }),
)

export const FaucetResult = named('FaucetResult', z.object({ amount: dec(), walletBalance: dec(), remainingToday: dec() }))

export const MmpConfig = named(
  'MmpConfig',
  z.object({
    underlying: z.string(),
    enabled: z.boolean(),
    intervalMs: z.number().int(),
    frozenMs: z.number().int(),
    quantityLimit: dec(),
    deltaLimit: dec(),
    frozen: z.boolean(),
    trippedAt: nullable(time()),
    frozenUntil: nullable(time()),
  }),
)

export const ApiKey = named(
  'ApiKey',
  z.object({
    id: z.string().meta({ description: '`svc_kid_` and 16 characters.' }),
    name: z.string(),
    scope: z.enum(['read', 'trade']),
    allowedIps: z.array(z.string()),
    expiresAt: nullable(time()),
    createdAt: time(),
    revokedAt: nullable(time()),
    lastUsedAt: nullable(time()),
    lastUsedIp: nullable(z.string()),
    status: z.enum(['active', 'expired', 'revoked']),
  }),
)

export const CreatedApiKey = named(
  'CreatedApiKey',
  ApiKey.pick({ id: true, name: true, scope: true, allowedIps: true, expiresAt: true }).extend({
    secret: z.string().meta({ description: '`svc_sk_` and a long random string: shown once, never again.' }),
  }),
)

export const SignInNonce = named('SignInNonce', z.object({ nonce: z.string(), expiresAt: time() }))

export const SignIn = named(
  'SignIn',
  z.object({
    token: z.string().meta({ description: 'A session JWT, for `Authorization: Bearer`; the same session is set as a cookie.' }),
    expiresAt: time(),
    user: z.object({ id: z.string(), address: z.string().meta({ description: 'EIP-55 checksummed.' }) }),
  }),
)

export const Me = named('Me', z.object({ id: z.string(), address: z.string(), rateTier: z.number().int(), createdAt: time() }))

export const Message = named('Message', z.object({ message: z.string() }))

export const DeadManSwitch = named(
  'DeadManSwitch',
  z.object({ timeoutMs: z.number().int(), cancelAt: nullable(time()).meta({ description: 'Null when disarmed (timeoutMs 0).' }) }),
)
