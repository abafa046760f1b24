// Public market-data routes (SPEC.md "Market data"), each one GraphQL operation.
import { DomainError } from '../domain/errors.js'
import { queryString, requiredQuery } from './requestFields.js'
import type { RestRequest, RestRoute } from './route.js'
import { BOOK_FIELDS, lower, MARKET_FIELDS, nodes, restBook, restMarket } from './shapes.js'

/** A query parameter that must be a non-negative integer (unix seconds), or absent. */
function unixSeconds(req: RestRequest, name: string): number | undefined {
  const v = queryString(req, name)
  if (v === undefined) return undefined
  if (!/^\d{1,15}$/.test(v)) throw new DomainError('INVALID_REQUEST', `${name} must be an integer of unix seconds`, { [name]: v })
  return Number(v)
}

/** `/perps/orderbook` serves linear books and `/orderbook` option books; the other kind's ids are 404 there. */
const orderbookRoute = (path: string, linear: boolean): RestRoute => ({
  method: 'GET',
  path,
  params: { marketId: { notFound: 'MARKET_NOT_FOUND' } },
  auth: 'public',
  operation: `query ${linear ? 'RestPerpsOrderbook' : 'RestOptionsOrderbook'}($marketId: String!) {
    orderbook(marketId: $marketId, linear: ${linear}) { ...RestBook } } ${BOOK_FIELDS}`,
  variables: (req) => ({ marketId: req.params['marketId'] }),
  shape: (data) => restBook(data['orderbook']),
})

export const marketRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/perps/markets',
    auth: 'public',
    operation: `query RestPerpsMarkets { markets(linear: true) { edges { node { ...RestMarket } } } } ${MARKET_FIELDS}`,
    shape: (data) => nodes(data['markets']).map((m) => restMarket(m as Record<string, unknown>)),
  },
  orderbookRoute('/perps/orderbook/:marketId', true),
  orderbookRoute('/orderbook/:marketId', false),
  {
    method: 'GET',
    path: '/perps/market-stats',
    auth: 'public',
    operation: `query RestMarketStats { marketStats { edges { node {
      marketId last high24h low24h volume24h openInterest change24h fundingRate nextFundingAt } } } }`,
    shape: (data) => nodes(data['marketStats']),
  },
  {
    method: 'GET',
    path: '/perps/ohlc',
    auth: 'public',
    operation: `query RestOhlc($marketId: String!, $resolution: String!, $from: SafeInt, $to: SafeInt) {
      candles(marketId: $marketId, resolution: $resolution, from: $from, to: $to) { timestamp open high low close volume } }`,
    variables: (req) => ({
      marketId: requiredQuery(req, 'symbol'),
      resolution: queryString(req, 'resolution') ?? '15',
      from: unixSeconds(req, 'from'),
      to: unixSeconds(req, 'to'),
    }),
    shape: (data) => data['candles'],
  },
  {
    method: 'GET',
    path: '/markets/board',
    auth: 'public',
    operation: `query RestBoard($underlying: String!) { optionsBoard(underlying: $underlying) {
      underlying spotPrice timestamp expiryForwards { expiry forward }
      calls { ...RestBoardRow } puts { ...RestBoardRow } } }
      fragment RestBoardRow on OptionsBoardRow {
        marketId strikePrice expiry optionType bid ask lastPrice openInterest volume24h markPrice markIv delta }`,
    variables: (req) => ({ underlying: queryString(req, 'underlying') ?? 'BTC' }),
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
  },
  {
    method: 'GET',
    path: '/catalog/instruments',
    auth: 'public',
    operation: `query RestInstruments { instruments { edges { node { id type underlying quote basePrice computedAt } } } }`,
    shape: (data) => nodes(data['instruments']).map((i: any) => ({ ...i, type: lower(i.type) })),
  },
  {
    method: 'GET',
    path: '/catalog/instruments/:symbol',
    params: { symbol: { notFound: 'MARKET_NOT_FOUND' } },
    auth: 'public',
    operation: `query RestInstrument($symbol: String!) { instrument(symbol: $symbol) { id type underlying quote basePrice computedAt } }`,
    variables: (req) => ({ symbol: req.params['symbol'] }),
    shape: (data, req) => {
      const i = data['instrument']
      if (!i) throw new DomainError('MARKET_NOT_FOUND', `Unknown instrument ${req.params['symbol']}`)
      return { ...i, type: lower(i.type) }
    },
  },
  {
    method: 'GET',
    path: '/catalog/products',
    auth: 'public',
    operation: `query RestProducts { products { edges { node {
      productId underlying type assetClass marginGroup takerFeeBps makerFeeBps markets { ...RestMarket } } } } } ${MARKET_FIELDS}`,
    shape: (data) =>
      nodes(data['products']).map((p: any) => ({ ...p, type: lower(p.type), markets: p.markets.map(restMarket) })),
  },
]
