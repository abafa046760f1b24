// Wallet routes (SPEC.md "Wallet"; withdrawals and deposits on chain, DESIGN.md §12; the test-network
// faucet of DESIGN.md §9), each one GraphQL operation. Lists are newest first, `limit` and `cursor`, next
// page in X-Next-Cursor.
import { USER_BUCKETS } from '../domain/buckets.js'
import { DomainError } from '../domain/errors.js'
import type { RestRoute } from './route.js'
import { jsonBody, onlyFields, optEnum, optString, paging } from './requestFields.js'
import { lower, nextCursor } from './shapes.js'

const PORTFOLIO_BALANCES = 'buckets { wallet spot perps options } total options { available locked total } onchainDepositTotal pendingWithdrawalTotal'
const WITHDRAWAL = 'id amount toAddress status txHash error createdAt updatedAt'
const withdrawal = (w: any) => ({ ...w, status: lower(w.status) })

export const walletRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/wallet/balance',
    auth: 'read',
    operation: `query RestBalance { me { balance {
      onchainDepositTotal tradableBalance walletBalance spotBalance perpsBalance optionsBalance pendingWithdrawalTotal } } }`,
    shape: (data) => data['me'].balance,
  },
  {
    method: 'POST',
    path: '/wallet/transfer',
    auth: 'trade',
    operation: `mutation RestTransfer($from: Bucket!, $to: Bucket!, $amount: Decimal!) {
      transfer(from: $from, to: $to, amount: $amount) { from to amount balances { wallet spot perps options } } }`,
    variables: (req) => {
      const b = onlyFields(jsonBody(req), ['from', 'to', 'amount'])
      const from = optEnum(b, 'from', USER_BUCKETS)
      const to = optEnum(b, 'to', USER_BUCKETS)
      const amount = optString(b, 'amount')
      if (!from || !to || amount === undefined) throw new DomainError('INVALID_REQUEST', 'from, to and amount are required')
      return { from, to, amount }
    },
    shape: (data) => ({ ...data['transfer'], from: lower(data['transfer'].from), to: lower(data['transfer'].to) }),
  },
  {
    method: 'POST',
    path: '/wallet/withdraw',
    auth: 'trade',
    operation: `mutation RestWithdraw($amount: Decimal!, $toAddress: String) {
      withdraw(amount: $amount, toAddress: $toAddress) { ${WITHDRAWAL} } }`,
    variables: (req) => {
      const b = onlyFields(jsonBody(req), ['amount', 'toAddress'])
      const amount = optString(b, 'amount')
      if (amount === undefined) throw new DomainError('INVALID_REQUEST', 'amount is required')
      return { amount, toAddress: optString(b, 'toAddress') ?? null }
    },
    shape: (data) => withdrawal(data['withdraw']),
  },
  {
    method: 'GET',
    path: '/wallet/withdrawals',
    auth: 'read',
    operation: `query RestWithdrawals($first: Int!, $after: String) { me { withdrawals(first: $first, after: $after) {
      edges { node { ${WITHDRAWAL} } } pageInfo { hasNextPage endCursor } } } }`,
    variables: (req) => paging(req),
    shape: (data) => data['me'].withdrawals.edges.map((e: any) => withdrawal(e.node)),
    headers: (data) => nextCursor(data['me'].withdrawals),
  },
  {
    method: 'GET',
    path: '/wallet/deposits',
    auth: 'read',
    operation: `query RestDeposits($first: Int!, $after: String) { me { deposits(first: $first, after: $after) {
      edges { node { id txHash logIndex blockNumber amount confirmations status createdAt creditedAt } } pageInfo { hasNextPage endCursor } } } }`,
    variables: (req) => paging(req),
    shape: (data) => data['me'].deposits.edges.map((e: any) => ({ ...e.node, status: lower(e.node.status) })),
    headers: (data) => nextCursor(data['me'].deposits),
  },
  {
    method: 'GET',
    path: '/portfolio/balances',
    auth: 'read',
    operation: `query RestPortfolioBalances { me { portfolioBalances { ${PORTFOLIO_BALANCES} } } }`,
    shape: (data) => data['me'].portfolioBalances,
  },
  {
    method: 'GET',
    path: '/portfolio/me',
    auth: 'read',
    operation: `query RestPortfolio { me { portfolio {
      equity marginUsed available unrealizedPnl openOrderCount buckets { wallet spot perps options }
      positions { marketId side quantity avgPrice markPrice realizedPnl unrealizedPnl fundingPayment marginMode initialMargin maintenanceMargin isolatedMargin }
      optionPositions { marketId quantity avgPrice markPrice realizedPnl unrealizedPnl } } } }`,
    shape: (data) => {
      const p = data['me'].portfolio
      return { ...p, positions: p.positions.map((x: any) => ({ ...x, side: lower(x.side), marginMode: lower(x.marginMode) })) }
    },
  },
  {
    method: 'POST',
    path: '/wallet/faucet',
    auth: 'trade',
    operation: `mutation RestFaucet($amount: Decimal!) { requestFaucet(amount: $amount) { amount walletBalance remainingToday } }`,
    variables: (req) => {
      const amount = optString(onlyFields(jsonBody(req), ['amount']), 'amount')
      if (amount === undefined) throw new DomainError('INVALID_REQUEST', 'amount is required')
      return { amount }
    },
    shape: (data) => data['requestFaucet'],
  },
]
