// Markets, marks, books, statistics and candles: the public market-data part of the schema.
import { resolveArrayConnection } from '@pothos/plugin-relay'
import type { BookSnapshot, MarkView } from '../../bus/mirrors.js'
import { D, formatDecimal } from '../../domain/decimal.js'
import { DomainError } from '../../domain/errors.js'
import { ASSET_CLASSES, FAMILIES, isLinear, MARKET_STATUSES } from '../../domain/market.js'
import { candles, candleWindow, marketStats, RESOLUTIONS, type Candle, type MarketStats, type Resolution } from '../../services/marketStats.js'
import type { ListedMarket } from '../../store/marketRows.js'
import { builder } from '../builder.js'
import { countedConnection } from '../connections.js'
import { memoize, type GraphQLContext } from '../context.js'
import { BOOK_LEVELS, candlesCost, CATALOG_PAGE, connectionCost, COST, expectedMarkets, LINEAR_MARKETS } from '../cost.js'

/** What a frontend is told about the families: the catalog's ids, as the underlying arguments take them. */
export const FAMILY_LIST = FAMILIES.join(', ')

export const MarketTypeEnum = builder.enumType('MarketType', {
  description: 'The product a market trades. REST writes these in lower case (`spot`, `perpetual`, `future`, `option`).',
  values: {
    SPOT: { value: 'spot', description: 'Spot: `{BASE}-USDC-SPOT`, fully funded from the spot bucket; holdings show as long positions.' },
    PERPETUAL: { value: 'perpetual', description: 'Perpetual future: `{BASE}-PERP` or `{BASE}-USDC-PERP`, margined from the perps bucket, with funding every fundingIntervalMs.' },
    FUTURE: { value: 'future', description: 'Quarterly future: `{BASE}-USDC-{YYYY-MM-DD}`, margined from the perps bucket, settled at its expiry.' },
    OPTION: { value: 'option', description: 'European option: `{BASE}-{YYYY-MM-DD}-{STRIKE}-{C|P}`, traded from the options bucket, prices in units of the underlying.' },
  } as const,
})
export const TradingStatusEnum = builder.enumType('TradingStatus', {
  description: `Whether a market takes orders. REST writes these in lower case (${MARKET_STATUSES.join(', ')}).`,
  values: {
    ACTIVE: { value: 'active', description: 'Takes orders.' },
    HALTED: { value: 'halted', description: 'Takes no new orders (MARKET_HALTED); resting orders can still be cancelled.' },
    SETTLED: { value: 'settled', description: 'Expired and settled: no orders; the id stays in history (markets(includeSettled: true)).' },
  } as const,
})
export const OptionTypeEnum = builder.enumType('OptionType', {
  description: 'Call or put. REST writes `call` or `put`.',
  values: {
    CALL: { value: 'call', description: 'The right to buy the underlying at the strike at expiry (market id ends in `-C`).' },
    PUT: { value: 'put', description: 'The right to sell the underlying at the strike at expiry (market id ends in `-P`).' },
  } as const,
})
export const AssetClassEnum = builder.enumType('AssetClass', {
  description: `The asset class of a family; correlation credits apply between families of one class. REST writes these in lower case (${ASSET_CLASSES.join(', ')}).`,
  values: {
    CRYPTO: { value: 'crypto', description: 'Crypto-assets (BTC).' },
    PRECIOUS_METALS: { value: 'precious_metals', description: 'Precious metals (XAUT, tokenised gold).' },
    ENERGY: { value: 'energy', description: 'Energy (WTIOIL, WTI crude).' },
  } as const satisfies Record<string, { value: (typeof ASSET_CLASSES)[number]; description: string }>,
})

export const marksOf = (ctx: GraphQLContext) => memoize(ctx, 'marks', () => ctx.services.marketData.marks())

