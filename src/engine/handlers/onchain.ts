// Money that crosses the chain: deposits the indexer saw final, and withdrawals from request to the end
// of their transfer. The chain itself is the indexer's and the withdrawal worker's business (src/roles/indexer);
// here are the rules: a deposit counts once by (txHash, logIndex), and only money that came in on chain
// (less what went out or is on its way out) may leave, so faucet credits never do.
import { microToString } from '../../domain/decimal.js'
import { DomainError } from '../../domain/errors.js'
import type { Account } from '../account.js'
import type { Ctx } from '../context.js'
import { tradingAccount } from '../admission.js'
import { move } from '../ledger.js'
import type { PendingWithdrawal } from '../state.js'

const TX_HASH = /^0x[0-9a-f]{64}$/
const ADDRESS = /^0x[0-9a-fA-F]{40}$/
const ID = /^[0-9A-Za-z]{1,64}$/

/** The identity of a deposit: one Transfer log of one transaction (two logs in a transaction are two). */
export function depositKey(txHash: string, logIndex: number): string {
  return `${txHash.toLowerCase()}:${logIndex}`
}

function micro(v: unknown): bigint {
  if (typeof v !== 'string' || !/^[1-9]\d{0,20}$/.test(v)) throw new DomainError('INVALID_REQUEST', 'amount must be a positive amount')
  return BigInt(v)
}

/** What may still leave the account on chain: deposits less withdrawals completed or under way. */
export function onchainWithdrawable(a: Account): bigint {
  const left = a.deposited - a.withdrawn - a.withdrawing
  return left > 0n ? left : 0n
}

export interface DepositInput {
  userId: string
  txHash: string
  logIndex: number
  blockNumber: number
  fromAddress: string
  amountMicro: string
}

/** Credits a final deposit to the sender's wallet bucket, once; a repeat changes nothing. */
export function creditDeposit(ctx: Ctx, d: DepositInput) {
  const txHash = typeof d.txHash === 'string' ? d.txHash.toLowerCase() : ''
  if (!TX_HASH.test(txHash) || !Number.isSafeInteger(d.logIndex) || d.logIndex < 0 || !Number.isSafeInteger(d.blockNumber) || d.blockNumber < 0) {
    throw new DomainError('INVALID_REQUEST', 'A deposit names its transaction hash, log index and block')
  }
  if (typeof d.fromAddress !== 'string' || !ADDRESS.test(d.fromAddress)) throw new DomainError('INVALID_REQUEST', 'fromAddress must be an address')
  const amount = micro(d.amountMicro)
  const key = depositKey(txHash, d.logIndex)
  if (ctx.state.creditedDeposits.has(key)) {
    const known = ctx.state.accounts.get(d.userId)
    return { credited: false, amount: microToString(amount), walletBalance: microToString(known?.balance('wallet') ?? 0n) }
  }
  const account = ctx.state.account(d.userId)
  ctx.state.creditedDeposits.add(key)
  account.deposited += amount
  move(ctx, ctx.state.system, 'external', account, 'wallet', amount, 'deposit', key)
  ctx.changes.deposits.push({ id: key, txHash, logIndex: d.logIndex, blockNumber: d.blockNumber, fromAddress: d.fromAddress, userId: d.userId, amount, at: ctx.now })
  return { credited: true, amount: microToString(amount), walletBalance: microToString(account.balance('wallet')) }
}

export interface WithdrawalView {
  id: string
  amount: string
  toAddress: string
  status: 'pending' | 'completed' | 'failed'
  createdAt: string
  updatedAt: string
}

/** Takes `amount` from the wallet bucket into the system's `withdrawals` bucket until the chain settles it. */
export function requestWithdrawal(ctx: Ctx, userId: string, withdrawalId: string, amountMicro: string, toAddress: string): WithdrawalView {
  if (typeof withdrawalId !== 'string' || !ID.test(withdrawalId) || ctx.state.withdrawals.has(withdrawalId)) {
    throw new DomainError('INVALID_REQUEST', 'withdrawal id must be new')
  }
  if (typeof toAddress !== 'string' || !ADDRESS.test(toAddress)) throw new DomainError('INVALID_REQUEST', 'toAddress must be an address', { toAddress })
  const amount = micro(amountMicro)
  const account = tradingAccount(ctx, userId)
  const wallet = account.balance('wallet')
  if (amount > wallet) {
    throw new DomainError('INSUFFICIENT_BALANCE', 'The wallet bucket lacks funds', { available: microToString(wallet), requested: microToString(amount) })
  }
  const allowed = onchainWithdrawable(account)
  if (amount > allowed) {
    throw new DomainError('WITHDRAWAL_NOT_ALLOWED', 'Only what was deposited on chain, less what was withdrawn or is pending, may be withdrawn (faucet credits may not)', {
      requested: microToString(amount),
      withdrawable: microToString(allowed),
      depositedTotal: microToString(account.deposited),
      withdrawnTotal: microToString(account.withdrawn),
      pendingWithdrawalTotal: microToString(account.withdrawing),
    })
  }
  const w: PendingWithdrawal = { id: withdrawalId, userId, amount, toAddress, createdAt: ctx.now }
  ctx.state.withdrawals.set(w.id, w)
  account.withdrawing += amount
  move(ctx, account, 'wallet', ctx.state.system, 'withdrawals', amount, 'withdrawal', w.id)
  ctx.changes.withdrawals.push({ ...w, status: 'pending', txHash: null, error: null, updatedAt: ctx.now })
  const at = new Date(ctx.now).toISOString()
  return { id: w.id, amount: microToString(amount), toAddress, status: 'pending', createdAt: at, updatedAt: at }
}

export interface WithdrawalOutcome {
  id: string
  status: 'completed' | 'failed'
  /** False when the withdrawal was not pending (already final, or unknown): nothing moved. */
  changed: boolean
}

/** Ends a pending withdrawal: completed pays it out (to `external`), failed refunds the wallet bucket. */
export function settleWithdrawal(ctx: Ctx, withdrawalId: string, status: 'completed' | 'failed', txHash: string | null, error: string | null): WithdrawalOutcome {
  if (txHash !== null && (typeof txHash !== 'string' || !TX_HASH.test(txHash.toLowerCase()))) throw new DomainError('INVALID_REQUEST', 'txHash must be a transaction hash')
  if (status === 'completed' && txHash === null) throw new DomainError('INVALID_REQUEST', 'a completed withdrawal names its transaction')
  const w = ctx.state.withdrawals.get(withdrawalId)
  if (!w) return { id: withdrawalId, status, changed: false }
  ctx.state.withdrawals.delete(w.id)
  const account = ctx.state.account(w.userId)
  account.withdrawing -= w.amount
  if (status === 'completed') {
    account.withdrawn += w.amount
    move(ctx, ctx.state.system, 'withdrawals', ctx.state.system, 'external', w.amount, 'withdrawal', w.id)
  } else {
    move(ctx, ctx.state.system, 'withdrawals', account, 'wallet', w.amount, 'withdrawal', w.id)
  }
  const reason = error === null ? null : String(error).slice(0, 500)
  ctx.changes.withdrawals.push({ ...w, status, txHash: txHash?.toLowerCase() ?? null, error: reason, updatedAt: ctx.now })
  return { id: w.id, status, changed: true }
}
