// An order as the engine holds it while it lives (open), and as the batch writer persists it.
import type { EndReason, MarginMode, OrderSide, OrderStatus, OrderType, TimeInForce } from '../domain/orders.js'
import type { Account } from './account.js'

export interface Order {
  readonly id: string
  readonly userId: string
  /** The account of userId, linked so that the hot path looks up nothing (not persisted). */
  readonly account: Account
  readonly marketId: string
  readonly clientOrderId: string | null
  readonly side: OrderSide
  readonly type: OrderType
  readonly timeInForce: TimeInForce
  /** Limit price in ticks; null for market orders. */
  priceTicks: number | null
  /** Ordered quantity in lots (a modify may change it). */
  lots: number
  filledLots: number
  status: OrderStatus
  readonly postOnly: boolean
  readonly reduceOnly: boolean
  readonly marginMode: MarginMode | null
  readonly stopTicks: number | null
  readonly takeProfitTicks: number | null
  readonly stopLossTicks: number | null
  triggeredAt: number | null
  readonly parentOrderId: string | null
  readonly quoteId: string | null
  /** Under market-maker protection (mmp.ts): an option order placed by a quote or with `mmp: true`. */
  mmp: boolean
  cancelReason: EndReason | null
  /** Time priority: a book re-built from orders in seq order is the same book. */
  seq: number
  readonly createdAt: number
  updatedAt: number
  /** What the resting remainder holds back: micro-USDC (spot buys, isolated margin) or base lots (spot sells). */
  reserved: bigint
  /** Lots and price this order counts for in its account's cross exposure (0 lots: none). */
  heldLots: number
  heldPrice: number
  /** Index in its account's open-order list for its market (Account.marketOrders); −1 when not listed. */
  openSlot: number
  /** Epoch of the last batch that listed it as changed (Changes.addOrder). */
  changedIn: number
}

export const remainingLots = (o: Order) => o.lots - o.filledLots

/** A conditional order waiting for its trigger: open, but not in the book. */
export const isWaiting = (o: Order) => o.triggeredAt === null && (o.stopTicks !== null || o.parentOrderId !== null)