export const MarkRef = builder.objectRef<MarkView>('Mark').implement({
  description: 'A mark with its provenance. Orders are refused when the governing mark is stale.',
  fields: (t) => ({
    marketId: t.exposeString('marketId', { description: 'The market this mark is for.' }),
    price: t.field({ type: 'Decimal', description: 'The mark price, in the quote currency (USDC) per unit of the base.', resolve: (m) => m.price }),
    indexPrice: t.field({
      type: 'Decimal',
      nullable: true,
      description: 'Perpetuals: the futures-curve index the mark follows (USDC). Null for every other market.',
      resolve: (m) => m.indexPrice,
    }),
    source: t.exposeString('source', { description: 'Where the price came from: `sim` (the simulated feed), `curve` (a perpetual\'s mark, from the futures curve), `push` (POST /admin/marks) or the name an operator pushed with it.' }),
    sourceTimestamp: t.field({ type: 'DateTime', description: 'When the source produced it (of its oldest input); staleness is judged on this.', resolve: (m) => m.sourceTimestamp }),
  }),
})

/** The band an order price must fall in: ±priceBandBps around the mark, inward to the tick. */
function band(m: ListedMarket, mark: MarkView | undefined, side: 'low' | 'high'): string | null {
  if (!mark || !isLinear(m.spec.type)) return null
  const tick = D(m.spec.tickSize)
  const factor = side === 'low' ? 10_000 - m.spec.priceBandBps : 10_000 + m.spec.priceBandBps
  const raw = D(mark.price).mul(factor).div(10_000).div(tick)
  return formatDecimal((side === 'low' ? raw.ceil() : raw.floor()).mul(tick))
}

export const MarketRef = builder.objectRef<ListedMarket>('Market').implement({
  description: 'A listed market. The id decides the product: spot, perpetual, quarterly future or option.',
  fields: (t) => ({
    id: t.id({ description: 'The market id (the same string as marketId), as an ID for client caches.', resolve: (m) => m.spec.id }),
    marketId: t.string({ description: 'The market id, e.g. `BTC-PERP`, `BTC-USDC-2026-12-25`, `BTC-2026-12-18-100000-C`; every other field and path takes it.', resolve: (m) => m.spec.id }),
    family: t.string({ description: `The underlying family (${FAMILY_LIST}); markets of one family are margined together.`, resolve: (m) => m.spec.family }),
    assetClass: t.field({ type: AssetClassEnum, description: 'The family\'s asset class.', resolve: (m) => m.spec.assetClass }),
    base: t.string({ description: 'What a quantity counts: the base asset (BTC, XAUT, WTIOIL); for an option, contracts of one unit of it.', resolve: (m) => m.spec.base }),
    quote: t.string({ description: 'The currency linear prices are in: USDC (settled in USDC-T).', resolve: (m) => m.spec.quote }),
    type: t.field({ type: MarketTypeEnum, description: 'The product: spot, perpetual, future or option.', resolve: (m) => m.spec.type }),
    tradingStatus: t.field({ type: TradingStatusEnum, description: 'Whether it takes orders now.', resolve: (m) => m.status }),
    tickSize: t.field({ type: 'Decimal', description: 'Prices must be multiples of this (INVALID_PRICE otherwise): USDC, or units of the underlying for options.', resolve: (m) => m.spec.tickSize }),
    stepSize: t.field({ type: 'Decimal', description: 'Quantities must be multiples of this (INVALID_QUANTITY otherwise), in units of the base.', resolve: (m) => m.spec.stepSize }),
    minQuantity: t.field({ type: 'Decimal', description: 'The smallest order quantity, in units of the base.', resolve: (m) => m.spec.minQuantity }),
    priceBandBps: t.int({ description: 'Limit prices must lie within ± this many basis points of the mark (linear markets).', resolve: (m) => m.spec.priceBandBps }),
    priceBandLow: t.field({
      type: 'Decimal',
      nullable: true,
      description: 'The lowest limit price accepted now: the mark less priceBandBps, rounded up to the tick. Null for options and without a mark.',
      complexity: COST.priceBand,
      resolve: async (m, _a, ctx) => band(m, (await marksOf(ctx)).get(m.spec.id), 'low'),
    }),
    priceBandHigh: t.field({
      type: 'Decimal',
      nullable: true,
      description: 'The highest limit price accepted now: the mark plus priceBandBps, rounded down to the tick. Null for options and without a mark.',
      complexity: COST.priceBand,
      resolve: async (m, _a, ctx) => band(m, (await marksOf(ctx)).get(m.spec.id), 'high'),
    }),
    takerFeeBps: t.field({ type: 'Decimal', description: 'Fee of an order that takes liquidity, in basis points of the notional (options: of the underlying\'s notional, capped at 12.5% of the premium).', resolve: (m) => m.spec.takerFeeBps }),
    makerFeeBps: t.field({ type: 'Decimal', description: 'Fee of a resting order that is filled, in basis points, as takerFeeBps.', resolve: (m) => m.spec.makerFeeBps }),
    fundingIntervalMs: t.int({ nullable: true, description: 'Perpetuals: milliseconds between funding payments (300000). Null for other markets.', resolve: (m) => m.spec.fundingIntervalMs }),
    fundingMaxRateBps: t.field({ type: 'Decimal', nullable: true, description: 'Perpetuals: the cap on one period\'s funding rate, in basis points. Null for other markets.', resolve: (m) => m.spec.fundingMaxRateBps }),
    expiry: t.field({ type: 'DateTime', nullable: true, description: 'Futures and options: when it expires and settles (08:00 UTC). Null for spot and perpetuals.', resolve: (m) => m.spec.expiryMs }),
    strike: t.field({ type: 'Decimal', nullable: true, description: 'Options: the strike price in USDC. Null for linear markets.', resolve: (m) => m.spec.strike }),
    optionType: t.field({ type: OptionTypeEnum, nullable: true, description: 'Options: call or put. Null for linear markets.', resolve: (m) => m.spec.optionType }),
    listedAt: t.field({ type: 'DateTime', description: 'When the market was listed.', resolve: (m) => m.spec.listedAtMs }),
    settledAt: t.field({ type: 'DateTime', nullable: true, description: 'When it settled; null until then (and always for spot and perpetuals).', resolve: (m) => m.settledAtMs }),
    settlementPrice: t.field({ type: 'Decimal', nullable: true, description: 'The price positions settled at (USDC); null until it settled.', resolve: (m) => m.settlementPrice }),
    mark: t.field({
      type: MarkRef,
      nullable: true,
      description: 'The current mark with its source; null while the market has none (an option\'s theoretical mark is OptionsBoardRow.markPrice).',
      resolve: async (m, _a, ctx) => (await marksOf(ctx)).get(m.spec.id) ?? null,
    }),
  }),
})

