// Rows for positions the engine closes on its own initiative (liquidation steps, settlement at expiry).
import type { MarginMode } from '../domain/orders.js'

export interface PositionEventRow {
  id: string
  kind: 'liquidation' | 'settlement'
  userId: string
  marketId: string
  orderId: string | null
  marginMode: MarginMode
  /** Signed position before the event, in lots, and how many lots it closed. */
  lots: number
  closedLots: number
  /** Micro-USDC of the closed lots at their close prices (the average price derives from it). */
  notional: bigint
  pnl: bigint
  fee: bigint
  insurance: bigint
  equity: bigint | null
  maintenanceMargin: bigint | null
  at: number
}
