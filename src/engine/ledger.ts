// Money movements. Every movement is double-entry: what one bucket loses another gains, and both legs
// are ledger rows, so the balances of all accounts (the system's included) always sum to zero and each
// balance always equals the sum of its ledger rows.
import type { Bucket, LedgerKind } from '../domain/buckets.js'
import type { Account } from './account.js'
import type { Ctx } from './context.js'

function post(ctx: Ctx, account: Account, bucket: Bucket, delta: bigint, kind: LedgerKind, refId: string | null): void {
  const after = account.balance(bucket) + delta
  account.balances.set(bucket, after)
  if (bucket === 'options') account.optionsStale = true
  ctx.changes.ledger.push({ userId: account.userId, bucket, amount: delta, balanceAfter: after, kind, refId, at: ctx.now })
  ctx.changes.addBalances(account)
  ctx.touchAccount(account)
}

/** Moves `amount` micro-USDC (positive, or negative to move the other way) between two buckets. */
export function move(
  ctx: Ctx,
  from: Account,
  fromBucket: Bucket,
  to: Account,
  toBucket: Bucket,
  amount: bigint,
  kind: LedgerKind,
  refId: string | null,
): void {
  if (amount === 0n) return
  post(ctx, from, fromBucket, -amount, kind, refId)
  post(ctx, to, toBucket, amount, kind, refId)
}