export const LevelRef = builder.objectRef<[string, string]>('OrderbookLevel').implement({
  description: 'One price level of a book: every resting order at that price together. REST writes a level as a `[price, size]` pair.',
  fields: (t) => ({
    price: t.field({ type: 'Decimal', description: 'The level\'s price (USDC; options: units of the underlying).', resolve: (l) => l[0] }),
    size: t.field({ type: 'Decimal', description: 'The quantity resting at this price, in units of the base (options: contracts).', resolve: (l) => l[1] }),
  }),
})

export const OrderbookRef = builder.objectRef<BookSnapshot>('Orderbook').implement({
  description: 'Full-depth book, aggregated by price, best first. `sequence` increases with every change.',
  fields: (t) => ({
    marketId: t.exposeString('marketId', { description: 'The market of the book.' }),
    sequence: t.field({ type: 'SafeInt', description: 'The book\'s change counter: the orderbook stream\'s deltas continue from it.', resolve: (b) => b.sequence }),
    bids: t.field({ type: [LevelRef], description: 'Buy levels, best (highest) first.', complexity: { field: 1, multiplier: BOOK_LEVELS }, resolve: (b) => b.bids }),
    asks: t.field({ type: [LevelRef], description: 'Sell levels, best (lowest) first.', complexity: { field: 1, multiplier: BOOK_LEVELS }, resolve: (b) => b.asks }),
    timestamp: t.field({ type: 'DateTime', description: 'When the book was in this state.', resolve: (b) => new Date(b.timestamp) }),
  }),
})

