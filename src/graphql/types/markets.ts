// Markets, marks, books, statistics and candles: the public market-data part of the schema.
import { resolveArrayConnection } from '@pothos/plugin-relay'
import type { BookSnapshot, MarkView } from '../../bus/mirrors.js'
import { D, formatDecimal } from '../../domain/decimal.js'
import { DomainError } from '../../domain/errors.js'
import { isLinear } from '../../domain/market.js'
import { candles, candleWindow, marketStats, RESOLUTIONS, type Candle, type MarketStats, type Resolution } from '../../services/marketStats.js'
import type { ListedMarket } from '../../store/marketRows.js'
import { builder } from '../builder.js'
import { memoize, type GraphQLContext } from '../context.js'
import { BOOK_LEVELS, candlesCost, CATALOG_PAGE, connectionCost, COST, expectedMarkets, LINEAR_MARKETS } from '../cost.js'

export const MarketTypeEnum = builder.enumType('MarketType', {
  values: { SPOT: { value: 'spot' }, PERPETUAL: { value: 'perpetual' }, FUTURE: { value: 'future' }, OPTION: { value: 'option' } } as const,
})
export const TradingStatusEnum = builder.enumType('TradingStatus', {
  values: { ACTIVE: { value: 'active' }, HALTED: { value: 'halted' }, SETTLED: { value: 'settled' } } as const,
})
export const OptionTypeEnum = builder.enumType('OptionType', {
  values: { CALL: { value: 'call' }, PUT: { value: 'put' } } as const,
})

export const marksOf = (ctx: GraphQLContext) => memoize(ctx, 'marks', () => ctx.services.marketData.marks())

export const MarkRef = builder.objectRef<MarkView>('Mark').implement({
  description: 'A mark with its provenance. Orders are refused when the governing mark is stale.',
  fields: (t) => ({
    marketId: t.exposeString('marketId'),
    price: t.field({ type: 'Decimal', resolve: (m) => m.price }),
    indexPrice: t.field({ type: 'Decimal', nullable: true, resolve: (m) => m.indexPrice }),
    source: t.exposeString('source'),
    sourceTimestamp: t.field({ type: 'DateTime', resolve: (m) => m.sourceTimestamp }),
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
    id: t.id({ resolve: (m) => m.spec.id }),
    marketId: t.string({ resolve: (m) => m.spec.id }),
    family: t.string({ resolve: (m) => m.spec.family }),
    assetClass: t.string({ resolve: (m) => m.spec.assetClass }),
    base: t.string({ resolve: (m) => m.spec.base }),
    quote: t.string({ resolve: (m) => m.spec.quote }),
    type: t.field({ type: MarketTypeEnum, resolve: (m) => m.spec.type }),
    tradingStatus: t.field({ type: TradingStatusEnum, resolve: (m) => m.status }),
    tickSize: t.field({ type: 'Decimal', resolve: (m) => m.spec.tickSize }),
    stepSize: t.field({ type: 'Decimal', resolve: (m) => m.spec.stepSize }),
    minQuantity: t.field({ type: 'Decimal', resolve: (m) => m.spec.minQuantity }),
    priceBandBps: t.int({ resolve: (m) => m.spec.priceBandBps }),
    priceBandLow: t.field({
      type: 'Decimal',
      nullable: true,
      complexity: COST.priceBand,
      resolve: async (m, _a, ctx) => band(m, (await marksOf(ctx)).get(m.spec.id), 'low'),
    }),
    priceBandHigh: t.field({
      type: 'Decimal',
      nullable: true,
      complexity: COST.priceBand,
      resolve: async (m, _a, ctx) => band(m, (await marksOf(ctx)).get(m.spec.id), 'high'),
    }),
    takerFeeBps: t.field({ type: 'Decimal', resolve: (m) => m.spec.takerFeeBps }),
    makerFeeBps: t.field({ type: 'Decimal', resolve: (m) => m.spec.makerFeeBps }),
    fundingIntervalMs: t.int({ nullable: true, resolve: (m) => m.spec.fundingIntervalMs }),
    fundingMaxRateBps: t.field({ type: 'Decimal', nullable: true, resolve: (m) => m.spec.fundingMaxRateBps }),
    expiry: t.field({ type: 'DateTime', nullable: true, resolve: (m) => m.spec.expiryMs }),
    strike: t.field({ type: 'Decimal', nullable: true, resolve: (m) => m.spec.strike }),
    optionType: t.field({ type: OptionTypeEnum, nullable: true, resolve: (m) => m.spec.optionType }),
    listedAt: t.field({ type: 'DateTime', resolve: (m) => m.spec.listedAtMs }),
    settledAt: t.field({ type: 'DateTime', nullable: true, resolve: (m) => m.settledAtMs }),
    settlementPrice: t.field({ type: 'Decimal', nullable: true, resolve: (m) => m.settlementPrice }),
    mark: t.field({ type: MarkRef, nullable: true, resolve: async (m, _a, ctx) => (await marksOf(ctx)).get(m.spec.id) ?? null }),
  }),
})

