// Linear trading routes (SPEC.md "Linear trading" and the dead man's switch), each one GraphQL
// operation. Writes need scope `trade` and count against the order-path rate limit; reads need any
// credential. Lists are newest first, `limit` (≤ 200) and `cursor`, next page in X-Next-Cursor.
import { DomainError } from '../domain/errors.js'
import { MARGIN_MODES, ORDER_TYPES, SIDES, TIME_IN_FORCE } from '../domain/orders.js'
import type { RestRequest, RestRoute } from './route.js'
import { jsonBody, marketIdField, onlyFields, optBoolean, optEnum, optString, paging, queryString, type Body } from './requestFields.js'
import { lower } from './shapes.js'

const ORDER_FIELDS = /* GraphQL */ `
  fragment RestOrder on Order {
    id userId marketId clientOrderId side type timeInForce price quantity filledQuantity status postOnly reduceOnly
    marginMode stopPrice takeProfitPrice stopLossPrice triggeredAt parentOrderId quoteId cancelReason createdAt updatedAt
  }`

export function restOrder(o: Record<string, any>) {
  return { ...o, side: lower(o['side']), type: lower(o['type']), timeInForce: lower(o['timeInForce']), status: lower(o['status']), marginMode: lower(o['marginMode']) }
}

/** Order ids are ULIDs (the ones the engine makes too): anything else names no order. */
const ORDER_ID = { notFound: 'ORDER_NOT_FOUND', ulid: true } as const

const ORDER_REQUEST_FIELDS = [
  'marketId', 'clientOrderId', 'type', 'side', 'price', 'quantity', 'timeInForce', 'postOnly', 'reduceOnly', 'marginMode',
  'stopPrice', 'takeProfitPrice', 'stopLossPrice',
]

/** The order request fields (SPEC.md), type-checked with the spec's codes, as PlaceOrderInput. */
function orderInput(b: Body) {
  onlyFields(b, ORDER_REQUEST_FIELDS)
  const side = optEnum(b, 'side', SIDES)
  if (!side) throw new DomainError('INVALID_REQUEST', 'side is required')
  const quantity = optString(b, 'quantity', 'INVALID_QUANTITY')
  if (quantity === undefined) throw new DomainError('INVALID_QUANTITY', 'quantity is required')
  const marketId = marketIdField(b)
  return {
    marketId,
    clientOrderId: optString(b, 'clientOrderId'),
    type: optEnum(b, 'type', ORDER_TYPES),
    side,
    price: optString(b, 'price', 'INVALID_PRICE'),
    quantity,
    timeInForce: optEnum(b, 'timeInForce', TIME_IN_FORCE, 'INVALID_TIME_IN_FORCE'),
    postOnly: optBoolean(b, 'postOnly'),
    reduceOnly: optBoolean(b, 'reduceOnly'),
    marginMode: optEnum(b, 'marginMode', MARGIN_MODES),
    stopPrice: optString(b, 'stopPrice', 'INVALID_PRICE'),
    takeProfitPrice: optString(b, 'takeProfitPrice', 'INVALID_PRICE'),
    stopLossPrice: optString(b, 'stopLossPrice', 'INVALID_PRICE'),
  }
}

function quoteSide(v: unknown, side: string) {
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'object' || Array.isArray(v)) throw new DomainError('INVALID_REQUEST', `${side} must be an object`)
  const b = onlyFields(v as Body, ['price', 'quantity', 'clientOrderId'])
  const price = optString(b, 'price', 'INVALID_PRICE')
  const quantity = optString(b, 'quantity', 'INVALID_QUANTITY')
  if (price === undefined) throw new DomainError('INVALID_PRICE', `${side}.price is required`)
  if (quantity === undefined) throw new DomainError('INVALID_QUANTITY', `${side}.quantity is required`)
  return { price, quantity, clientOrderId: optString(b, 'clientOrderId') }
}

const QUOTE_RESULT = `marketId quoteId canceledIds results { side response { ...RestOrder } }`
const restQuote = (q: Record<string, any>) => ({
  marketId: q['marketId'],
  quoteId: q['quoteId'],
  results: q['results'].map((r: any) => ({ side: lower(r.side), response: restOrder(r.response) })),
})

const nextCursor = (connection: { pageInfo: { hasNextPage: boolean; endCursor: string | null } }): Record<string, string> =>
  connection.pageInfo.hasNextPage && connection.pageInfo.endCursor ? { 'X-Next-Cursor': connection.pageInfo.endCursor } : {}

