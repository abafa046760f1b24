// Owns the options board and option ticks of one underlying as streams. The engine has no events for
// them: this node recomputes the board (services/optionsBoard.ts, from the marks and the option books)
// when the family's marks move or an option book changes, at most once per OPTIONS_FEED_INTERVAL_MS so
// a busy feed cannot melt the node, and sends subscribers only what changed. Each view keeps its own
// per-node sequence; a subscriber's first frame is the current snapshot, so a reconnect (to any node)
// starts from a fresh baseline.
import type { Logger } from 'pino'
import { streams } from '../engine/events.js'
import { optionsBoard, type BoardRow, type OptionsBoard } from '../services/optionsBoard.js'
import type { MarketData } from '../services/marketData.js'
import type { EventHub } from './eventHub.js'
import { makeFrame, type Frame } from './frame.js'
import type { OpenStream, Subscriber } from './subscriber.js'

export interface OptionTick {
  instrumentId: string
  /** Best bid and ask of the option's book; null for an empty side. */
  bid: string | null
  ask: string | null
  mark: string | null
  iv: string | null
  delta: string | null
}

/** GraphQL's view of a board frame: the board (only changed rows in a delta) and the rows that left. */
export interface BoardUpdate {
  kind: 'snapshot' | 'delta'
  seq: number
  board: OptionsBoard
  removed: string[]
}

export interface OptionsFeedDeps {
  hub: EventHub
  marketData: MarketData
  log: Logger
  intervalMs: number
}

const tickOf = (r: BoardRow): OptionTick => ({ instrumentId: r.marketId, bid: r.bid, ask: r.ask, mark: r.markPrice, iv: r.markIv, delta: r.delta })

/** The board as GET /markets/board shapes it, with only the given rows. */
function restBoard(b: OptionsBoard, calls: BoardRow[], puts: BoardRow[]) {
  return {
    underlying: b.underlying,
    spotPrice: b.spotPrice,
    timestamp: new Date(b.timestampMs).toISOString(),
    expiryForwards: Object.fromEntries(b.expiryForwards.map((f) => [f.expiry, f.forward])),
    calls,
    puts,
  }
}

export class OptionsFeed {
  private board: OptionsBoard | null = null
  private boardSeq = 0
  private ticksSeq = 0
  private rows = new Map<string, string>()
  private ticks = new Map<string, string>()
  private head = ''
  private boardSnap: Frame | null = null
  private ticksSnap: Frame | null = null
  private readonly boardSubs = new Set<Subscriber>()
  private readonly ticksSubs = new Set<Subscriber>()
  private readonly listening = new Map<string, Promise<() => void>>()
  /** The latest event that asked for a recomputation: the cause of the next update. */
  private cause: { eventId: string; engineTs: number } | null = null
  private timer: NodeJS.Timeout | null = null
  private running = false
  private dirty = false
  private lastRun = 0
  private closed = false

  private constructor(
    private readonly d: OptionsFeedDeps,
    readonly underlying: string,
    private readonly onIdle: () => void,
  ) {}

  /** Listens to the family's marks first, then computes the first board (nothing is missed between). */
  static async open(d: OptionsFeedDeps, underlying: string, onIdle: () => void): Promise<OptionsFeed> {
    const feed = new OptionsFeed(d, underlying, onIdle)
    try {
      await feed.listenTo(streams.marks(underlying))
      await feed.recompute()
    } catch (err) {
      feed.close()
      throw err
    }
    return feed
  }

  /** Null when the feed has just gone idle: the caller opens a new one. */
  subscribeBoard(sub: Subscriber): OpenStream | null {
    return this.subscribe(this.boardSubs, sub, () => this.boardSnapshot())
  }

  subscribeTicks(sub: Subscriber): OpenStream | null {
    return this.subscribe(this.ticksSubs, sub, () => this.ticksSnapshot())
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    if (this.timer) clearTimeout(this.timer)
    for (const p of this.listening.values()) void p.then((stop) => stop(), () => {})
    this.listening.clear()
    this.onIdle()
  }

  private subscribe(set: Set<Subscriber>, sub: Subscriber, snapshot: () => Frame): OpenStream | null {
    if (this.closed) return null
    sub.frame(snapshot())
    set.add(sub)
    return {
      close: () => {
        if (!set.delete(sub)) return
        if (this.boardSubs.size === 0 && this.ticksSubs.size === 0) this.close()
      },
      // Computed state: a fresh snapshot is always at hand.
      resync: () => sub.frame(snapshot()),
    }
  }

  private listenTo(stream: string): Promise<() => void> {
    let p = this.listening.get(stream)
    if (!p) {
      p = this.d.hub.listen(stream, (f) => this.trigger(f))
      this.listening.set(stream, p)
      p.catch((err: unknown) => {
        this.listening.delete(stream)
        this.d.log.warn({ err, stream }, 'options feed could not listen')
      })
    }
    return p
  }