export const MarketStatsRef = builder.objectRef<MarketStats>('MarketStats').implement({
  description: 'Statistics of a linear market over the last 24 hours, with funding for perpetuals (GET /perps/market-stats). Prices in USDC, "0" where nothing traded.',
  fields: (t) => ({
    marketId: t.exposeString('marketId', { description: 'The market.' }),
    last: t.field({ type: 'Decimal', description: 'The last trade\'s price; "0" before the first trade.', resolve: (s) => s.last }),
    high24h: t.field({ type: 'Decimal', description: 'The highest trade price in the last 24 hours.', resolve: (s) => s.high24h }),
    low24h: t.field({ type: 'Decimal', description: 'The lowest trade price in the last 24 hours.', resolve: (s) => s.low24h }),
    volume24h: t.field({ type: 'Decimal', description: 'Quantity traded in the last 24 hours, in units of the base.', resolve: (s) => s.volume24h }),
    change24h: t.field({ type: 'Decimal', description: 'Percent change of the last price over 24 hours ("1.5" is +1.5%).', resolve: (s) => s.change24h }),
    openInterest: t.field({ type: 'Decimal', description: 'Open interest: the long positions together, in units of the base; "0" for spot.', resolve: (s) => s.openInterest }),
    fundingRate: t.field({
      type: 'Decimal',
      nullable: true,
      description: 'Perpetuals: the current period\'s funding rate so far, a fraction per period ("0.0001" = 1 bp); positive: longs pay shorts. Null for other markets.',
      resolve: (s) => s.fundingRate,
    }),
    nextFundingAt: t.field({ type: 'DateTime', nullable: true, description: 'Perpetuals: when the current funding period ends and is paid. Null for other markets.', resolve: (s) => s.nextFundingAtMs }),
  }),
})

export const CandleRef = builder.objectRef<Candle>('Candle').implement({
  description: 'One OHLC candle of trade prices (USDC); only buckets with trades have one.',
  fields: (t) => ({
    timestamp: t.field({ type: 'SafeInt', description: 'Candle start, unix seconds, aligned to the resolution in UTC.', resolve: (c) => c.timestamp }),
    open: t.field({ type: 'Decimal', description: 'The first trade price of the bucket.', resolve: (c) => c.open }),
    high: t.field({ type: 'Decimal', description: 'The highest trade price of the bucket.', resolve: (c) => c.high }),
    low: t.field({ type: 'Decimal', description: 'The lowest trade price of the bucket.', resolve: (c) => c.low }),
    close: t.field({ type: 'Decimal', description: 'The last trade price of the bucket.', resolve: (c) => c.close }),
    volume: t.field({ type: 'Decimal', description: 'Quantity traded in the bucket, in units of the base.', resolve: (c) => c.volume }),
  }),
})

