// Public market-data routes (SPEC.md "Market data"), each one GraphQL operation.
import { z } from 'zod'
import { DomainError } from '../domain/errors.js'
import { RESOLUTIONS } from '../services/marketStats.js'
import { pathId, queryInteger, queryText } from './requestSchema.js'
import { Candle, Instrument, Market, MarketStats, OptionsBoard, Orderbook, Product } from './responseSchemas.js'
import { defineRoute, type RestRoute } from './route.js'
import { BOOK_FIELDS, lower, MARKET_FIELDS, nodes, present, restBook, restMarket } from './shapes.js'

const unixSeconds = (what: string) => queryInteger(`${what}, unix seconds.`, Number.MAX_SAFE_INTEGER).optional()

const marketParams = z.object({ marketId: pathId('MARKET_NOT_FOUND', 'Market id.') })

/** `/perps/orderbook` serves linear books and `/orderbook` option books; the other kind's ids are 404 there. */
const orderbookRoute = (path: string, linear: boolean): RestRoute =>
  defineRoute({
    method: 'GET',
    path,
    params: marketParams,
    auth: 'public',
    tag: linear ? 'Market data' : 'Options trading',
    summary: linear ? 'Full-depth order book of a linear market' : 'Order book of an option',
    description: `Bids and asks as \`[price, size]\` pairs, best first, with the book's \`sequence\`. ${linear ? 'An option' : 'A linear'} market id, or an unknown one, is 404 \`MARKET_NOT_FOUND\`.`,
    response: Orderbook,
    operation: `query ${linear ? 'RestPerpsOrderbook' : 'RestOptionsOrderbook'}($marketId: String!) {
    orderbook(marketId: $marketId, linear: ${linear}) { ...RestBook } } ${BOOK_FIELDS}`,
    variables: ({ params }) => params,
    shape: (data) => restBook(data['orderbook']),
  })

export const marketRoutes: RestRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/perps/markets',
    auth: 'public',
    tag: 'Market data',
    summary: 'Linear markets',
    description: 'Spot, perpetual and futures markets with their tick, step, minimum, price band, fees (bps) and funding parameters. Halted markets accept no new orders; settled futures stay listed.',
    response: z.array(Market),
    operation: `query RestPerpsMarkets { markets(linear: true) { edges { node { ...RestMarket } } } } ${MARKET_FIELDS}`,
    shape: (data) => nodes(data['markets']).map((m) => restMarket(m as Record<string, unknown>)),
  }),
  orderbookRoute('/perps/orderbook/:marketId', true),
  orderbookRoute('/orderbook/:marketId', false),
  defineRoute({
    method: 'GET',
    path: '/perps/market-stats',
    auth: 'public',
    tag: 'Market data',
    summary: '24-hour statistics per linear market',
    description: 'Last price, 24 h high, low, volume and change, open interest, and for perpetuals the funding rate and next funding time.',
    response: z.array(MarketStats),
    operation: `query RestMarketStats { marketStats { edges { node {
      marketId last high24h low24h volume24h openInterest change24h fundingRate nextFundingAt } } } }`,
    shape: (data) => nodes(data['marketStats']),
  }),
  defineRoute({
    method: 'GET',
    path: '/perps/ohlc',
    auth: 'public',
    tag: 'Market data',
    summary: 'Candles of a market',
    description: 'At most 90 days between `from` and `to` (a longer span is 400 `INVALID_TIME_RANGE`). Candle `timestamp` is the start, in unix seconds.',
    errors: ['INVALID_TIME_RANGE'],
    query: z.object({
      symbol: queryText('Market id, e.g. `BTC-PERP`.'),
      resolution: z.enum(RESOLUTIONS).optional().meta({ description: 'Minutes, or `D`/`1D` for days; default `15`.' }),
      from: unixSeconds('Start'),
      to: unixSeconds('End'),
    }),
    response: z.array(Candle),
    operation: `query RestOhlc($marketId: String!, $resolution: String!, $from: SafeInt, $to: SafeInt) {
      candles(marketId: $marketId, resolution: $resolution, from: $from, to: $to) { timestamp open high low close volume } }`,
    variables: ({ query }) => present({ marketId: query.symbol, resolution: query.resolution ?? '15', from: query.from, to: query.to }),
    shape: (data) => data['candles'],
  }),
  defineRoute({
    method: 'GET',
    path: '/markets/board',
    auth: 'public',
    tag: 'Options trading',
    summary: 'Options board of an underlying',
    description: 'Every listed call and put with bid, ask, last price, open interest, 24 h volume, theoretical mark, implied volatility and delta; `expiryForwards` maps each expiry to the forward it is priced on (Black-76).',
    errors: ['PRODUCT_NOT_FOUND'],
    query: z.object({ underlying: queryText('Default `BTC`.').optional() }),
    response: OptionsBoard,
    operation: `query RestBoard($underlying: String!) { optionsBoard(underlying: $underlying) {
      underlying spotPrice timestamp expiryForwards { expiry forward }
      calls { ...RestBoardRow } puts { ...RestBoardRow } } }
      fragment RestBoardRow on OptionsBoardRow {
        marketId strikePrice expiry optionType bid ask lastPrice openInterest volume24h markPrice markIv delta }`,
    variables: ({ query }) => ({ underlying: query.underlying ?? 'BTC' }),
    shape: (data) => {
      const b = data['optionsBoard']
      const row = (r: Record<string, any>) => ({ ...r, optionType: lower(r['optionType']) })
      return {
        underlying: b.underlying,
        spotPrice: b.spotPrice,
        timestamp: b.timestamp,
        expiryForwards: Object.fromEntries(b.expiryForwards.map((f: { expiry: string; forward: string }) => [f.expiry, f.forward])),
        calls: b.calls.map(row),
        puts: b.puts.map(row),
      }
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/catalog/instruments',
    auth: 'public',
    tag: 'Market data',
    summary: 'Instruments',
    description: 'Every listed instrument of every product, with its base price and when it was computed (unix ms).',
    response: z.array(Instrument),
    operation: `query RestInstruments { instruments { edges { node { id type underlying quote basePrice computedAt } } } }`,
    shape: (data) => nodes(data['instruments']).map((i: any) => ({ ...i, type: lower(i.type) })),
  }),
  defineRoute({
    method: 'GET',
    path: '/catalog/instruments/:symbol',
    params: z.object({ symbol: pathId('MARKET_NOT_FOUND', 'Instrument id (a market id).') }),
    auth: 'public',
    tag: 'Market data',
    summary: 'One instrument',
    description: '404 `MARKET_NOT_FOUND` if absent.',
    response: Instrument,
    operation: `query RestInstrument($symbol: String!) { instrument(symbol: $symbol) { id type underlying quote basePrice computedAt } }`,
    variables: ({ params }) => params,
    shape: (data, { params }) => {
      const i = data['instrument']
      if (!i) throw new DomainError('MARKET_NOT_FOUND', `Unknown instrument ${params.symbol}`)
      return { ...i, type: lower(i.type) }
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/catalog/products',
    auth: 'public',
    tag: 'Market data',
    summary: 'Product groupings',
    description: 'Each product (a family\'s spot, perpetual, futures or options) with its fee schedule, margin group and markets.',
    response: z.array(Product),
    operation: `query RestProducts { products { edges { node {
      productId underlying type assetClass marginGroup takerFeeBps makerFeeBps markets { ...RestMarket } } } } } ${MARKET_FIELDS}`,
    shape: (data) =>
      nodes(data['products']).map((p: any) => ({ ...p, type: lower(p.type), assetClass: lower(p.assetClass), markets: p.markets.map(restMarket) })),
  }),
]
