// The engine: a deterministic state machine. apply() takes one command envelope, validates it fully,
// mutates the state, and records what changed (rows, events, the reply) for the runner to commit.
// No clock, no randomness, no I/O: the same snapshot plus the same commands give the same state and the
// same events, byte for byte.
import { DomainError } from '../domain/errors.js'
import { Changes } from './changes.js'
import type { Command, CommandEnvelope, Reply } from './commands.js'
import type { Ctx } from './context.js'
import { streams, type EngineEvent } from './events.js'
import { expireMarket, listMarkets, setMarketStatus } from './handlers/markets.js'
import { updateMarks } from './handlers/marks.js'
import type { MarketRuntime } from './marketRuntime.js'
import { EngineState } from './state.js'
import { BUY, type Side } from './book/types.js'

export class Engine implements Ctx {
  readonly state: EngineState
  changes = new Changes()
  now = 0
  private correlationId: string | null = null
  private readonly touched: MarketRuntime[] = []

  constructor(state: EngineState = new EngineState()) {
    this.state = state
    this.now = state.now
  }

  apply(env: CommandEnvelope): Reply {
    if (env.ts > this.state.now) this.state.now = env.ts
    this.now = this.state.now
    this.correlationId = env.correlationId ?? null
    let reply: Reply
    try {
      reply = { ok: true, value: this.dispatch(env.cmd) }
    } catch (err) {
      reply = toReply(err)
    }
    this.flushBookDeltas()
    this.changes.commands++
    if (env.replyTo) this.changes.replies.push({ replyTo: env.replyTo, id: env.id, reply })
    return reply
  }

  /** Hands over what the commands applied since the last call changed, and starts a new batch. */
  takeChanges(): Changes {
    const c = this.changes
    this.changes = new Changes()
    return c
  }

  emit(stream: string, eventType: string, payload: unknown, sourceTs: number | null = null): EngineEvent {
    const event: EngineEvent = {
      stream,
      eventType,
      eventSeq: this.state.next(`seq:${stream}`),
      engineTs: this.now,
      sourceTs,
      correlationId: this.correlationId,
      causationId: null,
      payload,
    }
    this.changes.events.push(event)
    return event
  }

  touchBook(market: MarketRuntime): void {
    if (!this.touched.includes(market)) this.touched.push(market)
  }

  private dispatch(cmd: Command): unknown {
    switch (cmd.type) {
      case 'ListMarkets':
        return { listed: listMarkets(this, cmd.markets) }
      case 'SetMarketStatus':
        return setMarketStatus(this, cmd.marketId, cmd.status)
      case 'ExpireMarket':
        return expireMarket(this, cmd.marketId)
      case 'UpdateMarks':
        return updateMarks(this, cmd.marks)
      default:
        throw new DomainError('INVALID_REQUEST', `Unknown command ${(cmd as { type?: unknown }).type}`)
    }
  }

  /** One OrderbookDelta per changed book per command, with the book's next sequence. */
  private flushBookDeltas(): void {
    for (const market of this.touched) {
      const levels = market.book.drainChanges()
      if (levels.length === 0) continue
      const changes = levels.map(([side, price]: [Side, number]) => ({
        side: side === BUY ? 'bid' : 'ask',
        price: market.prices.format(price),
        size: market.quantities.format(market.book.levelSize(side, price)),
      }))
      market.bookSeq++
      this.changes.books.add(market.spec.id)
      this.changes.markets.add(market.spec.id)
      this.changes.events.push({
        stream: streams.book(market.spec.id),
        eventType: 'OrderbookDelta',
        eventSeq: market.bookSeq,
        engineTs: this.now,
        sourceTs: null,
        correlationId: this.correlationId,
        causationId: null,
        payload: { kind: 'delta', marketId: market.spec.id, sequence: market.bookSeq, changes },
      })
    }
    this.touched.length = 0
  }
}

function toReply(err: unknown): Reply {
  if (err instanceof DomainError) {
    const reply: Reply = { ok: false, code: err.code, message: err.message }
    if (err.details !== undefined) reply.details = err.details
    return reply
  }
  // A bug, not a rejection. Replay meets it at the same point with the same state, so the outcome stays
  // deterministic; the runner logs it and the client sees INTERNAL_ERROR.
  return { ok: false, code: 'INTERNAL_ERROR', message: err instanceof Error ? err.message : String(err) }
}
