// Market-maker protection (MMP), per user and underlying, on engine time. A protected order is an
// option order placed by a quote (PlaceQuotes) or with `mmp: true`. Each fill of one adds its quantity
// and its delta (Black-76 delta × signed quantity, at the fill's valuation) to a window of `intervalMs`;
// when the window's quantity or the absolute value of its net delta exceeds its limit, every protected
// order of the user on that underlying is cancelled (reason `mmp`) in the same command as the fill that
// tripped it, and new protected orders are refused MMP_FROZEN until `frozenMs` has passed (0: until a
// reset). Quantities and deltas are integers in millionths of the underlying (µ-units): exact sums,
// and the same on every replay.
import { black76Delta } from '../domain/pricing/black76.js'
import { DomainError } from '../domain/errors.js'
import type { Account } from './account.js'
import type { Ctx } from './context.js'
import type { MarketRuntime } from './marketRuntime.js'
import type { Order } from './order.js'
import type { OptionValuation } from './optionPricing.js'
import { cancelOrders } from './orderLifecycle.js'
import type { EngineState } from './state.js'

export const MMP_MAX_INTERVAL_MS = 3_600_000
export const MMP_MAX_FROZEN_MS = 86_400_000
/** Millionths of the underlying per unit: limits, quantities and deltas are kept in these. */
export const MMP_UNIT = 1_000_000

/** One user's protection on one underlying. intervalMs 0: not configured (fills are not counted). */
export interface MmpState {
  readonly userId: string
  readonly underlying: string
  intervalMs: number
  frozenMs: number
  /** µ-units; 0: no limit on this measure. */
  quantityLimit: number
  deltaLimit: number
  /** Protected fills inside the interval, oldest first: [engine time, quantity µ, signed delta µ]. */
  window: Array<[number, number, number]>
  /** Derived from window (not stored). */
  quantity: number
  delta: number
  /** Engine time of the trip not yet reset (null: none); frozen until frozenUntil (null: until reset). */
  trippedAt: number | null
  frozenUntil: number | null
  /** Epoch of the last batch that listed it as changed (not stored). */
  changedIn: number
}

export interface MmpConfigInput {
  intervalMs: number
  frozenMs: number
  quantityLimit: number
  deltaLimit: number
}

/** What SetMmpConfig, ResetMmp and the reads answer. */
export interface MmpView {
  underlying: string
  enabled: boolean
  intervalMs: number
  frozenMs: number
  quantityLimit: string
  deltaLimit: string
  frozen: boolean
  trippedAt: string | null
  frozenUntil: string | null
}

const key = (userId: string, underlying: string) => `${userId}|${underlying}`
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/** µ-units as a decimal string of the underlying. */
export function formatUnits(micro: number): string {
  const sign = micro < 0 ? '-' : ''
  const abs = Math.abs(micro)
  const whole = Math.floor(abs / MMP_UNIT)
  const frac = String(abs % MMP_UNIT).padStart(6, '0').replace(/0+$/, '')
  return `${sign}${whole}${frac ? `.${frac}` : ''}`
}

export function isFrozen(s: MmpState, now: number): boolean {
  return s.trippedAt !== null && (s.frozenUntil === null || now < s.frozenUntil)
}

export function mmpView(s: MmpState | undefined, underlying: string, now: number): MmpView {
  return {
    underlying,
    enabled: s !== undefined && s.intervalMs > 0,
    intervalMs: s?.intervalMs ?? 0,
    frozenMs: s?.frozenMs ?? 0,
    quantityLimit: formatUnits(s?.quantityLimit ?? 0),
    deltaLimit: formatUnits(s?.deltaLimit ?? 0),
    frozen: s !== undefined && isFrozen(s, now),
    trippedAt: iso(s?.trippedAt ?? null),
    frozenUntil: s !== undefined && s.trippedAt !== null ? iso(s.frozenUntil) : null,
  }
}

export function mmpStateOf(state: EngineState, userId: string, underlying: string): MmpState | undefined {
  return state.mmp.get(key(userId, underlying))
}

/** The state, created unconfigured when first needed. */
function ensure(state: EngineState, userId: string, underlying: string): MmpState {
  const k = key(userId, underlying)
  let s = state.mmp.get(k)
  if (!s) {
    s = { userId, underlying, intervalMs: 0, frozenMs: 0, quantityLimit: 0, deltaLimit: 0, window: [], quantity: 0, delta: 0, trippedAt: null, frozenUntil: null, changedIn: 0 }
    state.mmp.set(k, s)
  }
  return s
}

