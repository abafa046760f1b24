// The engine: a deterministic state machine. apply() takes one command envelope, validates it fully,
// mutates the state, and records what changed (rows, events, the reply) for the runner to commit.
// No clock, no randomness, no I/O: the same snapshot plus the same commands give the same state and the
// same events, byte for byte.
import { SYSTEM_USER } from '../domain/buckets.js'
import { DomainError } from '../domain/errors.js'
import type { Account, Position } from './account.js'
import { Changes } from './changes.js'
import type { Command, CommandEnvelope, Reply } from './commands.js'
import type { Ctx } from './context.js'
import type { EngineEvent, EventType } from './events.js'
import { cancelAllAfter, fireDeadmanSwitches } from './handlers/deadman.js'
import { faucet, genesis, transfer } from './handlers/funds.js'
import { expireMarket, listMarkets, setMarketStatus } from './handlers/markets.js'
import { onTick, updateMarks } from './handlers/marks.js'
import { creditDeposit, requestWithdrawal, settleWithdrawal } from './handlers/onchain.js'
import { cancelAll, cancelOrder, modifyOrder, placeOrder } from './handlers/orders.js'
import { placeQuotes } from './handlers/quotes.js'
import { previewOrder } from './handlers/preview.js'
import type { MarketRuntime } from './marketRuntime.js'
import type { Order } from './order.js'
import { EngineState, type Counter } from './state.js'
import { TouchList } from './touchList.js'
import type { Replies } from './replies.js'
import { BalancePayload, BookDeltaPayload, OrderPayload } from './payloads.js'
import { optionsLocked } from './optionMargin.js'
import { resetMmp, setMmpConfig } from './mmp.js'

export class Engine implements Ctx {
  readonly state: EngineState
  changes = new Changes()
  now = 0
  replying = false
  private correlationId: string | null = null
  private readonly touchedBooks = new TouchList<MarketRuntime>()
  private readonly touchedOrders = new TouchList<Order>()
  private readonly touchedAccounts = new TouchList<Account>()
  /** drainLevels() buffer, reused: a delta copies out only its own levels. */
  private readonly drainedLevels: number[] = []

  constructor(state: EngineState = new EngineState()) {
    this.state = state
    this.now = state.now
  }

