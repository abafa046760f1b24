// Conditional orders (DESIGN.md §8). A stop order waits, open but outside the book, until the mark
// crosses its stop price; a take-profit and a stop-loss attached to an order become a reduce-only OCO
// pair when that order first fills, sized to what it has filled. A triggered order then goes through
// exactly the checks of a new order; if they refuse it, it ends `rejected` with the code as its reason
// (the one way an accepted order becomes rejected).
import { DomainError } from '../domain/errors.js'
import type { OrderSpec } from '../domain/orders.js'
import type { Account } from './account.js'
import type { Ctx } from './context.js'
import type { EngineState } from './state.js'
import { admit, checkMarginMode, execute } from './admission.js'
import { governingMark } from './margin.js'
import type { MarketRuntime } from './marketRuntime.js'
import { remainingLots, type Order } from './order.js'
import { closeOrder, newEngineOrder, retire } from './orderLifecycle.js'
import { trackOpen } from './reservations.js'

/** Whether a waiting order fires when the mark rises to its trigger (else when it falls to it). */
function firesAbove(o: Order): boolean {
  const takeProfit = o.parentOrderId !== null && o.takeProfitTicks !== null
  return takeProfit ? o.side === 'sell' : o.side === 'buy'
}

/** A stop order must not fire the moment it is placed: a buy stop sits above the mark, a sell stop below. */
export function checkStop(ctx: Ctx, account: Account, market: MarketRuntime, spec: OrderSpec): void {
  if (spec.takeProfitTicks !== null || spec.stopLossTicks !== null) {
    throw new DomainError('INVALID_REQUEST', 'A stop order cannot carry takeProfitPrice or stopLossPrice')
  }
  if (spec.postOnly) throw new DomainError('INVALID_REQUEST', 'A stop order cannot be post-only')
  const { ticks } = governingMark(ctx, market)
  if (spec.side === 'buy' ? spec.stopTicks! <= ticks.ticks : spec.stopTicks! >= ticks.ticks) {
    throw new DomainError('INVALID_PRICE', `A ${spec.side} stop must be ${spec.side === 'buy' ? 'above' : 'below'} the mark (${market.prices.format(ticks.ticks)})`)
  }
  checkMarginMode(account, market, spec.marginMode)
}

/** Take-profit above and stop-loss below a buy's price (the other way round for a sell). */
export function checkAttached(ctx: Ctx, market: MarketRuntime, spec: OrderSpec): void {
  if (spec.takeProfitTicks === null && spec.stopLossTicks === null) return
  if (spec.reduceOnly) throw new DomainError('INVALID_REQUEST', 'takeProfitPrice and stopLossPrice protect a new position: not on a reduce-only order')
  const ref = spec.priceTicks ?? governingMark(ctx, market).ticks.ticks
  const up = spec.side === 'buy' ? 1 : -1
  if (spec.takeProfitTicks !== null && (spec.takeProfitTicks - ref) * up <= 0) {
    throw new DomainError('INVALID_PRICE', `takeProfitPrice must be ${up > 0 ? 'above' : 'below'} the order's price`)
  }
  if (spec.stopLossTicks !== null && (ref - spec.stopLossTicks) * up <= 0) {
    throw new DomainError('INVALID_PRICE', `stopLossPrice must be ${up > 0 ? 'below' : 'above'} the order's price`)
  }
}

/** The market's waiting orders, the set created when first needed. */
export function waitingIn(state: EngineState, marketId: string): Set<Order> {
  let set = state.waiting.get(marketId)
  if (!set) state.waiting.set(marketId, (set = new Set()))
  return set
}

/** Keeps an order open outside the book until its trigger. */
export function wait(ctx: Ctx, market: MarketRuntime, order: Order): void {
  const account = order.account
  ctx.state.orders.set(order)
  trackOpen(account, order, true)
  waitingIn(ctx.state, market.spec.id).add(order)
  ctx.touchOrder(order)
}

/** Whether `o` is the take-profit (else the stop-loss) of its parent's pair. */
const isTakeProfit = (o: Order) => o.takeProfitTicks !== null