/** Puts a restored state in place (snapshot, rebuild), its sums derived from its window. */
export function restoreMmp(state: EngineState, s: Omit<MmpState, 'quantity' | 'delta' | 'changedIn'>): void {
  const m = ensure(state, s.userId, s.underlying)
  Object.assign(m, s, { window: s.window.map((e) => [...e] as [number, number, number]) })
  m.quantity = 0
  m.delta = 0
  for (const [, q, d] of m.window) {
    m.quantity += q
    m.delta += d
  }
}

/** A state that says nothing (unconfigured, never tripped) leaves the state, and its row goes. */
const idle = (s: MmpState) => s.intervalMs === 0 && s.trippedAt === null

function changed(ctx: Ctx, s: MmpState): void {
  ctx.changes.addMmp(s)
  if (idle(s)) ctx.state.mmp.delete(key(s.userId, s.underlying))
}

/** An underlying with option markets listed, else INVALID_REQUEST. */
function checkUnderlying(ctx: Ctx, underlying: unknown): string {
  if (typeof underlying === 'string') for (const m of ctx.state.markets.values()) if (!m.linear && m.spec.family === underlying) return underlying
  throw new DomainError('INVALID_REQUEST', `No options are listed on ${String(underlying)}`, { underlying })
}

const isCount = (n: unknown, max: number): n is number => Number.isSafeInteger(n) && (n as number) >= 0 && (n as number) <= max

export function setMmpConfig(ctx: Ctx, userId: string, underlyingIn: unknown, c: MmpConfigInput): MmpView {
  const underlying = checkUnderlying(ctx, underlyingIn)
  if (!ctx.state.accounts.has(userId)) throw new DomainError('ACCOUNT_NOT_FOUND', 'No account yet: deposit or use the faucet first')
  if (!isCount(c.intervalMs, MMP_MAX_INTERVAL_MS)) throw new DomainError('INVALID_REQUEST', `intervalMs must be 0 (off) to ${MMP_MAX_INTERVAL_MS}`, { intervalMs: c.intervalMs })
  if (!isCount(c.frozenMs, MMP_MAX_FROZEN_MS)) throw new DomainError('INVALID_REQUEST', `frozenMs must be 0 (until reset) to ${MMP_MAX_FROZEN_MS}`, { frozenMs: c.frozenMs })
  if (!isCount(c.quantityLimit, Number.MAX_SAFE_INTEGER) || !isCount(c.deltaLimit, Number.MAX_SAFE_INTEGER)) {
    throw new DomainError('INVALID_REQUEST', 'quantityLimit and deltaLimit must be non-negative decimals with at most 6 decimals')
  }
  if (c.intervalMs > 0 && c.quantityLimit === 0 && c.deltaLimit === 0) {
    throw new DomainError('INVALID_REQUEST', 'Give a quantityLimit, a deltaLimit or both (or intervalMs 0 to turn protection off)')
  }
  const s = ensure(ctx.state, userId, underlying)
  s.intervalMs = c.intervalMs
  s.frozenMs = c.frozenMs
  s.quantityLimit = c.intervalMs === 0 ? 0 : c.quantityLimit
  s.deltaLimit = c.intervalMs === 0 ? 0 : c.deltaLimit
  // A new window starts with new limits; a freeze stands until its time or a reset.
  clearWindow(s)
  changed(ctx, s)
  return mmpView(s, underlying, ctx.now)
}

/** Ends a freeze and starts a new window. */
export function resetMmp(ctx: Ctx, userId: string, underlyingIn: unknown): MmpView {
  const underlying = checkUnderlying(ctx, underlyingIn)
  const s = mmpStateOf(ctx.state, userId, underlying)
  if (!s) return mmpView(undefined, underlying, ctx.now)
  s.trippedAt = null
  s.frozenUntil = null
  clearWindow(s)
  changed(ctx, s)
  return mmpView(s, underlying, ctx.now)
}

function clearWindow(s: MmpState): void {
  s.window = []
  s.quantity = 0
  s.delta = 0
}

