// What one batch of commands changed, collected while the engine applies it and handed to the batch
// writer (PostgreSQL), the book mirror and the event publisher once the batch is done. Rows that are
// upserts are kept as ids and read from the live state at commit time, so the latest value wins.
import type { Reply } from './commands.js'
import type { EngineEvent } from './events.js'
import type { Mark } from './state.js'

export interface ReplyOut {
  replyTo: string
  id: string
  reply: Reply
}

export class Changes {
  /** Markets whose row (status, book sequence, settlement) must be upserted. */
  readonly markets = new Set<string>()
  /** Mark history rows, in the order they were taken. */
  readonly marks: Mark[] = []
  /** Markets whose book changed, for the depth mirror. */
  readonly books = new Set<string>()
  readonly events: EngineEvent[] = []
  readonly replies: ReplyOut[] = []
  commands = 0

  get isEmpty(): boolean {
    return this.commands === 0
  }
}
