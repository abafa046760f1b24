// Order entry, the same for both REST families (SPEC.md "Options trading" at the root, "Linear trading"
// under /perps): place, preview, cancel, modify, cancel-all, quotes and bulk quotes, each one GraphQL
// operation given the family's market kind, so an id of the other kind is unknown there
// (INVALID_MARKET_ID for a market, ORDER_NOT_FOUND for an order). Writes need scope `trade`; all but
// preview count against the order-path rate limit.
import { DomainError } from '../domain/errors.js'
import { MARGIN_MODES, ORDER_TYPES, SIDES, TIME_IN_FORCE } from '../domain/orders.js'
import type { RestRoute } from './route.js'
import { jsonBody, marketIdField, onlyFields, optBoolean, optEnum, optString, type Body } from './requestFields.js'
import { lower } from './shapes.js'

export const ORDER_FIELDS = /* GraphQL */ `
  fragment RestOrder on Order {
    id userId marketId clientOrderId side type timeInForce price quantity filledQuantity status postOnly reduceOnly
    marginMode stopPrice takeProfitPrice stopLossPrice triggeredAt parentOrderId quoteId cancelReason createdAt updatedAt
  }`

export function restOrder(o: Record<string, any>) {
  return { ...o, side: lower(o['side']), type: lower(o['type']), timeInForce: lower(o['timeInForce']), status: lower(o['status']), marginMode: lower(o['marginMode']) }
}

/** Order ids are ULIDs (the ones the engine makes too): anything else names no order. */
export const ORDER_ID = { notFound: 'ORDER_NOT_FOUND', ulid: true } as const

// Both columns of the spec's fields: an option order carrying a linear-only one is refused by the
// shared rule (400 INVALID_REQUEST, naming the field), as over GraphQL.
const ORDER_REQUEST_FIELDS = [
  'marketId', 'clientOrderId', 'type', 'side', 'price', 'quantity', 'timeInForce', 'postOnly', 'reduceOnly', 'marginMode',
  'stopPrice', 'takeProfitPrice', 'stopLossPrice', 'mmp',
]

/** The order request fields (SPEC.md), type-checked with the spec's codes, as PlaceOrderInput. */
function orderInput(b: Body, kind: RestKind) {
  onlyFields(b, ORDER_REQUEST_FIELDS)
  const side = optEnum(b, 'side', SIDES)
  if (!side) throw new DomainError('INVALID_REQUEST', 'side is required')
  const quantity = optString(b, 'quantity', 'INVALID_QUANTITY')
  if (quantity === undefined) throw new DomainError('INVALID_QUANTITY', 'quantity is required')
  const marketId = marketIdField(b)
  return {
    marketId,
    kind,
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
    // Options only (market-maker protection); the engine refuses it on a linear order.
    mmp: optBoolean(b, 'mmp'),
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

/** The GraphQL MarketKind a REST family sends. */
export type RestKind = 'LINEAR' | 'OPTION'

/** The order entry routes of one family: `prefix` `/perps` (linear) or `` (options, at the root). */
export function orderEntryRoutes(prefix: '/perps' | '', kind: RestKind): RestRoute[] {
  return [
    {
      method: 'POST',
      path: `${prefix}/orders`,
      auth: 'trade',
      orderRateLimited: true,
      operation: `mutation RestPlaceOrder($input: PlaceOrderInput!) { placeOrder(input: $input) { ...RestOrder } } ${ORDER_FIELDS}`,
      variables: (req) => ({ input: orderInput(jsonBody(req), kind) }),
      shape: (data) => restOrder(data['placeOrder']),
    },
    {
      method: 'POST',
      path: `${prefix}/orders/preview`,
      auth: 'trade',
      operation: `mutation RestPreview($input: PlaceOrderInput!) { previewOrder(input: $input) {
        approved reason marginImpact { initialMargin maintenanceMargin } estimatedFee liquidationPrice } }`,
      variables: (req) => ({ input: orderInput(jsonBody(req), kind) }),
      shape: (data) => data['previewOrder'],
    },
    {
      method: 'POST',
      path: `${prefix}/orders/cancel-all`,
      auth: 'trade',
      orderRateLimited: true,
      operation: `mutation RestCancelAll($marketId: String, $quoteId: String, $clientOrderId: String, $kind: MarketKind) {
        cancelAllOrders(marketId: $marketId, quoteId: $quoteId, clientOrderId: $clientOrderId, kind: $kind) { canceled ids } }`,
      variables: (req) => {
        const b = onlyFields(jsonBody(req, true), ['marketId', 'quoteId', 'clientOrderId'])
        return { marketId: optString(b, 'marketId', 'INVALID_MARKET_ID'), quoteId: optString(b, 'quoteId'), clientOrderId: optString(b, 'clientOrderId'), kind }
      },
      shape: (data) => data['cancelAllOrders'],
    },
    {
      method: 'POST',
      path: `${prefix}/orders/:id/cancel`,
      params: { id: ORDER_ID },
      auth: 'trade',
      orderRateLimited: true,
      operation: `mutation RestCancel($id: String!, $kind: MarketKind) { cancelOrder(id: $id, kind: $kind) { ...RestOrder } } ${ORDER_FIELDS}`,
      variables: (req) => ({ id: req.params['id'], kind }),
      shape: (data) => restOrder(data['cancelOrder']),
    },
    {
      method: 'POST',
      path: `${prefix}/orders/:id/modify`,
      params: { id: ORDER_ID },
      auth: 'trade',
      orderRateLimited: true,
      operation: `mutation RestModify($id: String!, $price: Decimal, $quantity: Decimal, $kind: MarketKind) {
        modifyOrder(id: $id, price: $price, quantity: $quantity, kind: $kind) { ...RestOrder } } ${ORDER_FIELDS}`,
      variables: (req) => {
        const b = onlyFields(jsonBody(req), ['price', 'quantity'])
        return { id: req.params['id'], price: optString(b, 'price', 'INVALID_PRICE'), quantity: optString(b, 'quantity', 'INVALID_QUANTITY'), kind }
      },
      shape: (data) => restOrder(data['modifyOrder']),
    },
    {
      method: 'POST',
      path: `${prefix}/quotes`,
      auth: 'trade',
      orderRateLimited: true,
      operation: `mutation RestQuote($input: PlaceQuoteInput!) { placeQuote(input: $input) { ${QUOTE_RESULT} } } ${ORDER_FIELDS}`,
      variables: (req) => {
        const b = onlyFields(jsonBody(req), ['marketId', 'quoteId', 'bid', 'ask'])
        const marketId = marketIdField(b)
        return { input: { marketId, kind, quoteId: optString(b, 'quoteId'), bid: quoteSide(b['bid'], 'bid'), ask: quoteSide(b['ask'], 'ask') } }
      },
      shape: (data) => restQuote(data['placeQuote']),
    },
    {
      method: 'POST',
      path: `${prefix}/quotes/bulk`,
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
        return { input: { marketId, kind, quoteId, cancelAll: optBoolean(b, 'cancelAll') ?? false, amend: optBoolean(b, 'amend') ?? false, quotes } }
      },
      shape: (data) => {
        const q = data['placeBulkQuotes']
        return { ...restQuote(q), canceled: q.canceledIds.length, canceledIds: q.canceledIds }
      },
    },
  ]
}
