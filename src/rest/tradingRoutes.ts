// Linear trading routes (SPEC.md "Linear trading" and the dead man's switch), each one GraphQL
// operation: order entry (orderEntryRoutes.ts, given the linear kind) and the account's linear reads.
// Writes need scope `trade` and count against the order-path rate limit; reads need any credential.
// Lists are newest first, `limit` (≤ 200) and `cursor`, next page in X-Next-Cursor.
import { DomainError } from '../domain/errors.js'
import { MARGIN_MODES } from '../domain/orders.js'
import { ORDER_FIELDS, orderEntryRoutes, restOrder } from './orderEntryRoutes.js'
import type { RestRequest, RestRoute } from './route.js'
import { jsonBody, marketIdField, onlyFields, optString, paging, queryString } from './requestFields.js'
import { lower, nextCursor } from './shapes.js'

const orderList = (path: string, open: boolean): RestRoute => ({
  method: 'GET',
  path,
  auth: 'read',
  operation: `query RestOrders($first: Int!, $after: String, $marketId: String, $marginMode: MarginMode, $status: OrderStatus) {
    me { orders(first: $first, after: $after, marketId: $marketId, kind: LINEAR, marginMode: $marginMode, status: $status) {
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
  ...orderEntryRoutes('/perps', 'LINEAR'),
  orderList('/perps/orders', false),
  orderList('/perps/orders/open', true),
  {
    method: 'GET',
    path: '/perps/trades',
    auth: 'read',
    operation: `query RestTrades($first: Int!, $after: String, $marketId: String) {
      me { trades(first: $first, after: $after, marketId: $marketId, kind: LINEAR) {
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