const orderList = (path: string, open: boolean): RestRoute => ({
  method: 'GET',
  path,
  auth: 'read',
  operation: `query RestOrders($first: Int!, $after: String, $marketId: String, $marginMode: MarginMode, $status: OrderStatus) {
    me { orders(first: $first, after: $after, marketId: $marketId, marginMode: $marginMode, status: $status) {
      edges { node { ...RestOrder } } pageInfo { hasNextPage endCursor } } } } ${ORDER_FIELDS}`,
  variables: (req: RestRequest) => {
    const marginMode = queryString(req, 'marginMode')
    if (marginMode !== undefined && !(MARGIN_MODES as readonly string[]).includes(marginMode)) {
      throw new DomainError('INVALID_REQUEST', 'marginMode must be cross or isolated')
    }
    return { ...paging(req), marketId: queryString(req, 'marketId'), marginMode: marginMode?.toUpperCase(), status: open ? 'OPEN' : undefined }
  },
  shape: (data) => data['me'].orders.edges.map((e: any) => restOrder(e.node)),
  headers: (data) => nextCursor(data['me'].orders),
})

/** A trade row; `amount` and `fundingRate` (funding and settlement rows) are left out of fills, as the spec shows them. */
function restTrade(n: any) {
  const { amount, fundingRate, ...rest } = n
  return { ...rest, side: lower(n.side), role: lower(n.role), ...(amount === null ? {} : { amount }), ...(fundingRate === null ? {} : { fundingRate }) }
}