/** The parent's open take-profit (`tp`) or stop-loss, among the account's open orders in its market. */
function openChild(parent: Order, tp: boolean): Order | undefined {
  const open = parent.account.marketOrders.get(parent.marketId)
  if (open !== undefined) for (const o of open) if (o.parentOrderId === parent.id && isTakeProfit(o) === tp) return o
  return undefined
}

/** The other order of a take-profit / stop-loss pair, if still open: the one with the same parent. */
export function siblingOf(o: Order): Order | undefined {
  if (o.parentOrderId === null) return undefined
  const open = o.account.marketOrders.get(o.marketId)
  if (open !== undefined) for (const other of open) if (other !== o && other.parentOrderId === o.parentOrderId && other.status === 'open') return other
  return undefined
}

/**
 * Called after each fill of an order carrying a take-profit or stop-loss: its first fill creates the
 * reduce-only pair; later fills resize the members still waiting. Each child gets an id of its own,
 * a ULID made from its seq (the engine draws no randomness), and names its parent in parentOrderId.
 */
export function armAttached(ctx: Ctx, market: MarketRuntime, parent: Order, filledBefore: number): void {
  if (parent.takeProfitTicks === null && parent.stopLossTicks === null) return
  if (parent.parentOrderId !== null) return
  for (const [tp, trigger] of [[true, parent.takeProfitTicks], [false, parent.stopLossTicks]] as const) {
    if (trigger === null) continue
    const existing = filledBefore > 0 ? openChild(parent, tp) : undefined
    if (existing) {
      if (existing.triggeredAt === null) {
        existing.lots = parent.filledLots
        existing.updatedAt = ctx.now
        ctx.touchOrder(existing)
      }
      continue
    }
    if (filledBefore > 0) continue // the pair already fired or was cancelled
    const spec: Omit<OrderSpec, 'id'> = {
      marketId: parent.marketId,
      clientOrderId: null,
      side: parent.side === 'buy' ? 'sell' : 'buy',
      type: 'market',
      timeInForce: 'ioc',
      priceTicks: null,
      lots: parent.filledLots,
      postOnly: false,
      reduceOnly: true,
      marginMode: parent.marginMode!,
      stopTicks: trigger,
      takeProfitTicks: tp ? trigger : null,
      stopLossTicks: tp ? null : trigger,
      quoteId: null,
    }
    wait(ctx, market, newEngineOrder(ctx, parent.account, spec, parent.id))
  }
}

/** Fires every waiting order of the market that the current mark has crossed, oldest first. */
export function fireTriggers(ctx: Ctx, market: MarketRuntime): void {
  const waiting = ctx.state.waiting.get(market.spec.id)
  const mark = ctx.state.markTicks.get(market.spec.id)?.ticks
  if (!waiting || waiting.size === 0 || mark === undefined) return
  // Runs on every mark: allocates only when something is due.
  let due: Order[] | null = null
  for (const o of waiting) if (firesAbove(o) ? mark >= o.stopTicks! : mark <= o.stopTicks!) (due ??= []).push(o)
  if (due === null) return
  due.sort((a, b) => a.seq - b.seq)
  for (const o of due) if (o.status === 'open' && o.triggeredAt === null) fire(ctx, market, o)
}

function fire(ctx: Ctx, market: MarketRuntime, o: Order): void {
  const account = o.account
  ctx.state.waiting.get(market.spec.id)?.delete(o)
  o.triggeredAt = ctx.now
  o.updatedAt = ctx.now
  const sibling = siblingOf(o)
  if (sibling) closeOrder(ctx, market, sibling, 'canceled', 'oco', false)
  try {
    const limit = admit(ctx, account, market, { ...o, lots: remainingLots(o), marginMode: o.marginMode ?? 'cross' })
    o.seq = ctx.state.advance(ctx.state.orderSeq)
    execute(ctx, market, o, limit)
  } catch (err) {
    if (!(err instanceof DomainError)) throw err
    o.status = 'rejected'
    o.cancelReason = err.code
  }
  if (o.status !== 'open') retire(ctx, market, o)
  ctx.touchOrder(o)
}
