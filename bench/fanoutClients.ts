// The outside of the fan-out benchmark, forked by bench/fanout.ts, in two roles (each its own process):
// - clients: N graphql-ws clients, each subscribed to one order book (of the exchange, or of the bare
//   reference server); every client checks that it sees every sequence after its snapshot, counts what
//   it received in the round, and the time each delta arrived is recorded;
// - watcher: one plain Redis subscriber to the book's event channel, recording when each event was
//   published on the bus (what the API node starts from).
// Delivery latency is receipt time minus the event's engineTs (the engine's clock: the command's time),
// and receipt time minus the bus time (the API node's part alone). Times are high-resolution wall
// clock, comparable across the processes of one machine. A benchmark runs in rounds: each round's
// figures are also added to a pool, read and emptied with `pooled` (the figures of one rate).
import { Redis } from 'ioredis'
import { createClient, type Client } from 'graphql-ws'
import WebSocket from 'ws'

export type ParentMessage =
  | { type: 'start'; url: string; clients: number; marketId: string }
  | { type: 'watch'; redisUrl: string; channel: string }
  /** A round starts; with `capture`, the first client keeps each delta's result JSON (for the reference). */
  | { type: 'begin'; capture: boolean }
  | { type: 'busTimes'; untilSeq: number; timeoutMs: number }
  /** The round ends once every client has `untilSeq`; each should have received `expected` deltas. */
  | { type: 'end'; untilSeq: number; expected: number; timeoutMs: number; busTimes: Array<[number, number]> }
  | { type: 'pooled' }
  | { type: 'stop' }

export interface Percentiles {
  p50: number
  p99: number
  max: number
}

/** Deltas per client against what each should have had: loss is expected × clients − received. */
export interface Delivery {
  expected: number
  received: number
  clients: number
  /** Fewest and most deltas one client received, per round expected. */
  minPerClient: number
  maxPerClient: number
  /** Clients that missed a sequence or did not reach the last one. */
  gaps: number
  behind: number
  /** Seconds from the first delta received to the last, over the rounds. */
  seconds: number
}

export type ChildMessage =
  | { type: 'ready'; snapshotSeqs: [number, number] }
  | { type: 'watching' }
  | { type: 'begun' }
  | { type: 'busTimes'; times: Array<[number, number]> }
  | { type: 'stats'; fromBus: Percentiles; delivery: Delivery; captured: Array<[number, string]> }
  | { type: 'pooled'; fromEngine: Percentiles; fromBus: Percentiles; delivery: Delivery }
  | { type: 'error'; message: string }

const QUERY = `subscription($m: String!) { orderbook(marketId: $m) { eventSeq engineTs payload { kind sequence changes { side price size } } } }`
const ROUND_CAPACITY = 1_000_000
const POOL_CAPACITY = 4_000_000

const now = () => performance.timeOrigin + performance.now()
const send = (m: ChildMessage) => process.send!(m)

interface Subscriber {
  client: Client
  last: number
  /** Deltas received in this round. */
  count: number
  gaps: number
}

const subs: Subscriber[] = []
// Per delta delivered in this round: its sequence, engine time and receipt time.
const seqs = new Float64Array(ROUND_CAPACITY)
const engineTs = new Float64Array(ROUND_CAPACITY)
const received = new Float64Array(ROUND_CAPACITY)
let count = 0
let capture: Array<[number, string]> | null = null
let waiting: { untilSeq: number; done: () => void } | null = null
// The rounds since the last `pooled`.
const pool = { fromEngine: new Float64Array(POOL_CAPACITY), fromBus: new Float64Array(POOL_CAPACITY), count: 0, delivery: emptyDelivery() }
/** Watcher: bus time of each event by sequence. */
let busTimes = new Map<number, number>()
let watcher: Redis | null = null

function emptyDelivery(): Delivery {
  return { expected: 0, received: 0, clients: 0, minPerClient: Infinity, maxPerClient: 0, gaps: 0, behind: 0, seconds: 0 }
}

function behind(untilSeq: number): number {
  let n = 0
  for (const s of subs) if (s.last < untilSeq) n++
  return n
}

function onResult(s: Subscriber, result: any): void {
  const e = result.data?.orderbook
  if (!e) {
    send({ type: 'error', message: JSON.stringify(result.errors ?? result) })
    return
  }
  // A snapshot (the subscription's first, or the reference's at each round) sets where deltas follow.
  if (e.payload.kind === 'snapshot') {
    s.last = e.eventSeq
    return
  }
  const t = now()
  if (e.eventSeq !== s.last + 1) s.gaps++
  s.last = e.eventSeq
  s.count++
  if (capture && s === subs[0]) capture.push([e.eventSeq, JSON.stringify(result)])
  if (count < ROUND_CAPACITY) {
    seqs[count] = e.eventSeq
    engineTs[count] = e.engineTs
    received[count++] = t
  }
  if (waiting && e.eventSeq >= waiting.untilSeq && behind(waiting.untilSeq) === 0) waiting.done()
}