builder.queryFields((t) => ({
  markets: t.connection({
    nullable: true,
    type: MarketRef,
    description: 'Listed markets in catalog order, filtered by every argument given; settled ones only with includeSettled. REST: GET /perps/markets is `markets(linear: true)`.',
    args: {
      type: t.arg({ type: MarketTypeEnum, description: 'Only markets of this product.' }),
      family: t.arg.string({ description: `Only this family (${FAMILY_LIST}); another name matches nothing.` }),
      linear: t.arg.boolean({ description: 'Only spot, perpetuals and futures (true) or only options (false).' }),
      includeSettled: t.arg.boolean({ defaultValue: false, description: 'Also list expired, settled futures and options.' }),
    },
    complexity: (args) => connectionCost(1, CATALOG_PAGE, expectedMarkets(args))(args),
    resolve: async (_root, args, ctx) => {
      const all = await ctx.services.marketData.listed()
      const list = all.filter(
        (m) =>
          (args.includeSettled || m.status !== 'settled') &&
          (!args.type || m.spec.type === args.type) &&
          (!args.family || m.spec.family === args.family) &&
          (args.linear == null || isLinear(m.spec.type) === args.linear),
      )
      return resolveArrayConnection({ args, ...CATALOG_PAGE }, list)
    },
  }, countedConnection(MarketRef, 'Market', 'markets', CATALOG_PAGE)),
  market: t.field({
    type: MarketRef,
    nullable: true,
    description: 'One market by id, settled ones included; null when no market has that id.',
    args: { id: t.arg.string({ required: true, description: 'The market id, e.g. `BTC-PERP`.' }) },
    resolve: (_root, args, ctx) => ctx.services.marketData.market(args.id),
  }),
  orderbook: t.field({
    nullable: true,
    type: OrderbookRef,
    description: 'The full-depth book of a market; MARKET_NOT_FOUND for an unknown id. REST: GET /perps/orderbook/{marketId} is `orderbook(linear: true)`, GET /orderbook/{marketId} `orderbook(linear: false)`; the subscription `orderbook` streams it.',
    args: {
      marketId: t.arg.string({ required: true, description: 'The market id.' }),
      linear: t.arg.boolean({ description: 'Only a spot, perpetual or futures book (true) or only an option book (false); a market of the other kind is MARKET_NOT_FOUND.' }),
    },
    complexity: COST.orderbook,
    resolve: async (_root, args, ctx) => {
      const md = ctx.services.marketData
      // REST's two book paths each serve one family (SPEC.md "Market data"), so the other's ids are unknown there.
      if (args.linear != null && isLinear((await md.marketOrThrow(args.marketId)).spec.type) !== args.linear) {
        throw new DomainError('MARKET_NOT_FOUND', `No ${args.linear ? 'linear' : 'option'} market ${args.marketId}`)
      }
      return memoize(ctx, `orderbook:${args.marketId}`, () => md.orderbook(args.marketId))
    },
  }),
  marketStats: t.connection({
    nullable: true,
    type: MarketStatsRef,
    description: 'Statistics of the live spot, perpetual and futures markets, in catalog order. REST: GET /perps/market-stats.',
    args: { marketId: t.arg.string({ description: 'Only this market (MARKET_NOT_FOUND when unknown).' }) },
    complexity: (args) => connectionCost(COST.marketStats, CATALOG_PAGE, args.marketId ? 1 : LINEAR_MARKETS)(args),
    resolve: async (_root, args, ctx) => {
      const md = ctx.services.marketData
      // Aliases of the same statistics share one aggregate.
      const stats = await memoize(ctx, `marketStats:${args.marketId ?? ''}`, async () => {
        let list = (await md.listed()).filter((m) => isLinear(m.spec.type) && m.status !== 'settled')
        if (args.marketId) list = [await md.marketOrThrow(args.marketId)]
        return marketStats(md, list)
      })
      return resolveArrayConnection({ args, ...CATALOG_PAGE }, stats)
    },
  }, countedConnection(MarketStatsRef, 'MarketStats', 'market statistics', CATALOG_PAGE)),
  candles: t.field({
    nullable: true,
    type: [CandleRef],
    description: 'OHLC candles with trades between from and to (unix seconds, at most 90 days apart: INVALID_TIME_RANGE), oldest first. REST: GET /perps/ohlc (`symbol` is marketId).',
    args: {
      marketId: t.arg.string({ required: true, description: 'The market id.' }),
      resolution: t.arg.string({
        defaultValue: '15',
        description: `Bucket size: one of ${RESOLUTIONS.join(', ')} (minutes; D and 1D a UTC day). A string, as REST's \`resolution\` query parameter; another value is INVALID_REQUEST.`,
      }),
      from: t.arg({ type: 'SafeInt', description: 'Start, unix seconds. Default: 500 buckets before `to`, within 90 days.' }),
      to: t.arg({ type: 'SafeInt', description: 'End, unix seconds. Default: now.' }),
    },
    complexity: candlesCost,
    resolve: (_root, args, ctx) => {
      const resolution = args.resolution as Resolution
      if (!RESOLUTIONS.includes(resolution)) {
        throw new DomainError('INVALID_REQUEST', `resolution must be one of ${RESOLUTIONS.join(', ')}`, { resolution: args.resolution })
      }
      const md = ctx.services.marketData
      const { from, to } = candleWindow(resolution, args.from, args.to, Math.floor(md.clock() / 1000))
      return memoize(ctx, `candles:${args.marketId}:${resolution}:${from}:${to}`, () => candles(md, args.marketId, resolution, from, to))
    },
  }),
}))