/** Refuses a new protected order on `market` while its owner's protection on the underlying is frozen. */
export function checkMmp(ctx: Ctx, account: Account, market: MarketRuntime): void {
  const s = ctx.state.mmp.size === 0 ? undefined : mmpStateOf(ctx.state, account.userId, market.spec.family)
  if (s && isFrozen(s, ctx.now)) {
    throw new DomainError('MMP_FROZEN', `Market-maker protection on ${s.underlying} is frozen${s.frozenUntil === null ? ' until reset' : ` until ${iso(s.frozenUntil)}`}`, {
      underlying: s.underlying,
      frozenUntil: iso(s.frozenUntil),
    })
  }
}

/** True when a protected order's owner is frozen on its underlying: what is left of it may not rest. */
export function mmpFrozenFor(ctx: Ctx, order: Order, market: MarketRuntime): boolean {
  if (!order.mmp || ctx.state.mmp.size === 0) return false
  const s = mmpStateOf(ctx.state, order.userId, market.spec.family)
  return s !== undefined && isFrozen(s, ctx.now)
}

/**
 * Counts a fill of a protected order (`order` filled `lots` at valuation `v`) and trips the protection
 * when a limit is exceeded. Called while the book is sweeping: cancelling other resting orders is
 * allowed then (the sweep goes on from the best level), so the taker meets none of them.
 */
export function onProtectedFill(ctx: Ctx, market: MarketRuntime, order: Order, lots: number, v: OptionValuation, taking: Order): void {
  const s = mmpStateOf(ctx.state, order.userId, market.spec.family)
  if (!s || s.intervalMs === 0) return
  const now = ctx.now
  let drop = 0
  while (drop < s.window.length && s.window[drop]![0] <= now - s.intervalMs) {
    s.quantity -= s.window[drop]![1]
    s.delta -= s.window[drop]![2]
    drop++
  }
  if (drop > 0) s.window.splice(0, drop)
  const quantity = lots * Math.round(market.step.toNumber() * MMP_UNIT)
  const delta = Math.round(black76Delta(v.input) * quantity) * (order.side === 'buy' ? 1 : -1)
  s.window.push([now, quantity, delta])
  s.quantity += quantity
  s.delta += delta
  const byQuantity = s.quantityLimit > 0 && s.quantity > s.quantityLimit
  const byDelta = s.deltaLimit > 0 && Math.abs(s.delta) > s.deltaLimit
  if (byQuantity || byDelta) trip(ctx, s, order.account, byQuantity ? 'quantity' : 'delta', taking)
  ctx.changes.addMmp(s)
}

/** `taking`, the order being matched, is left to its handler, which does not let it rest. */
function trip(ctx: Ctx, s: MmpState, account: Account, reason: 'quantity' | 'delta', taking: Order): void {
  const quantity = s.quantity
  const delta = s.delta
  s.trippedAt = ctx.now
  s.frozenUntil = s.frozenMs === 0 ? null : ctx.now + s.frozenMs
  clearWindow(s)
  const protectedOrders: Order[] = []
  for (const [marketId, orders] of account.marketOrders) {
    const m = ctx.state.markets.get(marketId)!
    if (m.linear || m.spec.family !== s.underlying) continue
    for (const o of orders) if (o.mmp && o !== taking) protectedOrders.push(o)
  }
  protectedOrders.sort((a, b) => a.seq - b.seq)
  const canceled = cancelOrders(ctx, protectedOrders, 'mmp')
  ctx.emit(account.streams.orders, 'MmpTriggered', {
    kind: 'mmp',
    underlying: s.underlying,
    reason,
    quantity: formatUnits(quantity),
    delta: formatUnits(delta),
    trippedAt: iso(s.trippedAt),
    frozenUntil: iso(s.frozenUntil),
    canceledIds: canceled,
  })
}

/** The state as stored (snapshot, the mmp_states row): sums and epochs are derived. */
export function mmpSnapshot(s: MmpState) {
  return {
    userId: s.userId,
    underlying: s.underlying,
    intervalMs: s.intervalMs,
    frozenMs: s.frozenMs,
    quantityLimit: s.quantityLimit,
    deltaLimit: s.deltaLimit,
    window: s.window.map((e) => [...e] as [number, number, number]),
    trippedAt: s.trippedAt,
    frozenUntil: s.frozenUntil,
  }
}

export type MmpSnapshot = ReturnType<typeof mmpSnapshot>
