// The outside of the fan-out benchmark, forked by bench/fanout.ts, in two roles (each its own process):
// - clients: N graphql-ws clients, each subscribed to one order book; every client checks that it sees
//   every sequence after its snapshot and records when each delta arrived;
// - watcher: one plain Redis subscriber to the book's event channel, recording when each event was
//   published on the bus (what the API node starts from).
// Delivery latency is receipt time minus the event's engineTs (the engine's clock: the command's time),
// and receipt time minus the bus time (the API node's part alone). Times are high-resolution wall
// clock, comparable across the processes of one machine.
import { Redis } from 'ioredis'
import { createClient, type Client } from 'graphql-ws'
import WebSocket from 'ws'

export type ParentMessage =
  | { type: 'start'; url: string; clients: number; marketId: string }
  | { type: 'watch'; redisUrl: string; channel: string }
  | { type: 'begin' }
  | { type: 'busTimes'; untilSeq: number; timeoutMs: number }
  | { type: 'end'; untilSeq: number; timeoutMs: number; busTimes: Array<[number, number]> }
  | { type: 'stop' }

export interface Percentiles {
  p50: number
  p99: number
  max: number
}

export type ChildMessage =
  | { type: 'ready'; snapshotSeqs: [number, number] }
  | { type: 'watching' }
  | { type: 'begun' }
  | { type: 'busTimes'; times: Array<[number, number]> }
  | { type: 'stats'; received: number; gaps: number; behind: number; firstMs: number; lastMs: number; fromEngine: Percentiles; fromBus: Percentiles }
  | { type: 'error'; message: string }

const QUERY = `subscription($m: String!) { orderbook(marketId: $m) { eventSeq engineTs payload { kind sequence changes { side price size } } } }`
const CAPACITY = 4_000_000

const now = () => performance.timeOrigin + performance.now()
const send = (m: ChildMessage) => process.send!(m)

interface Subscriber {
  client: Client
  last: number
  gaps: number
}

const subs: Subscriber[] = []
// Per delivered delta: its sequence, engine time and receipt time.
let seqs = new Float64Array(CAPACITY)
let engineTs = new Float64Array(CAPACITY)
let received = new Float64Array(CAPACITY)
let count = 0
let waiting: { untilSeq: number; done: () => void } | null = null
/** Watcher: bus time of each event by sequence. */
let busTimes = new Map<number, number>()
let watcher: Redis | null = null

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
  if (e.payload.kind === 'snapshot') {
    s.last = e.eventSeq
    return
  }
  const t = now()
  if (e.eventSeq !== s.last + 1) s.gaps++
  s.last = e.eventSeq
  if (count < CAPACITY) {
    seqs[count] = e.eventSeq
    engineTs[count] = e.engineTs
    received[count++] = t
  }
  if (waiting && e.eventSeq >= waiting.untilSeq && behind(waiting.untilSeq) === 0) waiting.done()
}

async function start(url: string, n: number, marketId: string): Promise<void> {
  // A second start (the reference server) replaces the clients of the first.
  await Promise.all(subs.splice(0).map((s) => s.client.dispose()))
  // Connect in batches so the handshakes do not all land in one tick.
  for (let i = 0; i < n; i += 100) {
    const batch: Array<Promise<void>> = []
    for (let j = i; j < Math.min(n, i + 100); j++) {
      const client = createClient({ url, webSocketImpl: WebSocket, retryAttempts: 0, lazy: true })
      const s: Subscriber = { client, last: -1, gaps: 0 }
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

function stats(untilSeq: number, bus: Map<number, number>): ChildMessage {
  const fromEngine = new Float64Array(count)
  const fromBus = new Float64Array(count)
  let firstMs = Infinity
  let lastMs = 0
  for (let i = 0; i < count; i++) {
    const t = received[i]!
    fromEngine[i] = t - engineTs[i]!
    fromBus[i] = t - (bus.get(seqs[i]!) ?? NaN)
    firstMs = Math.min(firstMs, t)
    lastMs = Math.max(lastMs, t)
  }
  let gaps = 0
  for (const s of subs) gaps += s.gaps
  return { type: 'stats', received: count, gaps, behind: behind(untilSeq), firstMs, lastMs, fromEngine: percentiles(fromEngine), fromBus: percentiles(fromBus) }
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
      seqs = new Float64Array(CAPACITY)
      engineTs = new Float64Array(CAPACITY)
      received = new Float64Array(CAPACITY)
      count = 0
      busTimes = new Map()
      for (const s of subs) s.gaps = 0
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
        send(stats(m.untilSeq, new Map(m.busTimes)))
      }
      const timer = setTimeout(report, m.timeoutMs)
      waiting = { untilSeq: m.untilSeq, done: report }
      if (behind(m.untilSeq) === 0) report()
      return
    }
    case 'stop':
      watcher?.disconnect()
      void Promise.all(subs.map((s) => s.client.dispose())).finally(() => process.exit(0))
  }
})