async function start(url: string, n: number, marketId: string): Promise<void> {
  // Connect in batches so the handshakes do not all land in one tick.
  for (let i = 0; i < n; i += 100) {
    const batch: Array<Promise<void>> = []
    for (let j = i; j < Math.min(n, i + 100); j++) {
      const client = createClient({ url, webSocketImpl: WebSocket, retryAttempts: 0, lazy: true })
      const s: Subscriber = { client, last: -1, count: 0, gaps: 0 }
      subs.push(s)
      batch.push(
        new Promise<void>((resolve, reject) => {
          client.subscribe({ query: QUERY, variables: { m: marketId } }, {
            next: (r) => {
              onResult(s, r)
              if (s.last >= 0) resolve()
            },
            error: (err) => reject(err instanceof Error ? err : new Error(JSON.stringify(err))),
            complete: () => {},
          })
        }),
      )
    }
    await Promise.all(batch)
  }
  const last = subs.map((s) => s.last)
  send({ type: 'ready', snapshotSeqs: [Math.min(...last), Math.max(...last)] })
}

async function watch(redisUrl: string, channel: string): Promise<void> {
  watcher = new Redis(redisUrl)
  watcher.on('message', (_channel: string, message: string) => {
    const t = now()
    const seq = (JSON.parse(message) as { eventSeq: number }).eventSeq
    busTimes.set(seq, t)
  })
  await watcher.subscribe(channel)
  send({ type: 'watching' })
}

function percentiles(values: Float64Array): Percentiles {
  const sorted = values.sort()
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? NaN }
}

/** The round's figures; its latencies and delivery are added to the pool. */
function roundStats(untilSeq: number, expected: number, bus: Map<number, number>): ChildMessage {
  const fromBus = new Float64Array(count)
  let firstMs = Infinity
  let lastMs = 0
  for (let i = 0; i < count; i++) {
    const t = received[i]!
    fromBus[i] = t - (bus.get(seqs[i]!) ?? NaN)
    firstMs = Math.min(firstMs, t)
    lastMs = Math.max(lastMs, t)
    if (pool.count < POOL_CAPACITY) {
      pool.fromEngine[pool.count] = t - engineTs[i]!
      pool.fromBus[pool.count++] = fromBus[i]!
    }
  }
  const d: Delivery = { ...emptyDelivery(), expected: expected * subs.length, received: count, clients: subs.length, behind: behind(untilSeq), seconds: count > 0 ? (lastMs - firstMs) / 1000 : 0 }
  for (const s of subs) {
    d.minPerClient = Math.min(d.minPerClient, s.count)
    d.maxPerClient = Math.max(d.maxPerClient, s.count)
    if (s.gaps > 0) d.gaps++
  }
  const p = pool.delivery
  p.expected += d.expected
  p.received += d.received
  p.clients = d.clients
  p.minPerClient = Math.min(p.minPerClient, d.minPerClient)
  p.maxPerClient = Math.max(p.maxPerClient, d.maxPerClient)
  p.gaps += d.gaps
  p.behind += d.behind
  p.seconds += d.seconds
  const captured = capture ?? []
  capture = null
  return { type: 'stats', fromBus: percentiles(fromBus), delivery: d, captured }
}

process.on('message', (m: ParentMessage) => {
  switch (m.type) {
    case 'start':
      start(m.url, m.clients, m.marketId).catch((err: unknown) => send({ type: 'error', message: String(err) }))
      return
    case 'watch':
      watch(m.redisUrl, m.channel).catch((err: unknown) => send({ type: 'error', message: String(err) }))
      return
    case 'begin':
      count = 0
      capture = m.capture ? [] : null
      busTimes = new Map()
      for (const s of subs) {
        s.gaps = 0
        s.count = 0
      }
      send({ type: 'begun' })
      return
    case 'busTimes': {
      // Once the watcher has seen the last event of the phase.
      const started = Date.now()
      const check = () => {
        if (busTimes.has(m.untilSeq) || Date.now() - started > m.timeoutMs) send({ type: 'busTimes', times: [...busTimes.entries()] })
        else setTimeout(check, 10)
      }
      check()
      return
    }
    case 'end': {
      const report = () => {
        clearTimeout(timer)
        waiting = null
        send(roundStats(m.untilSeq, m.expected, new Map(m.busTimes)))
      }
      const timer = setTimeout(report, m.timeoutMs)
      waiting = { untilSeq: m.untilSeq, done: report }
      if (behind(m.untilSeq) === 0) report()
      return
    }
    case 'pooled': {
      const n = pool.count
      send({ type: 'pooled', fromEngine: percentiles(pool.fromEngine.subarray(0, n)), fromBus: percentiles(pool.fromBus.subarray(0, n)), delivery: pool.delivery })
      pool.count = 0
      pool.delivery = emptyDelivery()
      return
    }
    case 'stop':
      watcher?.disconnect()
      void Promise.all(subs.map((s) => s.client.dispose())).finally(() => process.exit(0))
  }
})
