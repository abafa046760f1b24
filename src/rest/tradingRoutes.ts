// Linear trading routes (SPEC.md "Linear trading" and the dead man's switch), each one GraphQL
// operation: order entry (orderEntryRoutes.ts, given the linear kind) and the account's linear reads.
// Writes need scope `trade` and count against the order-path rate limit; reads need any credential.
// Lists are newest first, `limit` (≤ 200) and `cursor`, next page in X-Next-Cursor.
import { z } from 'zod'
import { MARGIN_MODES } from '../domain/orders.js'
import { MAX_TIMEOUT_MS, MIN_TIMEOUT_MS } from '../engine/handlers/deadman.js'
import { ORDER_FIELDS, orderEntryRoutes, restOrder } from './orderEntryRoutes.js'
import { marketId, pageVariables, paging, quantity, queryText, upper } from './requestSchema.js'
import { DeadManSwitch, Liquidation, Order, OrderList, Position, Trade } from './responseSchemas.js'
import { defineRoute, type RestRoute } from './route.js'
import { lower, nextCursor, present } from './shapes.js'

const orderListQuery = z.object({
  ...paging,
  marketId: queryText('Only this market.').optional(),
  marginMode: z.enum(MARGIN_MODES).optional().meta({ description: '`cross` or `isolated`.' }),
})

const orderList = (path: string, open: boolean): RestRoute =>
  defineRoute({
    method: 'GET',
    path,
    auth: 'read',
    tag: 'Linear trading',
    summary: open ? 'The caller\'s open linear orders' : 'The caller\'s linear orders',
    description: `${open ? 'Open orders only (resting or untriggered stops)' : 'Open, filled, canceled and rejected orders'}, newest first; the next page's cursor is in \`X-Next-Cursor\`. Orders that ended without a fill are pruned after PRUNE_UNFILLED_ORDERS_AFTER_MS (24 h by default).`,
    query: orderListQuery,
    response: OrderList,
    operation: `query RestOrders($first: Int!, $after: String, $marketId: String, $marginMode: MarginMode, $status: OrderStatus) {
    me { orders(first: $first, after: $after, marketId: $marketId, kind: LINEAR, marginMode: $marginMode, status: $status) {
      edges { node { ...RestOrder } } pageInfo { hasNextPage endCursor } } } } ${ORDER_FIELDS}`,
    variables: ({ query }) => present({ ...pageVariables(query), marketId: query.marketId, marginMode: upper(query.marginMode), status: open ? 'OPEN' : undefined }),
    shape: (data) => data['me'].orders.edges.map((e: any) => restOrder(e.node)),
    headers: (data) => nextCursor(data['me'].orders),
  })

/** A trade row; `amount` and `fundingRate` (funding and settlement rows) are left out of fills, as the spec shows them. */
function restTrade(n: any) {
  const { amount, fundingRate, ...rest } = n
  return { ...rest, side: lower(n.side), role: lower(n.role), type: lower(n.type), ...(amount === null ? {} : { amount }), ...(fundingRate === null ? {} : { fundingRate }) }
}

