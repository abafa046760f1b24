// Money in and between buckets: the test-network faucet, genesis grants for the house account, and
// transfers between a user's buckets. Every movement goes through the double-entry ledger.
import { isUserBucket, type UserBucket } from '../../domain/buckets.js'
import { microToString } from '../../domain/decimal.js'
import { DomainError } from '../../domain/errors.js'
import type { Account } from '../account.js'
import type { Ctx } from '../context.js'
import { move } from '../ledger.js'
import { crossMargin, insufficient } from '../margin.js'
import { positionIn } from '../settlement.js'
import { tradingAccount } from '../admission.js'
import { hasOptionExposure, optionsBucket } from '../optionMargin.js'

const DAY_MS = 86_400_000

function micro(v: unknown, field: string): bigint {
  if (typeof v !== 'string' || !/^[1-9]\d{0,20}$/.test(v)) throw new DomainError('INVALID_REQUEST', `${field} must be a positive amount`)
  return BigInt(v)
}

export function balancesView(a: Account): Record<UserBucket, string> {
  return {
    wallet: microToString(a.balance('wallet')),
    spot: microToString(a.balance('spot')),
    perps: microToString(a.balance('perps')),
    options: microToString(a.balance('options')),
  }
}

export function faucet(ctx: Ctx, userId: string, amountMicro: string, dailyCapMicro: string, refId: string) {
  const amount = micro(amountMicro, 'amount')
  const cap = micro(dailyCapMicro, 'cap')
  // Nothing changes before the cap check: a refused call creates no account and drops no grant.
  const known = ctx.state.accounts.get(userId)
  const grants = (known?.faucetGrants ?? []).filter(([at]) => at > ctx.now - DAY_MS)
  const used = grants.reduce((sum, [, m]) => sum + m, 0n)
  if (used + amount > cap) {
    throw new DomainError('FAUCET_LIMIT', 'Faucet daily cap reached', { remaining: microToString(cap - used), cap: microToString(cap) })
  }
  const account = known ?? ctx.state.account(userId)
  account.faucetGrants = grants
  grants.push([ctx.now, amount])
  move(ctx, ctx.state.system, 'external', account, 'wallet', amount, 'faucet', refId)
  return { amount: microToString(amount), walletBalance: microToString(account.balance('wallet')), remainingToday: microToString(cap - used - amount) }
}

/** Grants the house account its starting USDC and spot inventory (the system's inventory goes short). */
export function genesis(ctx: Ctx, userId: string, usdcMicro: string, holdings: Array<{ marketId: string; lots: number }>, refId: string) {
  const amount = usdcMicro === '0' ? 0n : micro(usdcMicro, 'usdc')
  for (const h of holdings) {
    const m = ctx.state.markets.get(h.marketId)
    if (!m || m.spec.type !== 'spot' || !Number.isSafeInteger(h.lots) || h.lots <= 0) {
      throw new DomainError('INVALID_REQUEST', `Genesis holdings are positive lots of spot markets (${h.marketId})`)
    }
  }
  const account = ctx.state.account(userId)
  move(ctx, ctx.state.system, 'external', account, 'wallet', amount, 'genesis', refId)
  for (const h of holdings) {
    for (const [a, lots] of [[account, h.lots], [ctx.state.system, -h.lots]] as const) {
      const p = positionIn(a, ctx.state.markets.get(h.marketId)!, 'cross', ctx.now)
      p.lots += lots
      p.updatedAt = ctx.now
      ctx.touchPosition(p)
    }
  }
  return { balances: balancesView(account) }
}

/** What may leave a bucket now: spot keeps what open buys reserve, perps keeps its initial margin. */
function withdrawable(ctx: Ctx, account: Account, bucket: UserBucket): bigint {
  if (bucket === 'spot') return account.balance('spot') - account.spotLocked
  return account.balance(bucket)
}

export function transfer(ctx: Ctx, userId: string, from: unknown, to: unknown, amountMicro: string, refId: string) {
  if (!isUserBucket(from) || !isUserBucket(to)) throw new DomainError('INVALID_REQUEST', 'from and to must be wallet, spot, perps or options')
  if (from === to) throw new DomainError('SAME_BUCKET')
  const amount = micro(amountMicro, 'amount')
  const account = tradingAccount(ctx, userId)
  if (amount > withdrawable(ctx, account, from)) {
    throw new DomainError('INSUFFICIENT_BALANCE', `The ${from} bucket lacks funds`, { available: microToString(withdrawable(ctx, account, from)) })
  }
  if (from === 'perps' || (from === 'options' && hasOptionExposure(account))) {
    const { available } = from === 'perps' ? crossMargin(account) : optionsBucket(ctx.state, account, [], false)
    if (amount > available) throw insufficient(amount, available)
  }
  move(ctx, account, from, account, to, amount, 'transfer', refId)
  return { from, to, amount: microToString(amount), balances: balancesView(account) }
}
