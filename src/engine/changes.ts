// What one batch of commands changed, collected while the engine applies it and handed to the batch
// writer (PostgreSQL), the mirrors and the event publisher once the batch is done. Upserted rows are
// kept as references to live state, so the writer stores their latest value; appended rows (ledger,
// fills, marks) are kept in order.
import type { Bucket, LedgerKind } from '../domain/buckets.js'
import type { Account, Position } from './account.js'
import type { Reply } from './commands.js'
import type { EngineEvent } from './events.js'
import type { Order } from './order.js'
import type { FundingRow } from './perpetual.js'
import type { PositionEventRow } from './positionEvents.js'
import type { Mark } from './state.js'
import type { MmpState } from './mmp.js'

export interface ReplyOut {
  replyTo: string
  id: string
  reply: Reply
}

export interface LedgerRow {
  userId: string
  bucket: Bucket
  /** Signed micro-USDC. */
  amount: bigint
  balanceAfter: bigint
  kind: LedgerKind
  refId: string | null
  at: number
}

export interface FillRow {
  id: string
  matchId: string
  marketId: string
  orderId: string
  userId: string
  side: 'buy' | 'sell'
  role: 'taker' | 'maker'
  priceTicks: number
  lots: number
  fee: bigint
  feeBps: string
  /** Options: the USDC premium and the spot index (in the spot market's ticks) it converted at. */
  premium: bigint | null
  indexTicks: number | null
  at: number
}

/** A deposit the batch credited (the indexer wrote the row when it saw the log; this marks it credited). */
export interface DepositRow {
  id: string
  txHash: string
  logIndex: number
  blockNumber: number
  fromAddress: string
  userId: string
  amount: bigint
  at: number
}

/** A withdrawal as it stands after the batch (accepted, completed or failed). */
export interface WithdrawalRow {
  id: string
  userId: string
  amount: bigint
  toAddress: string
  status: 'pending' | 'completed' | 'failed'
  txHash: string | null
  error: string | null
  createdAt: number
  updatedAt: number
}

/** Epochs tell one Changes from every other in the process: an order, position or account remembers the
 * epoch of the batch that listed it (`changedIn`), so listing it again costs a comparison, not a hash. */
let lastEpoch = 0

export class Changes {
  readonly epoch = ++lastEpoch
  /** Markets whose row (status, book sequence, settlement) must be upserted. */
  readonly markets = new Set<string>()
  /** Mark history rows, in the order they were taken. */
  readonly marks: Mark[] = []
  /** Markets whose book changed, for the depth mirror. */
  readonly books = new Set<string>()
  /** Orders created or changed, each once (the live object: its state at commit is what is written). */
  readonly orders: Order[] = []
  readonly fills: FillRow[] = []
  /** Positions changed, each once. */
  readonly positions: Position[] = []
  /** Accounts whose balances changed, each once (all their buckets are written). */
  readonly balances: Account[] = []
  readonly ledger: LedgerRow[] = []
  readonly funding: FundingRow[] = []
  readonly positionEvents: PositionEventRow[] = []
  readonly deposits: DepositRow[] = []
  readonly withdrawals: WithdrawalRow[] = []
  /** Accounts whose dead man's switch was armed, refreshed or disarmed. */
  readonly deadman = new Set<Account>()
  /** Market-maker protection states changed (configured, counted, tripped, reset), each once. */
  readonly mmp: MmpState[] = []
  readonly events: EngineEvent[] = []
  readonly replies: ReplyOut[] = []
  commands = 0

  addOrder(o: Order): void {
    if (o.changedIn === this.epoch) return
    o.changedIn = this.epoch
    this.orders.push(o)
  }

  addPosition(p: Position): void {
    if (p.changedIn === this.epoch) return
    p.changedIn = this.epoch
    this.positions.push(p)
  }

  addMmp(s: MmpState): void {
    if (s.changedIn === this.epoch) return
    s.changedIn = this.epoch
    this.mmp.push(s)
  }

  addBalances(a: Account): void {
    if (a.balancesChangedIn === this.epoch) return
    a.balancesChangedIn = this.epoch
    this.balances.push(a)
  }

  get isEmpty(): boolean {
    return this.commands === 0
  }
}
