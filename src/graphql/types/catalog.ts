// Catalog reads: instruments with their current base price, and products (markets grouped by family
// and type with their fee schedule and margin group).
import { resolveArrayConnection } from '@pothos/plugin-relay'
import { instruments, products, type Instrument, type Product } from '../../services/catalogView.js'
import { builder } from '../builder.js'
import { memoize } from '../context.js'
import { CATALOG_PAGE, COST, connectionCost, LIVE_MARKETS, PRODUCT_PAGE, PRODUCTS } from '../cost.js'
import { MarketRef, MarketTypeEnum } from './markets.js'

const InstrumentRef = builder.objectRef<Instrument>('Instrument').implement({
  fields: (t) => ({
    id: t.exposeString('id'),
    type: t.field({ type: MarketTypeEnum, resolve: (i) => i.type }),
    underlying: t.exposeString('underlying'),
    quote: t.exposeString('quote'),
    basePrice: t.field({ type: 'Decimal', nullable: true, description: 'Mark price (options: theoretical, in units of the underlying).', resolve: (i) => i.basePrice }),
    computedAt: t.field({ type: 'SafeInt', nullable: true, description: 'When basePrice was computed, unix ms.', resolve: (i) => i.computedAtMs }),
  }),
})

const ProductRef = builder.objectRef<Product>('Product').implement({
  fields: (t) => ({
    productId: t.exposeString('productId'),
    underlying: t.exposeString('underlying'),
    type: t.field({ type: MarketTypeEnum, resolve: (p) => p.type }),
    assetClass: t.exposeString('assetClass'),
    marginGroup: t.exposeString('marginGroup'),
    takerFeeBps: t.field({ type: 'Decimal', resolve: (p) => p.takerFeeBps }),
    makerFeeBps: t.field({ type: 'Decimal', resolve: (p) => p.makerFeeBps }),
    // Every live market belongs to one product: charge the average product its share.
    markets: t.field({ type: [MarketRef], complexity: { field: 1, multiplier: Math.ceil(LIVE_MARKETS / PRODUCTS) }, resolve: (p) => p.markets }),
  }),
})

builder.queryFields((t) => ({
  instruments: t.connection({
    nullable: true,
    type: InstrumentRef,
    // Prices the options of every board: about the BTC board's cost, then an item per live market.
    complexity: connectionCost(COST.instruments, CATALOG_PAGE, LIVE_MARKETS),
    resolve: async (_root, args, ctx) =>
      resolveArrayConnection({ args, ...CATALOG_PAGE }, await memoize(ctx, 'instruments', () => instruments(ctx.services.marketData))),
  }, { name: 'InstrumentConnection' }, { name: 'InstrumentEdge' }),
  instrument: t.field({
    type: InstrumentRef,
    nullable: true,
    args: { symbol: t.arg.string({ required: true }) },
    // The same list as instruments (memoised, so once per request).
    complexity: COST.instruments,
    resolve: async (_root, args, ctx) =>
      (await memoize(ctx, 'instruments', () => instruments(ctx.services.marketData))).find((i) => i.id === args.symbol) ?? null,
  }),
  products: t.connection({
    nullable: true,
    type: ProductRef,
    complexity: connectionCost(1, PRODUCT_PAGE, PRODUCTS),
    resolve: async (_root, args, ctx) => resolveArrayConnection({ args, ...PRODUCT_PAGE }, await products(ctx.services.marketData)),
  }, { name: 'ProductConnection' }, { name: 'ProductEdge' }),
}))
