// Catalog reads: instruments with their current base price, and products (markets grouped by family
// and type with their fee schedule and margin group).
import { resolveArrayConnection } from '@pothos/plugin-relay'
import { instruments, products, type Instrument, type Product } from '../../services/catalogView.js'
import { builder } from '../builder.js'
import { countedConnection } from '../connections.js'
import { memoize } from '../context.js'
import { CATALOG_PAGE, COST, connectionCost, LIVE_MARKETS, PRODUCT_PAGE, PRODUCTS } from '../cost.js'
import { AssetClassEnum, FAMILY_LIST, MarketRef, MarketTypeEnum } from './markets.js'

const InstrumentRef = builder.objectRef<Instrument>('Instrument').implement({
  description: 'A live market as the catalog lists it, with its current base price (GET /catalog/instruments).',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The market id.' }),
    type: t.field({ type: MarketTypeEnum, description: 'The product.', resolve: (i) => i.type }),
    underlying: t.exposeString('underlying', { description: `The family (${FAMILY_LIST}).` }),
    quote: t.exposeString('quote', { description: 'The quote currency: USDC.' }),
    basePrice: t.field({
      type: 'Decimal',
      nullable: true,
      description: 'Mark price (options: theoretical, in units of the underlying); null while there is none.',
      resolve: (i) => i.basePrice,
    }),
    computedAt: t.field({ type: 'SafeInt', nullable: true, description: 'When basePrice was computed, unix ms; null with it.', resolve: (i) => i.computedAtMs }),
  }),
})

const ProductRef = builder.objectRef<Product>('Product').implement({
  description: 'The live markets of one family and product type, with their fee schedule and margin group (GET /catalog/products).',
  fields: (t) => ({
    productId: t.exposeString('productId', { description: '`{family}-{type}`, e.g. `BTC-perpetual`.' }),
    underlying: t.exposeString('underlying', { description: `The family (${FAMILY_LIST}).` }),
    type: t.field({ type: MarketTypeEnum, description: 'The product type of every market in it.', resolve: (p) => p.type }),
    assetClass: t.field({ type: AssetClassEnum, description: 'The family\'s asset class.', resolve: (p) => p.assetClass }),
    marginGroup: t.exposeString('marginGroup', { description: 'Markets of one margin group (the family) are margined together: a long perpetual offsets a short future.' }),
    takerFeeBps: t.field({ type: 'Decimal', description: 'Taker fee, basis points.', resolve: (p) => p.takerFeeBps }),
    makerFeeBps: t.field({ type: 'Decimal', description: 'Maker fee, basis points.', resolve: (p) => p.makerFeeBps }),
    // Every live market belongs to one product: charge the average product its share.
    markets: t.field({
      type: [MarketRef],
      description: 'Its live markets, in catalog order.',
      complexity: { field: 1, multiplier: Math.ceil(LIVE_MARKETS / PRODUCTS) },
      resolve: (p) => p.markets,
    }),
  }),
})

builder.queryFields((t) => ({
  instruments: t.connection(
    {
      nullable: true,
      type: InstrumentRef,
      description: 'Every live market with its base price, in catalog order. REST: GET /catalog/instruments.',
      // Prices the options of every board: about the BTC board's cost, then an item per live market.
      complexity: connectionCost(COST.instruments, CATALOG_PAGE, LIVE_MARKETS),
      resolve: async (_root, args, ctx) =>
        resolveArrayConnection({ args, ...CATALOG_PAGE }, await memoize(ctx, 'instruments', () => instruments(ctx.services.marketData))),
    },
    countedConnection(InstrumentRef, 'Instrument', 'instruments', CATALOG_PAGE),
  ),
  instrument: t.field({
    type: InstrumentRef,
    nullable: true,
    description: 'One live market as an instrument; null when none has that id. REST: GET /catalog/instruments/{symbol} (404 MARKET_NOT_FOUND there).',
    args: { symbol: t.arg.string({ required: true, description: 'The market id.' }) },
    // The same list as instruments (memoised, so once per request).
    complexity: COST.instruments,
    resolve: async (_root, args, ctx) =>
      (await memoize(ctx, 'instruments', () => instruments(ctx.services.marketData))).find((i) => i.id === args.symbol) ?? null,
  }),
  products: t.connection(
    {
      nullable: true,
      type: ProductRef,
      description: 'The live markets grouped by family and type. REST: GET /catalog/products.',
      complexity: connectionCost(1, PRODUCT_PAGE, PRODUCTS),
      resolve: async (_root, args, ctx) => resolveArrayConnection({ args, ...PRODUCT_PAGE }, await products(ctx.services.marketData)),
    },
    countedConnection(ProductRef, 'Product', 'products', PRODUCT_PAGE),
  ),
}))