export const LevelRef = builder.objectRef<[string, string]>('OrderbookLevel').implement({
  fields: (t) => ({
    price: t.field({ type: 'Decimal', resolve: (l) => l[0] }),
    size: t.field({ type: 'Decimal', resolve: (l) => l[1] }),
  }),
})

export const OrderbookRef = builder.objectRef<BookSnapshot>('Orderbook').implement({
  description: 'Full-depth book, aggregated by price, best first. `sequence` increases with every change.',
  fields: (t) => ({
    marketId: t.exposeString('marketId'),
    sequence: t.field({ type: 'SafeInt', resolve: (b) => b.sequence }),
    bids: t.field({ type: [LevelRef], complexity: { field: 1, multiplier: BOOK_LEVELS }, resolve: (b) => b.bids }),
    asks: t.field({ type: [LevelRef], complexity: { field: 1, multiplier: BOOK_LEVELS }, resolve: (b) => b.asks }),
    timestamp: t.field({ type: 'DateTime', resolve: (b) => new Date(b.timestamp) }),
  }),
})

export const MarketStatsRef = builder.objectRef<MarketStats>('MarketStats').implement({
  fields: (t) => ({
    marketId: t.exposeString('marketId'),
    last: t.field({ type: 'Decimal', resolve: (s) => s.last }),
    high24h: t.field({ type: 'Decimal', resolve: (s) => s.high24h }),
    low24h: t.field({ type: 'Decimal', resolve: (s) => s.low24h }),
    volume24h: t.field({ type: 'Decimal', resolve: (s) => s.volume24h }),
    change24h: t.field({ type: 'Decimal', description: 'Percent change of the last price over 24 hours.', resolve: (s) => s.change24h }),
    openInterest: t.field({ type: 'Decimal', resolve: (s) => s.openInterest }),
    fundingRate: t.field({ type: 'Decimal', nullable: true, resolve: (s) => s.fundingRate }),
    nextFundingAt: t.field({ type: 'DateTime', nullable: true, resolve: (s) => s.nextFundingAtMs }),
  }),
})

export const CandleRef = builder.objectRef<Candle>('Candle').implement({
  fields: (t) => ({
    timestamp: t.field({ type: 'SafeInt', description: 'Candle start, unix seconds.', resolve: (c) => c.timestamp }),
    open: t.field({ type: 'Decimal', resolve: (c) => c.open }),
    high: t.field({ type: 'Decimal', resolve: (c) => c.high }),
    low: t.field({ type: 'Decimal', resolve: (c) => c.low }),
    close: t.field({ type: 'Decimal', resolve: (c) => c.close }),
    volume: t.field({ type: 'Decimal', resolve: (c) => c.volume }),
  }),
})

builder.queryFields((t) => ({
  markets: t.connection({
    nullable: true,
    type: MarketRef,
    description: 'Listed markets in catalog order; settled ones only with includeSettled.',
    args: {
      type: t.arg({ type: MarketTypeEnum }),
      family: t.arg.string(),
      linear: t.arg.boolean({ description: 'Only spot, perpetuals and futures (true) or only options (false).' }),
      includeSettled: t.arg.boolean({ defaultValue: false }),
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
  }, { name: 'MarketConnection' }, { name: 'MarketEdge' }),
  market: t.field({
    type: MarketRef,
    nullable: true,
    args: { id: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.marketData.market(args.id),
  }),
  orderbook: t.field({
    nullable: true,
    type: OrderbookRef,
    args: {
      marketId: t.arg.string({ required: true }),
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
    description: 'Statistics of spot, perpetual and futures markets.',
    args: { marketId: t.arg.string() },
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
  }, { name: 'MarketStatsConnection' }, { name: 'MarketStatsEdge' }),
  candles: t.field({
    nullable: true,
    type: [CandleRef],
    description: 'OHLC candles with trades between from and to (unix seconds, at most 90 days apart), oldest first.',
    args: {
      marketId: t.arg.string({ required: true }),
      resolution: t.arg.string({ defaultValue: '15', description: `One of ${RESOLUTIONS.join(', ')} (minutes, or D for a day).` }),
      from: t.arg({ type: 'SafeInt', description: 'Default: 500 candles before `to`, within 90 days.' }),
      to: t.arg({ type: 'SafeInt', description: 'Default: now.' }),
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