export const tradingRoutes: RestRoute[] = [
  ...orderEntryRoutes('/perps', 'LINEAR'),
  orderList('/perps/orders', false),
  orderList('/perps/orders/open', true),
  defineRoute({
    method: 'GET',
    path: '/perps/trades',
    auth: 'read',
    tag: 'Linear trading',
    summary: 'The caller\'s linear trades',
    description: 'Fills, funding payments (`type: "funding"`) and futures settlements, newest first; next page in `X-Next-Cursor`.',
    query: z.object({ ...paging, marketId: queryText('Only this market.').optional() }),
    response: z.array(Trade),
    operation: `query RestTrades($first: Int!, $after: String, $marketId: String) {
      me { trades(first: $first, after: $after, marketId: $marketId, kind: LINEAR) {
        edges { node { tradeId marketId orderId side price quantity fee feeBps role type amount fundingRate createdAt } } pageInfo { hasNextPage endCursor } } } }`,
    variables: ({ query }) => present({ ...pageVariables(query), marketId: query.marketId }),
    shape: (data) => data['me'].trades.edges.map((e: any) => restTrade(e.node)),
    headers: (data) => nextCursor(data['me'].trades),
  }),
  defineRoute({
    method: 'GET',
    path: '/perps/liquidations',
    auth: 'read',
    tag: 'Linear trading',
    summary: 'The caller\'s liquidation steps',
    description: 'Each step of a liquidation (orders cancelled, position closed in steps, insurance covering a shortfall), newest first; next page in `X-Next-Cursor`.',
    query: z.object(paging),
    response: z.array(Liquidation),
    operation: `query RestLiquidations($first: Int!, $after: String) { me { liquidations(first: $first, after: $after) {
      edges { node { id marketId orderId marginMode quantity closedQuantity price realizedPnl fee insurance equity maintenanceMargin createdAt } }
      pageInfo { hasNextPage endCursor } } } }`,
    variables: ({ query }) => pageVariables(query),
    shape: (data) => data['me'].liquidations.edges.map((e: any) => ({ ...e.node, marginMode: lower(e.node.marginMode) })),
    headers: (data) => nextCursor(data['me'].liquidations),
  }),
  defineRoute({
    method: 'GET',
    path: '/perps/positions',
    auth: 'read',
    tag: 'Linear trading',
    summary: 'The caller\'s linear positions',
    description: 'Spot holdings (as `long`), perpetuals and futures, valued at the current marks.',
    response: z.array(Position),
    operation: `query RestPositions { me { positions(first: 1000) { edges { node {
      marketId side quantity avgPrice markPrice realizedPnl unrealizedPnl fundingPayment marginMode initialMargin maintenanceMargin isolatedMargin } } } } }`,
    shape: (data) => data['me'].positions.edges.map((e: any) => ({ ...e.node, side: lower(e.node.side), marginMode: lower(e.node.marginMode) })),
  }),
  defineRoute({
    method: 'POST',
    path: '/perps/positions/close',
    auth: 'trade',
    orderRateLimited: true,
    tag: 'Linear trading',
    summary: 'Close a linear position',
    description: 'Places a reduce-only market order for `quantity`, or the whole position when it is omitted; returns that order.',
    errors: ['INVALID_MARKET_ID', 'INVALID_QUANTITY', 'MARKET_HALTED', 'REDUCE_ONLY_VIOLATION', 'STALE_MARK_PRICE', 'MISSING_MARK_PRICE', 'OUTCOME_UNKNOWN'],
    body: z.strictObject({ marketId: marketId(), quantity: quantity('How much to close; omitted: all of it.').nullish() }),
    response: Order,
    operation: `mutation RestClose($marketId: String!, $quantity: Decimal) { closePosition(marketId: $marketId, quantity: $quantity) { ...RestOrder } } ${ORDER_FIELDS}`,
    variables: ({ body }) => present(body),
    shape: (data) => restOrder(data['closePosition']),
  }),
  defineRoute({
    method: 'POST',
    path: '/orders/cancel-all-after',
    auth: 'trade',
    tag: 'Linear trading',
    summary: 'Dead man\'s switch: cancel all orders unless refreshed',
    description: 'Cancels all the caller\'s orders (every product) `timeoutMs` after the last call unless called again in time; `timeoutMs` 0 disarms it.',
    body: z.strictObject({ timeoutMs: z.number().int().meta({ description: `0 (disarm), or ${MIN_TIMEOUT_MS} to ${MAX_TIMEOUT_MS} ms until the cancel.` }) }),
    response: DeadManSwitch,
    operation: `mutation RestDeadMan($timeoutMs: Int!) { cancelAllAfter(timeoutMs: $timeoutMs) { timeoutMs cancelAt } }`,
    variables: ({ body }) => body,
    shape: (data) => data['cancelAllAfter'],
  }),
]
