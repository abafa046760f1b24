// Options trading routes (SPEC.md "Options trading"), each one GraphQL operation: order entry
// (orderEntryRoutes.ts, given the option kind: a linear id is INVALID_MARKET_ID here, a linear order
// ORDER_NOT_FOUND) and the account's option reads. Lists are newest first, `limit` (≤ 200) and
// `cursor`, next page in X-Next-Cursor.
import { ORDER_FIELDS, orderEntryRoutes, restOrder } from './orderEntryRoutes.js'
import type { RestRoute } from './route.js'
import { paging, queryString } from './requestFields.js'
import { lower, nextCursor } from './shapes.js'

/**
 * An option trade row as SPEC.md's Trade has it (no `role`: "linear trades only"), plus `premium` and
 * `indexPrice`; settlement rows add `type` and `amount` as the linear history does.
 */
function restOptionTrade(n: any) {
  const { amount, ...rest } = n
  return { ...rest, side: lower(n.side), ...(amount === null ? {} : { amount }) }
}

export const optionRoutes: RestRoute[] = [
  ...orderEntryRoutes('', 'OPTION'),
  {
    method: 'GET',
    path: '/orders/me',
    auth: 'read',
    operation: `query RestOptionOrders($first: Int!, $after: String, $marketId: String) {
      me { orders(first: $first, after: $after, marketId: $marketId, kind: OPTION) {
        edges { node { ...RestOrder } } pageInfo { hasNextPage endCursor } } } } ${ORDER_FIELDS}`,
    variables: (req) => ({ ...paging(req), marketId: queryString(req, 'marketId') }),
    shape: (data) => data['me'].orders.edges.map((e: any) => restOrder(e.node)),
    headers: (data) => nextCursor(data['me'].orders),
  },
  {
    method: 'GET',
    path: '/balances/me',
    auth: 'read',
    operation: `query RestOptionsBalance { me { optionsBalance { available locked total } } }`,
    shape: (data) => data['me'].optionsBalance,
  },
  {
    method: 'GET',
    path: '/positions/me',
    auth: 'read',
    operation: `query RestOptionPositions { me { optionPositions(first: 1000) { edges { node {
      marketId quantity avgPrice realizedPnl unrealizedPnl } } } } }`,
    shape: (data) => data['me'].optionPositions.edges.map((e: any) => e.node),
  },
  {
    method: 'GET',
    path: '/trades/me',
    auth: 'read',
    operation: `query RestOptionTrades($first: Int!, $after: String, $marketId: String) {
      me { trades(first: $first, after: $after, marketId: $marketId, kind: OPTION) {
        edges { node { tradeId marketId orderId side price quantity fee feeBps premium indexPrice type amount createdAt } }
        pageInfo { hasNextPage endCursor } } } }`,
    variables: (req) => ({ ...paging(req), marketId: queryString(req, 'marketId') }),
    shape: (data) => data['me'].trades.edges.map((e: any) => restOptionTrade(e.node)),
    headers: (data) => nextCursor(data['me'].trades),
  },
]
