// Order vocabulary and the shared validator. REST, GraphQL and the engine run the same checks and so
// return the same codes: a malformed field is refused where the request enters, and the engine
// re-checks what only it knows (status, marks, balances).
import { D, parseDecimal, positiveCount, toScaled } from './decimal.js'
import { DomainError, type ErrorCode } from './errors.js'
import type { MarketSpec } from './market.js'

export const SIDES = ['buy', 'sell'] as const
export type OrderSide = (typeof SIDES)[number]
export const ORDER_TYPES = ['limit', 'market'] as const
export type OrderType = (typeof ORDER_TYPES)[number]
export const TIME_IN_FORCE = ['gtc', 'ioc', 'fok'] as const
export type TimeInForce = (typeof TIME_IN_FORCE)[number]
export const MARGIN_MODES = ['cross', 'isolated'] as const
export type MarginMode = (typeof MARGIN_MODES)[number]
export const ORDER_STATUSES = ['open', 'filled', 'canceled', 'rejected'] as const
export type OrderStatus = (typeof ORDER_STATUSES)[number]
/** Why an order ended before it filled completely (`cancelReason`); a conditional order refused when it
 *  triggers carries the refusal's error code instead (an EndReason). */
export const CANCEL_REASONS = [
  'user', 'ioc_unfilled', 'fok_unfilled', 'market_unfilled', 'self_trade', 'replaced_by_quote', 'dead_man_switch', 'mmp', 'oco',
  'reduce_only', 'insufficient_funds', 'expired', 'liquidation',
] as const
export type CancelReason = (typeof CANCEL_REASONS)[number]
export type EndReason = CancelReason | ErrorCode

export const CLIENT_ORDER_ID = /^[A-Za-z0-9_.:-]{1,64}$/

/** An order as the engine takes it: prices in ticks, quantities in lots, every field decided. */
export interface OrderSpec {
  id: string
  marketId: string
  clientOrderId: string | null
  side: OrderSide
  type: OrderType
  timeInForce: TimeInForce
  priceTicks: number | null
  lots: number
  postOnly: boolean
  reduceOnly: boolean
  marginMode: MarginMode
  stopTicks: number | null
  takeProfitTicks: number | null
  stopLossTicks: number | null
  quoteId: string | null
}

/** The order request fields as a client sends them (SPEC.md "Order request fields"), not yet trusted. */
export interface OrderRequest {
  marketId?: unknown
  clientOrderId?: unknown
  type?: unknown
  side?: unknown
  price?: unknown
  quantity?: unknown
  timeInForce?: unknown
  postOnly?: unknown
  reduceOnly?: unknown
  marginMode?: unknown
  stopPrice?: unknown
  takeProfitPrice?: unknown
  stopLossPrice?: unknown
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T, code: ErrorCode, field: string): T {
  if (value === undefined || value === null) return fallback
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T
  throw new DomainError(code, `${field} must be one of ${allowed.join(', ')}`, { [field]: value })
}

function flag(value: unknown, field: string): boolean {
  if (value === undefined || value === null) return false
  if (typeof value === 'boolean') return value
  throw new DomainError('INVALID_REQUEST', `${field} must be a boolean`, { [field]: value })
}

/** A price on the market's tick, positive; null when absent. */
export function priceTicks(market: MarketSpec, value: unknown, field = 'price'): number | null {
  if (value === undefined || value === null) return null
  let ticks = positiveCount(value, market.tickSize)
  if (ticks === undefined) {
    const d = parseDecimal(value)
    ticks = d && d.gt(0) ? toScaled(d, D(market.tickSize)) : null
  }
  if (ticks === null || ticks <= 0) {
    throw new DomainError('INVALID_PRICE', `${field} must be a positive decimal string on the tick ${market.tickSize}`, { [field]: value })
  }
  return ticks
}

