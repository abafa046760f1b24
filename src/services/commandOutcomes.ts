// What an API node answers when the engine's reply to a command did not come in time (the engine died
// between its commit and its replies, a failover outlasted the timeout, PostgreSQL was away). The
// command is in the stream, and PostgreSQL says whether it is committed: the engine stores each batch's
// last stream id with the batch's effects. A committed placement is answered with its orders as stored,
// so a client never re-sends an order that exists; a committed placement with no order was refused and
// changed nothing. Everything else is OUTCOME_UNKNOWN naming the command (and its orders) to look up:
// not yet committed, it may still be applied, so "retry" would be the wrong advice.
import type pg from 'pg'
import type { Submitted } from '../bus/commandBus.js'
import { compareStreamIds } from '../bus/streamIds.js'
import type { OrderView } from '../domain/orders.js'
import type { Command, Reply } from '../engine/commands.js'
import type { AccountReads } from '../store/accountReads.js'
import { readOffset } from '../store/engineOffsets.js'

/** Ids of the orders a command would create, when it is a placement. */
function placedOrderIds(cmd: Command): string[] | null {
  if (cmd.type === 'PlaceOrder') return [cmd.order.id]
  if (cmd.type === 'PlaceQuotes') return cmd.orders.map((o) => o.id)
  return null
}

export function outcomeUnknown(s: Submitted, committed: boolean): Reply {
  const orderIds = placedOrderIds(s.env.cmd)
  return {
    ok: false,
    code: 'OUTCOME_UNKNOWN',
    message: committed
      ? 'The command took effect but its result was lost while the engine failed over; look it up before retrying'
      : 'The engine did not answer in time and the command may still take effect; look it up before retrying',
    details: { commandId: s.env.id, committed, ...(orderIds ? { orderIds } : {}) },
  }
}

export class CommandOutcomes {
  constructor(
    private readonly pool: pg.Pool,
    private readonly reads: AccountReads,
  ) {}

  /** The reply-timeout handler of the command bus. */
  readonly resolve = async (s: Submitted): Promise<Reply> => {
    let committed: boolean
    try {
      committed = await this.isCommitted(s)
    } catch {
      return outcomeUnknown(s, false) // PostgreSQL is away: nothing can be said
    }
    if (!committed) return outcomeUnknown(s, false)
    try {
      return (await this.committedPlacement(s)) ?? outcomeUnknown(s, true)
    } catch {
      return outcomeUnknown(s, true)
    }
  }

  /** Whether the engine's committed offset has reached the command, in the stream it was appended to. */
  private async isCommitted(s: Submitted): Promise<boolean> {
    const offset = await readOffset(this.pool)
    return offset !== null && s.epoch !== null && offset.epoch === s.epoch && compareStreamIds(offset.lastStreamId, s.streamId) >= 0
  }

  /** The reply a committed placement got, rebuilt from its stored orders; null for other commands. */
  private async committedPlacement(s: Submitted): Promise<Reply | null> {
    const cmd = s.env.cmd
    const ids = placedOrderIds(cmd)
    if (!ids || ids.length === 0) return null
    const orders = await this.reads.ordersById(ids)
    if (orders.length === 0) {
      return {
        ok: false,
        code: 'UPSTREAM_DEGRADED',
        message: 'The engine refused the order while failing over and its reason was lost; nothing was placed, so it may be sent again',
        details: { commandId: s.env.id, orderIds: ids },
      }
    }
    if (orders.length !== ids.length) return null // placements are all or nothing: not a state to explain
    if (cmd.type === 'PlaceOrder') return { ok: true, value: orders[0] }
    if (cmd.type !== 'PlaceQuotes') return null
    const canceled = cmd.cancelFirst ? await this.reads.replacedByQuote(cmd.userId, cmd.marketId, orders[0]!.createdAt, ids) : []
    const results = orders.map((o: OrderView) => ({ side: o.side, response: o }))
    return { ok: true, value: { marketId: cmd.marketId, quoteId: cmd.quoteId, canceled, results } }
  }
}
