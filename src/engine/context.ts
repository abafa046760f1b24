// What a command handler may touch: the state, the batch's changes, the clock, and the emitters.
import type { Account, Position } from './account.js'
import type { Changes } from './changes.js'
import type { EngineEvent, EventType } from './events.js'
import type { MarketRuntime } from './marketRuntime.js'
import type { Order } from './order.js'
import type { Counter, EngineState } from './state.js'

export interface Ctx {
  readonly state: EngineState
  readonly changes: Changes
  /** Engine time of the command being applied. */
  readonly now: number
  /** True when someone waits for this command's reply (build reply views only then). */
  readonly replying: boolean
  /** Emits an event on `stream` with that stream's next sequence. */
  emit(stream: Counter, eventType: EventType, payload: unknown, sourceTs?: number | null): EngineEvent
  /** Marks a book as changed; its delta is emitted when the command completes. */
  touchBook(market: MarketRuntime): void
  /** Marks an order as changed: written with the batch, its update emitted when the command completes. */
  touchOrder(order: Order): void
  /** Marks an account's balances as changed: a balance snapshot is emitted when the command completes. */
  touchAccount(account: Account): void
  /** Marks an account's balances as changed without a ledger movement (what the options bucket holds
   * back moved): its locked part is computed again, written with the batch and emitted. */
  touchBalances(account: Account): void
  /** Marks a position as changed: written with the batch. */
  touchPosition(position: Position): void
}