/** A quantity on the step, at least the minimum. */
export function quantityLots(market: MarketSpec, value: unknown, field = 'quantity'): number {
  let lots = positiveCount(value, market.stepSize, market.minQuantity)
  if (lots === undefined) {
    const d = parseDecimal(value)
    lots = d && d.gt(0) ? toScaled(d, D(market.stepSize)) : null
    if (lots !== null && d!.lt(D(market.minQuantity))) lots = null
  }
  if (lots === null || lots <= 0) {
    throw new DomainError(
      'INVALID_QUANTITY',
      `${field} must be a positive decimal string, a multiple of ${market.stepSize}, at least ${market.minQuantity}`,
      { [field]: value },
    )
  }
  return lots
}

export function clientOrderId(value: unknown): string | null {
  if (value === undefined || value === null) return null
  if (typeof value === 'string' && CLIENT_ORDER_ID.test(value)) return value
  throw new DomainError('INVALID_REQUEST', 'clientOrderId must be 1–64 characters of A–Z a–z 0–9 _ . : -', { clientOrderId: value })
}

/**
 * Everything about a linear order that can be decided from the request and the market's spec. The
 * caller resolved the market (unknown → INVALID_MARKET_ID) and supplies the new order's id.
 */
export function parseLinearOrder(req: OrderRequest, market: MarketSpec, id: string, quoteId: string | null = null): OrderSpec {
  const type = oneOf(req.type, ORDER_TYPES, 'limit', 'INVALID_REQUEST', 'type')
  if (req.side === undefined || req.side === null) throw new DomainError('INVALID_REQUEST', 'side is required')
  const side = oneOf(req.side, SIDES, 'buy', 'INVALID_REQUEST', 'side')
  const timeInForce = oneOf(req.timeInForce, TIME_IN_FORCE, 'gtc', 'INVALID_TIME_IN_FORCE', 'timeInForce')
  const lots = quantityLots(market, req.quantity)
  // A market order takes the book's prices; a price sent with it is ignored, not an error.
  const price = type === 'limit' ? priceTicks(market, req.price) : null
  if (type === 'limit' && price === null) throw new DomainError('INVALID_PRICE', 'price is required for a limit order')
  const postOnly = flag(req.postOnly, 'postOnly')
  if (postOnly && (type === 'market' || timeInForce !== 'gtc')) {
    throw new DomainError('INVALID_REQUEST', 'postOnly needs a gtc limit order', { type, timeInForce })
  }
  const stopTicks = priceTicks(market, req.stopPrice, 'stopPrice')
  const takeProfitTicks = priceTicks(market, req.takeProfitPrice, 'takeProfitPrice')
  const stopLossTicks = priceTicks(market, req.stopLossPrice, 'stopLossPrice')
  return {
    id,
    marketId: market.id,
    clientOrderId: clientOrderId(req.clientOrderId),
    side,
    type,
    timeInForce,
    priceTicks: price,
    lots,
    postOnly,
    reduceOnly: flag(req.reduceOnly, 'reduceOnly'),
    marginMode: oneOf(req.marginMode, MARGIN_MODES, 'cross', 'INVALID_REQUEST', 'marginMode'),
    stopTicks,
    takeProfitTicks,
    stopLossTicks,
    quoteId,
  }
}

/** An order on the wire (SPEC.md "Order"), the same from the engine's reply and from a listing. */
export interface OrderView {
  id: string
  userId: string
  marketId: string
  clientOrderId: string | null
  side: OrderSide
  type: OrderType
  timeInForce: TimeInForce
  price: string | null
  quantity: string
  filledQuantity: string
  status: OrderStatus
  postOnly: boolean
  reduceOnly: boolean
  marginMode: MarginMode | null
  stopPrice: string | null
  takeProfitPrice: string | null
  stopLossPrice: string | null
  triggeredAt: string | null
  /** The order a take-profit / stop-loss child was attached to; null for every other order. */
  parentOrderId: string | null
  quoteId: string | null
  cancelReason: EndReason | null
  createdAt: string
  updatedAt: string
}
