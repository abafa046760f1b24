// Wallet routes (SPEC.md "Wallet"; withdrawals and deposits on chain, DESIGN.md §12; the test-network
// faucet of DESIGN.md §9), each one GraphQL operation. Lists are newest first, `limit` and `cursor`, next
// page in X-Next-Cursor.
import { z } from 'zod'
import { USER_BUCKETS } from '../domain/buckets.js'
import { decimal, pageVariables, paging, text } from './requestSchema.js'
import { Deposit, FaucetResult, Portfolio, PortfolioBalances, TransferResult, WalletBalance, Withdrawal } from './responseSchemas.js'
import { defineRoute, type RestRoute } from './route.js'
import { lower, nextCursor } from './shapes.js'

const PORTFOLIO_BALANCES = 'buckets { wallet spot perps options } total options { available locked total } onchainDepositTotal pendingWithdrawalTotal'
const WITHDRAWAL = 'id amount toAddress status txHash error createdAt updatedAt'
const withdrawal = (w: any) => ({ ...w, status: lower(w.status) })
const bucket = (description: string) => z.enum(USER_BUCKETS).meta({ description })

export const walletRoutes: RestRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/wallet/balance',
    auth: 'read',
    tag: 'Wallet',
    summary: 'Balances per bucket',
    description: 'The `wallet`, `spot`, `perps` and `options` buckets, what came in on chain and what is pending withdrawal.',
    response: WalletBalance,
    operation: `query RestBalance { me { balance {
      onchainDepositTotal tradableBalance walletBalance spotBalance perpsBalance optionsBalance pendingWithdrawalTotal } } }`,
    shape: (data) => data['me'].balance,
  }),
  defineRoute({
    method: 'POST',
    path: '/wallet/transfer',
    auth: 'trade',
    tag: 'Wallet',
    summary: 'Move funds between buckets',
    description:
      'Instant and free. Equal `from` and `to` fail with `SAME_BUCKET`, an insufficient bucket with `INSUFFICIENT_BALANCE`; a transfer out of `perps` or `options` may not leave the bucket below its margin requirement (`INSUFFICIENT_MARGIN`).',
    errors: ['SAME_BUCKET', 'INSUFFICIENT_BALANCE', 'INSUFFICIENT_MARGIN', 'OUTCOME_UNKNOWN'],
    body: z.strictObject({
      from: bucket('Source bucket.'),
      to: bucket('Destination bucket.'),
      amount: decimal('USDC-T, positive, at most 6 decimals.'),
    }),
    response: TransferResult,
    operation: `mutation RestTransfer($from: Bucket!, $to: Bucket!, $amount: Decimal!) {
      transfer(from: $from, to: $to, amount: $amount) { from to amount balances { wallet spot perps options } } }`,
    variables: ({ body }) => ({ from: body.from.toUpperCase(), to: body.to.toUpperCase(), amount: body.amount }),
    shape: (data) => ({ ...data['transfer'], from: lower(data['transfer'].from), to: lower(data['transfer'].to) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/wallet/withdraw',
    auth: 'trade',
    tag: 'Wallet',
    summary: 'Withdraw USDC-T on chain',
    description:
      'Moves `amount` from the `wallet` bucket to pending; the vault sends it and completes the withdrawal after the confirmations, or fails it and refunds the bucket. Only what came in on chain (less what went out or is pending) may leave: faucet money is `WITHDRAWAL_NOT_ALLOWED`.',
    errors: ['INSUFFICIENT_BALANCE', 'WITHDRAWAL_NOT_ALLOWED', 'OUTCOME_UNKNOWN'],
    body: z.strictObject({
      amount: decimal('USDC-T, positive, at most 6 decimals.'),
      toAddress: text('Destination address (0x and 40 hex digits; EIP-55 checksum when mixed case); default the caller\'s own.').nullish(),
    }),
    response: Withdrawal,
    operation: `mutation RestWithdraw($amount: Decimal!, $toAddress: String) {
      withdraw(amount: $amount, toAddress: $toAddress) { ${WITHDRAWAL} } }`,
    variables: ({ body }) => ({ amount: body.amount, toAddress: body.toAddress ?? null }),
    shape: (data) => withdrawal(data['withdraw']),
  }),
  defineRoute({
    method: 'GET',
    path: '/wallet/withdrawals',
    auth: 'read',
    tag: 'Wallet',
    summary: 'The caller\'s withdrawals',
    description: '`pending`, `sent`, `completed` or `failed` (refunded), newest first; next page in `X-Next-Cursor`.',
    query: z.object(paging),
    response: z.array(Withdrawal),
    operation: `query RestWithdrawals($first: Int!, $after: String) { me { withdrawals(first: $first, after: $after) {
      edges { node { ${WITHDRAWAL} } } pageInfo { hasNextPage endCursor } } } }`,
    variables: ({ query }) => pageVariables(query),
    shape: (data) => data['me'].withdrawals.edges.map((e: any) => withdrawal(e.node)),
    headers: (data) => nextCursor(data['me'].withdrawals),
  }),
  defineRoute({
    method: 'GET',
    path: '/wallet/deposits',
    auth: 'read',
    tag: 'Wallet',
    summary: 'The caller\'s deposits on chain',
    description: 'USDC-T transfers from the caller\'s address to the vault: `pending` with its confirmations, `confirmed`, then `credited` to the `wallet` bucket; newest first, next page in `X-Next-Cursor`.',
    query: z.object(paging),
    response: z.array(Deposit),
    operation: `query RestDeposits($first: Int!, $after: String) { me { deposits(first: $first, after: $after) {
      edges { node { id txHash logIndex blockNumber amount confirmations status createdAt creditedAt } } pageInfo { hasNextPage endCursor } } } }`,
    variables: ({ query }) => pageVariables(query),
    shape: (data) => data['me'].deposits.edges.map((e: any) => ({ ...e.node, status: lower(e.node.status) })),
    headers: (data) => nextCursor(data['me'].deposits),
  }),
  defineRoute({
    method: 'GET',
    path: '/portfolio/balances',
    auth: 'read',
    tag: 'Wallet',
    summary: 'Portfolio balances snapshot',
    description: 'Bucket totals, their sum, the options bucket\'s `available`/`locked`/`total`, on-chain deposits and pending withdrawals; live, as on `/portfolio/balances/stream`.',
    response: PortfolioBalances,
    operation: `query RestPortfolioBalances { me { portfolioBalances { ${PORTFOLIO_BALANCES} } } }`,
    shape: (data) => data['me'].portfolioBalances,
  }),
  defineRoute({
    method: 'GET',
    path: '/portfolio/me',
    auth: 'read',
    tag: 'Wallet',
    summary: 'Portfolio snapshot at the current marks',
    description: '`equity` is every bucket plus unrealized P&L plus the signed mark value of spot holdings and options; `marginUsed` their initial margin plus what the options bucket locks; `available` = equity − marginUsed (at least 0).',
    response: Portfolio,
    operation: `query RestPortfolio { me { portfolio {
      equity marginUsed available unrealizedPnl openOrderCount buckets { wallet spot perps options }
      positions { marketId side quantity avgPrice markPrice realizedPnl unrealizedPnl fundingPayment marginMode initialMargin maintenanceMargin isolatedMargin }
      optionPositions { marketId quantity avgPrice markPrice realizedPnl unrealizedPnl } } } }`,
    shape: (data) => {
      const p = data['me'].portfolio
      return { ...p, positions: p.positions.map((x: any) => ({ ...x, side: lower(x.side), marginMode: lower(x.marginMode) })) }
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/wallet/faucet',
    auth: 'trade',
    tag: 'Wallet',
    summary: 'Test-network faucet',
    description: 'Credits the `wallet` bucket, at most FAUCET_DAILY_CAP (100,000 USDC-T) per user per rolling day (`429 FAUCET_LIMIT`); off with FAUCET_ENABLED=false.',
    errors: ['FAUCET_LIMIT', 'OUTCOME_UNKNOWN'],
    body: z.strictObject({ amount: decimal('USDC-T, positive, at most 6 decimals.') }),
    response: FaucetResult,
    operation: `mutation RestFaucet($amount: Decimal!) { requestFaucet(amount: $amount) { amount walletBalance remainingToday } }`,
    variables: ({ body }) => body,
    shape: (data) => data['requestFaucet'],
  }),
]
