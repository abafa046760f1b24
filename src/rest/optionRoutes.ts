// Options trading routes (SPEC.md "Options trading"), each one GraphQL operation: order entry
// (orderEntryRoutes.ts, given the option kind: a linear id is INVALID_MARKET_ID here, a linear order
// ORDER_NOT_FOUND) and the account's option reads. Lists are newest first, `limit` (≤ 200) and
// `cursor`, next page in X-Next-Cursor.
import { z } from 'zod'
import { ORDER_FIELDS, orderEntryRoutes, restOrder } from './orderEntryRoutes.js'
import { pageVariables, paging, queryText } from './requestSchema.js'
import { OptionPosition, OptionsBalance, OptionTrade, OrderList } from './responseSchemas.js'
import { defineRoute, type RestRoute } from './route.js'
import { lower, nextCursor, present } from './shapes.js'

/**
 * An option trade row as SPEC.md's Trade has it (no `role`: "linear trades only"), plus `premium` and
 * `indexPrice`; settlement rows add `type` and `amount` as the linear history does.
 */
function restOptionTrade(n: any) {
  const { amount, ...rest } = n
  return { ...rest, side: lower(n.side), type: lower(n.type), ...(amount === null ? {} : { amount }) }
}

const listQuery = z.object({ ...paging, marketId: queryText('Only this market.').optional() })

export const optionRoutes: RestRoute[] = [
  ...orderEntryRoutes('', 'OPTION'),
  defineRoute({
    method: 'GET',
    path: '/orders/me',
    auth: 'read',
    tag: 'Options trading',
    summary: 'The caller\'s option orders',
    description: 'Open, filled and canceled option orders, newest first; `limit` (default 100, at most 200), next page in `X-Next-Cursor`.',
    query: listQuery,
    response: OrderList,
    operation: `query RestOptionOrders($first: Int!, $after: String, $marketId: String) {
      me { orders(first: $first, after: $after, marketId: $marketId, kind: OPTION) {
        edges { node { ...RestOrder } } pageInfo { hasNextPage endCursor } } } } ${ORDER_FIELDS}`,
    variables: ({ query }) => present({ ...pageVariables(query), marketId: query.marketId }),
    shape: (data) => data['me'].orders.edges.map((e: any) => restOrder(e.node)),
    headers: (data) => nextCursor(data['me'].orders),
  }),
  defineRoute({
    method: 'GET',
    path: '/balances/me',
    auth: 'read',
    tag: 'Options trading',
    summary: 'The options bucket',
    description: '`available`, `locked` (what short options and open orders hold) and `total`.',
    response: OptionsBalance,
    operation: `query RestOptionsBalance { me { optionsBalance { available locked total } } }`,
    shape: (data) => data['me'].optionsBalance,
  }),
  defineRoute({
    method: 'GET',
    path: '/positions/me',
    auth: 'read',
    tag: 'Options trading',
    summary: 'The caller\'s option positions',
    description: 'Signed quantity (negative when short), P&L at the theoretical mark.',
    response: z.array(OptionPosition),
    operation: `query RestOptionPositions { me { optionPositions(first: 1000) { edges { node {
      marketId quantity avgPrice realizedPnl unrealizedPnl } } } } }`,
    shape: (data) => data['me'].optionPositions.edges.map((e: any) => e.node),
  }),
  defineRoute({
    method: 'GET',
    path: '/trades/me',
    auth: 'read',
    tag: 'Options trading',
    summary: 'The caller\'s option trades',
    description: 'Fills (with `premium` and the `indexPrice` it was paid at) and expiry settlements, newest first; next page in `X-Next-Cursor`.',
    query: listQuery,
    response: z.array(OptionTrade),
    operation: `query RestOptionTrades($first: Int!, $after: String, $marketId: String) {
      me { trades(first: $first, after: $after, marketId: $marketId, kind: OPTION) {
        edges { node { tradeId marketId orderId side price quantity fee feeBps premium indexPrice type amount createdAt } }
        pageInfo { hasNextPage endCursor } } } }`,
    variables: ({ query }) => present({ ...pageVariables(query), marketId: query.marketId }),
    shape: (data) => data['me'].trades.edges.map((e: any) => restOptionTrade(e.node)),
    headers: (data) => nextCursor(data['me'].trades),
  }),
]