  apply(env: CommandEnvelope): Reply {
    if (env.ts > this.state.now) this.state.now = env.ts
    this.now = this.state.now
    this.correlationId = env.correlationId ?? null
    this.replying = env.replyTo !== undefined
    let reply: Reply
    try {
      reply = { ok: true, value: this.dispatch(env.cmd, env.id) }
    } catch (err) {
      reply = toReply(err)
    }
    this.flush()
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

  emit(stream: Counter, eventType: EventType, payload: unknown, sourceTs: number | null = null): EngineEvent {
    const event: EngineEvent = {
      stream: stream.name,
      eventType,
      eventSeq: this.state.advance(stream),
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
    this.touchedBooks.add(market)
  }

  touchOrder(order: Order): void {
    this.touchedOrders.add(order)
    this.changes.addOrder(order)
  }

  touchAccount(account: Account): void {
    this.touchedAccounts.add(account)
  }

  touchBalances(account: Account): void {
    account.optionsStale = true
    this.changes.addBalances(account)
    this.touchedAccounts.add(account)
  }

  touchPosition(position: Position): void {
    this.changes.addPosition(position)
  }

  private dispatch(cmd: Command, commandId: string): unknown {
    const handler = HANDLERS[cmd.type] as Handler<Command['type']> | undefined
    if (!handler) throw new DomainError('INVALID_REQUEST', `Unknown command ${(cmd as { type?: unknown }).type}`)
    return handler(this, cmd as never, commandId)
  }

  /** After each command: one book delta per changed book, one update per changed order and account. */
  private flush(): void {
    const books = this.touchedBooks
    for (let i = 0; i < books.size; i++) this.emitBookDelta(books.get(i))
    books.clear()
    const orders = this.touchedOrders
    for (let i = 0; i < orders.size; i++) {
      const order = orders.get(i)
      const market = this.state.markets.get(order.marketId)!
      this.emit(order.account.streams.orders, 'OrderUpdate', new OrderPayload(order, market))
      // An option order changes what the options bucket holds back: its balance is news too.
      if (!market.linear) this.touchBalances(order.account)
    }
    orders.clear()
    const accounts = this.touchedAccounts
    for (let i = 0; i < accounts.size; i++) {
      const account = accounts.get(i)
      if (account.userId !== SYSTEM_USER) this.emit(account.streams.balances, 'BalanceUpdate', new BalancePayload(account, optionsLocked(this.state, account)))
    }
    accounts.clear()
  }

  private emitBookDelta(market: MarketRuntime): void {
    const n = market.book.drainLevels(this.drainedLevels)
    if (n === 0) return
    const levels = this.drainedLevels.slice(0, 3 * n)
    market.bookSeq++
    this.changes.books.add(market.spec.id)
    this.changes.markets.add(market.spec.id)
    this.changes.events.push({
      stream: market.streams.book,
      eventType: 'OrderbookDelta',
      eventSeq: market.bookSeq,
      engineTs: this.now,
      sourceTs: null,
      correlationId: this.correlationId,
      causationId: null,
      payload: new BookDeltaPayload(market, market.bookSeq, levels),
    })
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

type Handler<K extends Command['type']> = (e: Engine, cmd: Extract<Command, { type: K }>, commandId: string) => Replies[K]

/** One handler per command, each returning its command's reply type (replies.ts). */
const HANDLERS: { readonly [K in Command['type']]: Handler<K> } = {
  PlaceOrder: (e, c) => placeOrder(e, c.userId, c.order, c.kind, c.mmp === true),
  PreviewOrder: (e, c) => previewOrder(e, c.userId, c.order, c.kind),
  CancelOrder: (e, c) => cancelOrder(e, c.userId, c.orderId, c.kind),
  ModifyOrder: (e, c) => modifyOrder(e, c.userId, c.orderId, c.priceTicks, c.lots, c.kind),
  CancelAll: (e, c) => cancelAll(e, c.userId, c, c.kind),
  PlaceQuotes: (e, c) => placeQuotes(e, c.userId, c.marketId, c.quoteId, c.orders, c.cancelFirst, c.amend === true, c.kind),
  CancelAllAfter: (e, c) => cancelAllAfter(e, c.userId, c.timeoutMs),
  SetMmpConfig: (e, c) => setMmpConfig(e, c.userId, c.underlying, c),
  ResetMmp: (e, c) => resetMmp(e, c.userId, c.underlying),
  Tick: (e) => {
    onTick(e)
    return { deadmanFired: fireDeadmanSwitches(e) }
  },
  Transfer: (e, c, id) => transfer(e, c.userId, c.from, c.to, c.amountMicro, id),
  Faucet: (e, c, id) => faucet(e, c.userId, c.amountMicro, c.dailyCapMicro, id),
  Genesis: (e, c, id) => genesis(e, c.userId, c.usdcMicro, c.holdings, id),
  CreditDeposit: (e, c) => creditDeposit(e, c),
  RequestWithdrawal: (e, c) => requestWithdrawal(e, c.userId, c.withdrawalId, c.amountMicro, c.toAddress),
  CompleteWithdrawal: (e, c) => settleWithdrawal(e, c.withdrawalId, 'completed', c.txHash, null),
  FailWithdrawal: (e, c) => settleWithdrawal(e, c.withdrawalId, 'failed', c.txHash, c.reason),
  UpdateMarks: (e, c) => updateMarks(e, c.marks),
  ListMarkets: (e, c) => ({ listed: listMarkets(e, c.markets) }),
  SetMarketStatus: (e, c) => setMarketStatus(e, c.marketId, c.status),
  ExpireMarket: (e, c) => expireMarket(e, c.marketId),
}