  private trigger(f: Frame): void {
    this.cause = { eventId: f.env.eventId, engineTs: f.env.engineTs }
    this.schedule()
  }

  private schedule(): void {
    if (this.closed) return
    if (this.running || this.timer) {
      this.dirty = true
      return
    }
    const wait = Math.max(0, this.lastRun + this.d.intervalMs - Date.now())
    this.timer = setTimeout(() => {
      this.timer = null
      this.recompute().catch((err: unknown) => this.d.log.warn({ err, underlying: this.underlying }, 'options feed recomputation failed'))
    }, wait)
  }

  private async recompute(): Promise<void> {
    this.running = true
    this.dirty = false
    try {
      const board = await optionsBoard(this.d.marketData, this.underlying)
      if (this.closed) return
      this.followBooks(board)
      this.apply(board)
    } finally {
      this.running = false
      this.lastRun = Date.now()
      if (this.dirty) this.schedule()
    }
  }

  /** Listens to the book of every option on the board, and stops listening to those that left it. */
  private followBooks(board: OptionsBoard): void {
    const wanted = new Set([...board.calls, ...board.puts].map((r) => streams.book(r.marketId)))
    for (const stream of wanted) void this.listenTo(stream).catch(() => {})
    for (const [stream, p] of this.listening) {
      if (stream.startsWith('book:') && !wanted.has(stream)) {
        this.listening.delete(stream)
        void p.then((stop) => stop(), () => {})
      }
    }
  }

  private apply(board: OptionsBoard): void {
    const first = this.board === null
    const changed: BoardRow[] = []
    const changedTicks: OptionTick[] = []
    const rows = new Map<string, string>()
    const ticks = new Map<string, string>()
    for (const r of [...board.calls, ...board.puts]) {
      const row = JSON.stringify(r)
      rows.set(r.marketId, row)
      if (this.rows.get(r.marketId) !== row) changed.push(r)
      const tick = tickOf(r)
      const tickJson = JSON.stringify(tick)
      ticks.set(r.marketId, tickJson)
      if (this.ticks.get(r.marketId) !== tickJson) changedTicks.push(tick)
    }
    const removed = [...this.rows.keys()].filter((id) => !rows.has(id))
    const head = JSON.stringify([board.spotPrice, board.expiryForwards])
    const headChanged = head !== this.head
    this.board = board
    this.rows = rows
    this.ticks = ticks
    this.head = head
    this.boardSnap = null
    this.ticksSnap = null
    if (first) {
      this.boardSeq = 1
      this.ticksSeq = 1
      return
    }
    const meta = { engineTs: this.cause?.engineTs ?? board.timestampMs, causationId: this.cause?.eventId ?? null }
    if (changed.length > 0 || removed.length > 0 || headChanged) {
      const seq = ++this.boardSeq
      const calls = changed.filter((r) => r.optionType === 'call')
      const puts = changed.filter((r) => r.optionType === 'put')
      const frame = makeFrame({
        eventType: 'BoardDelta',
        eventSeq: seq,
        ...meta,
        payload: { kind: 'delta', seq, ...restBoard(board, calls, puts), removed },
        data: { kind: 'delta', seq, board: { ...board, calls, puts }, removed } satisfies BoardUpdate,
      })
      for (const sub of this.boardSubs) sub.frame(frame)
    }
    if (changedTicks.length > 0 || removed.length > 0) {
      const seq = ++this.ticksSeq
      const frame = makeFrame({ eventType: 'OptionDelta', eventSeq: seq, ...meta, payload: { kind: 'delta', seq, ticks: changedTicks, removed } })
      for (const sub of this.ticksSubs) sub.frame(frame)
    }
  }

  private boardSnapshot(): Frame {
    const b = this.board!
    const seq = this.boardSeq
    return (this.boardSnap ??= makeFrame({
      eventType: 'BoardSnapshot',
      eventSeq: seq,
      engineTs: b.timestampMs,
      payload: { kind: 'snapshot', seq, ...restBoard(b, b.calls, b.puts) },
      data: { kind: 'snapshot', seq, board: b, removed: [] } satisfies BoardUpdate,
    }))
  }

  private ticksSnapshot(): Frame {
    const b = this.board!
    const seq = this.ticksSeq
    return (this.ticksSnap ??= makeFrame({
      eventType: 'OptionSnapshot',
      eventSeq: seq,
      engineTs: b.timestampMs,
      payload: { kind: 'snapshot', seq, ticks: [...b.calls, ...b.puts].map(tickOf) },
    }))
  }
}
