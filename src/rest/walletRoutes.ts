// Wallet routes (SPEC.md "Wallet"; the test-network faucet of DESIGN.md §9), each one GraphQL operation.
import { USER_BUCKETS } from '../domain/buckets.js'
import { DomainError } from '../domain/errors.js'
import type { RestRoute } from './route.js'
import { jsonBody, onlyFields, optEnum, optString } from './requestFields.js'
import { lower } from './shapes.js'

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