export const tradingRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/perps/orders',
    auth: 'trade',
    orderRateLimited: true,
    operation: `mutation RestPlaceOrder($input: PlaceOrderInput!) { placeOrder(input: $input) { ...RestOrder } } ${ORDER_FIELDS}`,
    variables: (req) => ({ input: orderInput(jsonBody(req)) }),
    shape: (data) => restOrder(data['placeOrder']),
  },
  {
    method: 'POST',
    path: '/perps/orders/preview',
    auth: 'trade',
    operation: `mutation RestPreview($input: PlaceOrderInput!) { previewOrder(input: $input) {
      approved reason marginImpact { initialMargin maintenanceMargin } estimatedFee liquidationPrice } }`,
    variables: (req) => ({ input: orderInput(jsonBody(req)) }),
    shape: (data) => data['previewOrder'],
  },
  {
    method: 'POST',
    path: '/perps/orders/cancel-all',
    auth: 'trade',
    orderRateLimited: true,
    operation: `mutation RestCancelAll($marketId: String, $quoteId: String, $clientOrderId: String) {
      cancelAllOrders(marketId: $marketId, quoteId: $quoteId, clientOrderId: $clientOrderId) { canceled ids } }`,
    variables: (req) => {
      const b = onlyFields(jsonBody(req, true), ['marketId', 'quoteId', 'clientOrderId'])
      return { marketId: optString(b, 'marketId', 'INVALID_MARKET_ID'), quoteId: optString(b, 'quoteId'), clientOrderId: optString(b, 'clientOrderId') }
    },
    shape: (data) => data['cancelAllOrders'],
  },
  {
    method: 'POST',
    path: '/perps/orders/:id/cancel',
    params: { id: ORDER_ID },
    auth: 'trade',
    orderRateLimited: true,
    operation: `mutation RestCancel($id: String!) { cancelOrder(id: $id) { ...RestOrder } } ${ORDER_FIELDS}`,
    variables: (req) => ({ id: req.params['id'] }),
    shape: (data) => restOrder(data['cancelOrder']),
  },
  {
    method: 'POST',
    path: '/perps/orders/:id/modify',
    params: { id: ORDER_ID },
    auth: 'trade',
    orderRateLimited: true,
    operation: `mutation RestModify($id: String!, $price: Decimal, $quantity: Decimal) {
      modifyOrder(id: $id, price: $price, quantity: $quantity) { ...RestOrder } } ${ORDER_FIELDS}`,
    variables: (req) => {
      const b = onlyFields(jsonBody(req), ['price', 'quantity'])
      return { id: req.params['id'], price: optString(b, 'price', 'INVALID_PRICE'), quantity: optString(b, 'quantity', 'INVALID_QUANTITY') }
    },
    shape: (data) => restOrder(data['modifyOrder']),
  },
  orderList('/perps/orders', false),
  orderList('/perps/orders/open', true),
  {
    method: 'GET',
    path: '/perps/trades',
    auth: 'read',
    operation: `query RestTrades($first: Int!, $after: String, $marketId: String) {
      me { trades(first: $first, after: $after, marketId: $marketId) {
        edges { node { tradeId marketId orderId side price quantity fee feeBps role type amount fundingRate createdAt } } pageInfo { hasNextPage endCursor } } } }`,
    variables: (req) => ({ ...paging(req), marketId: queryString(req, 'marketId') }),
    shape: (data) => data['me'].trades.edges.map((e: any) => restTrade(e.node)),
    headers: (data) => nextCursor(data['me'].trades),
  },
  {
    method: 'GET',
    path: '/perps/liquidations',
    auth: 'read',
    operation: `query RestLiquidations($first: Int!, $after: String) { me { liquidations(first: $first, after: $after) {
      edges { node { id marketId orderId marginMode quantity closedQuantity price realizedPnl fee insurance equity maintenanceMargin createdAt } }
      pageInfo { hasNextPage endCursor } } } }`,
    variables: (req) => paging(req),
    shape: (data) => data['me'].liquidations.edges.map((e: any) => ({ ...e.node, marginMode: lower(e.node.marginMode) })),
    headers: (data) => nextCursor(data['me'].liquidations),
  },
  {
    method: 'GET',
    path: '/perps/positions',
    auth: 'read',
    operation: `query RestPositions { me { positions(first: 1000) { edges { node {
      marketId side quantity avgPrice markPrice realizedPnl unrealizedPnl fundingPayment marginMode initialMargin maintenanceMargin isolatedMargin } } } } }`,
    shape: (data) => data['me'].positions.edges.map((e: any) => ({ ...e.node, side: lower(e.node.side), marginMode: lower(e.node.marginMode) })),
  },
  {
    method: 'POST',
    path: '/perps/positions/close',
    auth: 'trade',
    orderRateLimited: true,
    operation: `mutation RestClose($marketId: String!, $quantity: Decimal) { closePosition(marketId: $marketId, quantity: $quantity) { ...RestOrder } } ${ORDER_FIELDS}`,
    variables: (req) => {
      const b = onlyFields(jsonBody(req), ['marketId', 'quantity'])
      const marketId = marketIdField(b)
      return { marketId, quantity: optString(b, 'quantity', 'INVALID_QUANTITY') }
    },
    shape: (data) => restOrder(data['closePosition']),
  },
  {
    method: 'POST',
    path: '/perps/quotes',
    auth: 'trade',
    orderRateLimited: true,
    operation: `mutation RestQuote($input: PlaceQuoteInput!) { placeQuote(input: $input) { ${QUOTE_RESULT} } } ${ORDER_FIELDS}`,
    variables: (req) => {
      const b = onlyFields(jsonBody(req), ['marketId', 'quoteId', 'bid', 'ask'])
      const marketId = marketIdField(b)
      return { input: { marketId, quoteId: optString(b, 'quoteId'), bid: quoteSide(b['bid'], 'bid'), ask: quoteSide(b['ask'], 'ask') } }
    },
    shape: (data) => restQuote(data['placeQuote']),
  },
  {
    method: 'POST',
    path: '/perps/quotes/bulk',
    auth: 'trade',
    orderRateLimited: true,
    operation: `mutation RestBulk($input: PlaceBulkQuotesInput!) { placeBulkQuotes(input: $input) { ${QUOTE_RESULT} } } ${ORDER_FIELDS}`,
    variables: (req) => {
      const b = onlyFields(jsonBody(req), ['marketId', 'quoteId', 'cancelAll', 'amend', 'quotes'])
      const marketId = marketIdField(b)
      const quoteId = optString(b, 'quoteId')
      if (!quoteId) throw new DomainError('INVALID_REQUEST', 'quoteId is required')
      if (!Array.isArray(b['quotes'])) throw new DomainError('INVALID_REQUEST', 'quotes must be a list')
      const quotes = b['quotes'].map((q: unknown) => {
        const side = typeof q === 'object' && q !== null ? optEnum(q as Body, 'side', SIDES) : undefined
        if (!side) throw new DomainError('INVALID_REQUEST', 'Every quote needs a side of buy or sell')
        const { side: _s, ...rest } = q as Body
        return { side, ...quoteSide(rest, 'quote') }
      })
      return { input: { marketId, quoteId, cancelAll: optBoolean(b, 'cancelAll') ?? false, amend: optBoolean(b, 'amend') ?? false, quotes } }
    },
    shape: (data) => {
      const q = data['placeBulkQuotes']
      return { ...restQuote(q), canceled: q.canceledIds.length, canceledIds: q.canceledIds }
    },
  },
  {
    method: 'POST',
    path: '/orders/cancel-all-after',
    auth: 'trade',
    operation: `mutation RestDeadMan($timeoutMs: Int!) { cancelAllAfter(timeoutMs: $timeoutMs) { timeoutMs cancelAt } }`,
    variables: (req) => {
      const t = onlyFields(jsonBody(req), ['timeoutMs'])['timeoutMs']
      if (typeof t !== 'number' || !Number.isSafeInteger(t)) throw new DomainError('INVALID_REQUEST', 'timeoutMs must be an integer of milliseconds')
      return { timeoutMs: t }
    },
    shape: (data) => data['cancelAllAfter'],
  },
]
