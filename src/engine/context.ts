// What a command handler may touch: the state, the batch's changes, the clock, and the event emitter.
import type { Changes } from './changes.js'
import type { EngineEvent } from './events.js'
import type { MarketRuntime } from './marketRuntime.js'
import type { EngineState } from './state.js'

export interface Ctx {
  readonly state: EngineState
  readonly changes: Changes
  /** Engine time of the command being applied. */
  readonly now: number
  /** Emits an event on `stream` with that stream's next sequence. */
  emit(stream: string, eventType: string, payload: unknown, sourceTs?: number | null): EngineEvent
  /** Marks a book as changed; its delta is emitted when the command completes. */
  touchBook(market: MarketRuntime): void
}
