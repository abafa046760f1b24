// The dead man's switch (cancel-all-after): an armed account has all its orders cancelled when the
// engine clock passes its deadline without a refresh. The scheduler's Tick carries the clock forward.
import { DomainError } from '../../domain/errors.js'
import type { Ctx } from '../context.js'
import { tradingAccount } from '../admission.js'
import { cancelOrders, openOrdersOf } from '../orderLifecycle.js'

export const MIN_TIMEOUT_MS = 1_000
export const MAX_TIMEOUT_MS = 600_000

export function cancelAllAfter(ctx: Ctx, userId: string, timeoutMs: number): { timeoutMs: number; cancelAt: string | null } {
  if (!Number.isSafeInteger(timeoutMs) || (timeoutMs !== 0 && (timeoutMs < MIN_TIMEOUT_MS || timeoutMs > MAX_TIMEOUT_MS))) {
    throw new DomainError('INVALID_REQUEST', `timeoutMs must be 0 (disarm) or between ${MIN_TIMEOUT_MS} and ${MAX_TIMEOUT_MS}`)
  }
  const account = tradingAccount(ctx, userId)
  ctx.changes.deadman.add(account)
  if (timeoutMs === 0) {
    account.cancelAllAt = null
    ctx.state.armed.delete(userId)
    return { timeoutMs: 0, cancelAt: null }
  }
  account.cancelAllAt = ctx.now + timeoutMs
  ctx.state.armed.add(userId)
  return { timeoutMs, cancelAt: new Date(account.cancelAllAt).toISOString() }
}

/** Fires every switch whose deadline has passed. */
export function fireDeadmanSwitches(ctx: Ctx): number {
  let fired = 0
  for (const userId of [...ctx.state.armed].sort()) {
    const account = ctx.state.accounts.get(userId)!
    if (account.cancelAllAt === null || account.cancelAllAt > ctx.now) continue
    cancelOrders(ctx, openOrdersOf(account), 'dead_man_switch')
    account.cancelAllAt = null
    ctx.state.armed.delete(userId)
    ctx.changes.deadman.add(account)
    fired++
  }
  return fired
}
