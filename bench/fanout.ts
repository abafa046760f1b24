// Owns the stream fan-out benchmark: a real exchange in this process (api, engine, scheduler; throwaway
// database and Redis prefix, removed at the end) and 1,000 graphql-ws subscribers of one order book in a
// separate process (bench/fanoutClients.ts). No documented socket carries a linear book (/ws/feeds is
// options only), so the subscribers use the GraphQL `orderbook` subscription. The engine is driven at 50
// and then 100 book changes per second (a resting post-only order placed or cancelled per command, so
// each command is one OrderbookDelta). A bare `ws` server in this process, with 1,000 clients of its own
// (the same client code in another process), gives this machine's floor: it sends the same messages at
// the same moments (class Reference). Per rate, rounds of the two alternate, and the benchmark reports
// each side's delivery latency (graphql-ws: from the event's appearance on the Redis bus, seen by a
// watcher process, i.e. the API node's fan-out alone, and from its engineTs; bare: from when the
// message was due), the ratio of their p99s, loss per client, the CPU of each side's send loop, and
// the server's RSS and the major collections in its process during each side's rounds.
// (Running the engine in a process of its own was tried: on two cores the extra process costs more than
// it isolates.)
// Run alone: npm run bench -- fanout
import { fork } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { constants, PerformanceObserver } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import pino from 'pino'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { WebSocketServer, type WebSocket } from 'ws'
import { connectRedis } from '../src/bus/redis.js'
import { loadConfig } from '../src/config/env.js'
import { newId } from '../src/domain/ids.js'
import { parseLinearOrder } from '../src/domain/orders.js'
import { startExchange, type Exchange } from '../src/server.js'
import { dropDatabase, withDatabase } from '../src/store/migrate.js'
import type { ChildMessage, Delivery, ParentMessage, Percentiles } from './fanoutClients.js'
import { fmt, percentile, printLine } from './report.js'

const SUBSCRIBERS = 1_000
const MARKET = 'BTC-PERP'
const ROUND_SECONDS = 5
const RATES = [50, 100]
const MID = 100_000

/** Waits until `at` (performance.now() time); when already late, still yields to the event loop once.
 * A loop that only slept when early ran through its backlog without yielding and held back the timers
 * of the exchange in this process: its engine and scheduler lost their leases during the reference. */
const pace = (at: number) => new Promise((r) => (at > performance.now() ? setTimeout(r, at - performance.now()) : setImmediate(r)))

/** The clients' entry beside this module: the TypeScript source under tsx, or its bundle from `npm run bench`. */
const compiled = import.meta.url.endsWith('.mjs')
const CLIENTS = fileURLToPath(new URL(compiled ? './fanoutClients.mjs' : './fanoutClients.ts', import.meta.url))

/** One forked process of bench/fanoutClients.ts, talked to by request and reply. */
class Child {
  private readonly child = fork(CLIENTS, [], { execArgv: compiled ? [] : ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  private readonly waiters: Array<{ reply(m: ChildMessage): void; fail(err: Error): void }> = []
  /** The process reported an error: every request, waiting or later, fails with it (the caller cleans up). */
  private failed: Error | null = null

  constructor() {
    this.child.on('message', (m: ChildMessage) => {
      if (m.type !== 'error') return this.waiters.shift()?.reply(m)
      this.failed = new Error(`benchmark process: ${m.message}`)
      for (const w of this.waiters.splice(0)) w.fail(this.failed)
    })
  }

  request<T extends ChildMessage['type']>(m: ParentMessage, expect: T): Promise<Extract<ChildMessage, { type: T }>> {
    if (this.failed) return Promise.reject(this.failed)
    return new Promise((resolve, reject) => {
      this.waiters.push({
        reply: (reply) => (reply.type === expect ? resolve(reply as Extract<ChildMessage, { type: T }>) : reject(new Error(`expected ${expect}, got ${reply.type}`))),
        fail: reject,
      })
      this.child.send(m)
    })
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve())
      this.child.send({ type: 'stop' } satisfies ParentMessage)
    })
  }
}

async function fundedUser(ex: Exchange): Promise<string> {
  const user = await ex.services.identity.users.signedIn(privateKeyToAccount(generatePrivateKey()).address)
  const cmd = ex.services.commands
  await cmd.execute({ type: 'Faucet', userId: user.id, amountMicro: '1000000000000', dailyCapMicro: '1000000000000' })
  await cmd.execute({ type: 'Transfer', userId: user.id, from: 'wallet', to: 'perps', amountMicro: '1000000000000' })
  return user.id
}

/** One book change per command at `rate` per second: place a resting post-only bid, or cancel one. */
async function drive(ex: Exchange, userId: string, rate: number, seconds: number): Promise<{ sent: number; refused: number }> {
  const spec = (await ex.services.marketData.marketOrThrow(MARKET)).spec
  const cmd = ex.services.commands
  const resting: string[] = []
  const replies: Array<Promise<unknown>> = []
  let refused = 0
  const total = rate * seconds
  const t0 = performance.now()
  for (let i = 0; i < total; i++) {
    await pace(t0 + (i * 1000) / rate)
    if (resting.length >= 4) {
      replies.push(cmd.submit({ type: 'CancelOrder', userId, orderId: resting.shift()! }).then((r) => (r.ok ? null : refused++)))
    } else {
      const id = newId()
      const price = String(MID - 1_000 - (i % 500))
      const order = parseLinearOrder({ marketId: MARKET, side: 'buy', price, quantity: '0.001', postOnly: true }, spec, id)
      resting.push(id)
      replies.push(cmd.submit({ type: 'PlaceOrder', userId, order }).then((r) => (r.ok ? null : refused++)))
    }
  }
  await Promise.all(replies)
  return { sent: total, refused }
}

/** A delta as the graphql-ws clients received it: its sequence, result JSON, and ms after the round's first on the bus. */
interface Sent {
  seq: number
  json: string
  at: number
}

/**
 * The floor on this machine: a bare `ws` server speaking just enough graphql-transport-ws (ack, a
 * snapshot, then one `next` per delta) to its own client process, sending each delta to every socket
 * at once (`ws.send` of the message string), with no GraphQL, Redis, engine or backpressure. It sends
 * the very results the graphql-ws clients received in the round before at that rate (the same bytes
 * but for the subscription id, which has the same length) at the moments they appeared on the bus
 * (the same spacing, bursts included), starting each round with a snapshot at the sequence before them.
 */
class Reference {
  private readonly wss = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  private readonly subscribers: Array<{ ws: WebSocket; prefix: string }> = []
  /** The CPU time of each delta's send loop, ms (emptied by the caller). */
  loops: number[] = []

  constructor() {
    this.wss.on('connection', (ws) => {
      ws.on('message', (raw) => {
        const m = JSON.parse(String(raw)) as { type: string; id?: string }
        if (m.type === 'connection_init') ws.send('{"type":"connection_ack"}')
        if (m.type === 'subscribe') {
          const prefix = `{"id":${JSON.stringify(m.id)},"type":"next","payload":`
          this.subscribers.push({ ws, prefix })
          ws.send(prefix + snapshot(0) + '}')
        }
      })
    })
  }

  async url(): Promise<string> {
    await new Promise((r) => (this.wss.address() ? r(null) : this.wss.once('listening', r)))
    return `ws://127.0.0.1:${(this.wss.address() as { port: number }).port}`
  }

  /** One round: the deltas of a graphql-ws round, sent with the spacing they had on its bus. */
  async round(clients: Child, sent: Sent[]): Promise<RoundStats> {
    await clients.request({ type: 'begin', capture: false }, 'begun')
    this.sendAll(snapshot(sent[0]!.seq - 1))
    await new Promise((r) => setTimeout(r, 200))
    const busTimes: Array<[number, number]> = []
    const t0 = performance.now()
    for (const { seq, json, at } of sent) {
      await pace(t0 + at)
      // Latency counts from when the delta was due, as the exchange's counts from the bus: a server
      // running behind makes its subscribers wait on either side.
      busTimes.push([seq, performance.timeOrigin + t0 + at])
      const cpu = process.cpuUsage()
      this.sendAll(json)
      this.loops.push(cpuMs(cpu))
    }
    return clients.request({ type: 'end', untilSeq: sent.at(-1)!.seq, expected: sent.length, timeoutMs: 30_000, busTimes }, 'stats')
  }

  async close(): Promise<void> {
    for (const c of this.wss.clients) c.terminate()
    await new Promise((r) => this.wss.close(r))
  }

  private sendAll(json: string): void {
    for (const s of this.subscribers) s.ws.send(s.prefix + json + '}')
  }
}

/** A snapshot result the clients take as their new starting sequence. */
const snapshot = (seq: number) =>
  JSON.stringify({ data: { orderbook: { eventSeq: seq, engineTs: Date.now(), payload: { kind: 'snapshot', sequence: seq, changes: null } } } })

interface Outside {
  /** graphql-ws clients of the exchange, and of the reference server. */
  exchange: Child
  reference: Child
  watcher: Child
  ref: Reference
}

type RoundStats = Extract<ChildMessage, { type: 'stats' }>

/** One round against the exchange: the engine driven at `rate` for `seconds`, every delta awaited. */
async function exchangeRound(ex: Exchange, outside: Outside, userId: string, rate: number, seconds: number) {
  const before = (await ex.services.marketData.orderbook(MARKET)).sequence
  await Promise.all([outside.exchange.request({ type: 'begin', capture: true }, 'begun'), outside.watcher.request({ type: 'begin', capture: false }, 'begun')])
  let rss = process.memoryUsage().rss
  const sampler = setInterval(() => (rss = Math.max(rss, process.memoryUsage().rss)), 100)
  const { refused } = await drive(ex, userId, rate, seconds)
  const untilSeq = (await ex.services.marketData.orderbook(MARKET)).sequence
  const { times } = await outside.watcher.request({ type: 'busTimes', untilSeq, timeoutMs: 30_000 }, 'busTimes')
  const s = await outside.exchange.request({ type: 'end', untilSeq, expected: untilSeq - before, timeoutMs: 30_000, busTimes: times }, 'stats')
  clearInterval(sampler)
  const bus = new Map(times)
  const t0 = bus.get(s.captured[0]?.[0] ?? NaN) ?? 0
  const sent: Sent[] = s.captured.map(([seq, json]) => ({ seq, json, at: (bus.get(seq) ?? t0) - t0 }))
  return { ...s, sent, rss, refused }
}

const ms = (p: Percentiles) => `p50 ${fmt(p.p50, 1)} / p99 ${fmt(p.p99, 1)} / max ${fmt(p.max, 1)} ms`
const delivered = (d: Delivery) =>
  `${fmt(d.received / d.seconds)} msg/s; received ${fmt(d.received)} of ${fmt(d.expected)} (loss ${fmt(d.expected - d.received)}), ` +
  `each client ${fmt(d.minPerClient)}..${fmt(d.maxPerClient)} of ${fmt(d.expected / d.clients / 3)} per round, clients with gaps ${d.gaps}, behind ${d.behind}`

/**
 * Major collections in this process (the exchange's and the bare server's), counted and timed as they
 * end. While one is marking, every allocation and pointer write of the loop over the subscribers is
 * slower: a fan-out that allocates off-heap memory per subscriber (a Buffer each) set them off every
 * few seconds, and those deltas made its p99 (docs/decisions.md, Performance).
 */
const majorGcs = { count: 0, ms: 0 }
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if ((e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue
    majorGcs.count++
    majorGcs.ms += e.duration
  }
}).observe({ entryTypes: ['gc'] })

/** p50 / p99 of the CPU time of the server's loop over the subscribers, per delta. */
function loopTimes(xs: number[]): string {
  const sorted = xs.sort((a, b) => a - b)
  return `p50 ${fmt(percentile(sorted, 0.5), 2)} / p99 ${fmt(percentile(sorted, 0.99), 2)} ms`
}

/**
 * One rate: graphql-ws and reference rounds alternated (ABBAAB: load from elsewhere on the machine
 * falls on both alike), each side's latencies pooled over its rounds; the ratio of the p99s is the
 * figure the fan-out is held to.
 */
async function compare(ex: Exchange, outside: Outside, userId: string, rate: number, hubLoops: number[]): Promise<void> {
  let sent: Sent[] = []
  let rss = 0
  let refused = 0
  const p99s: Record<'graphql' | 'reference', number[]> = { graphql: [], reference: [] }
  hubLoops.length = 0
  outside.ref.loops = []
  const gcs = { graphql: { count: 0, ms: 0 }, reference: { count: 0, ms: 0 } }
  for (const side of ['graphql', 'reference', 'reference', 'graphql', 'graphql', 'reference'] as const) {
    const before = { ...majorGcs }
    if (side === 'graphql') {
      const s = await exchangeRound(ex, outside, userId, rate, ROUND_SECONDS)
      sent = s.sent
      rss = Math.max(rss, s.rss)
      refused += s.refused
      p99s.graphql.push(s.fromBus.p99)
    } else {
      p99s.reference.push((await outside.ref.round(outside.reference, sent)).fromBus.p99)
    }
    // Observer entries arrive after the collection, on a later tick: let them in before reading.
    await new Promise((r) => setImmediate(r))
    gcs[side].count += majorGcs.count - before.count
    gcs[side].ms += majorGcs.ms - before.ms
  }
  const g = await outside.exchange.request({ type: 'pooled' }, 'pooled')
  const r = await outside.reference.request({ type: 'pooled' }, 'pooled')
  const rounds = (xs: number[]) => xs.map((x) => fmt(x, 1)).join(', ')
  console.log(`fan-out to ${fmt(SUBSCRIBERS)} subscribers of one book at ${rate} deltas/s (3 rounds of ${ROUND_SECONDS} s each side, alternated)`)
  printLine('    graphql-ws, from the event on the Redis bus', `${ms(g.fromBus)} (rounds' p99 ${rounds(p99s.graphql)})`)
  printLine('    graphql-ws, from the event\'s engineTs (+ engine, commit)', ms(g.fromEngine))
  printLine('    bare ws server, same messages, from when each was due', `${ms(r.fromBus)} (rounds' p99 ${rounds(p99s.reference)})`)
  printLine('    ratio graphql-ws / bare ws', `p99 ${fmt(g.fromBus.p99 / r.fromBus.p99, 2)} (target ≤ 1.30), p50 ${fmt(g.fromBus.p50 / r.fromBus.p50, 2)}`)
  printLine('    server CPU of the loop over the subscribers per delta', `graphql-ws ${loopTimes(hubLoops)}, bare ws ${loopTimes(outside.ref.loops)}`)
  const gcLine = (g: { count: number; ms: number }) => `${g.count} (${fmt(g.ms)} ms)`
  printLine('    major GCs in the server process during the rounds', `graphql-ws ${gcLine(gcs.graphql)}, bare ws ${gcLine(gcs.reference)}`)
  printLine('    graphql-ws delivery', `${delivered(g.delivery)}; server RSS ${fmt(rss / 2 ** 20)} MiB${refused ? `; ${refused} commands refused` : ''}`)
  printLine('    bare ws delivery', delivered(r.delivery))
}

/** CPU time since `from` (process.cpuUsage()), ms: unlike wall time, not stretched by other processes. */
const cpuMs = (from: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(from)
  return (d.user + d.system) / 1000
}

/** The CPU time of the hub's delivery of each event of `channel` to its listeners (the graphql-ws side's send loop). */
function timeHub(ex: Exchange, channel: string): number[] {
  const loops: number[] = []
  const hub = ex.services.streams.hub as unknown as { deliver(channel: string, message: string): void }
  const deliver = hub.deliver.bind(hub)
  hub.deliver = (c, message) => {
    const cpu = process.cpuUsage()
    deliver(c, message)
    if (c === channel) loops.push(cpuMs(cpu))
  }
  return loops
}

export async function benchFanout(): Promise<void> {
  const hex = randomBytes(4).toString('hex')
  const base = process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres'
  const databaseUrl = withDatabase(base, `exch_bench_fanout_${hex}`)
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    DATABASE_URL: databaseUrl,
    REDIS_PREFIX: `bench:${hex}:`,
    ROLES: 'api,engine,scheduler',
    MARK_FEED: 'push',
    MARK_STALE_MS: '3600000',
    SIM_MAKER: 'false',
    LOG_LEVEL: 'warn',
    STREAM_MAX_CONNECTIONS_PER_IP: String(SUBSCRIBERS + 10),
  })
  const ex = await startExchange(config, { log: pino({ level: 'warn' }) })
  let outside: Outside | null = null
  try {
    const listed = await ex.services.marketData.listed()
    const marks = listed
      .filter((m) => m.spec.family === 'BTC' && (m.spec.type === 'spot' || m.spec.type === 'future'))
      .map((m) => ({ marketId: m.spec.id, price: String(MID), source: 'bench', sourceTs: Date.now() }))
    await ex.services.commands.execute({ type: 'UpdateMarks', marks })
    const userId = await fundedUser(ex)

    outside = { exchange: new Child(), reference: new Child(), watcher: new Child(), ref: new Reference() }
    await outside.watcher.request({ type: 'watch', redisUrl: config.redisUrl, channel: ex.keys.eventChannel(`book:${MARKET}`) }, 'watching')
    const t0 = performance.now()
    const ready = await outside.exchange.request({ type: 'start', url: `${ex.url!.replace(/^http/, 'ws')}/graphql`, clients: SUBSCRIBERS, marketId: MARKET }, 'ready')
    console.log(`${fmt(SUBSCRIBERS)} graphql-ws subscribers connected and snapshotted in ${fmt(performance.now() - t0)} ms (snapshot sequences ${ready.snapshotSeqs.join('..')})`)
    await outside.reference.request({ type: 'start', url: await outside.ref.url(), clients: SUBSCRIBERS, marketId: MARKET }, 'ready')
    // Warm-up, both sides, then emptied pools.
    const hubLoops = timeHub(ex, ex.keys.eventChannel(`book:${MARKET}`))
    const warm = await exchangeRound(ex, outside, userId, 20, 2)
    await outside.ref.round(outside.reference, warm.sent)
    await Promise.all([outside.exchange.request({ type: 'pooled' }, 'pooled'), outside.reference.request({ type: 'pooled' }, 'pooled')])
    for (const rate of RATES) await compare(ex, outside, userId, rate, hubLoops)
  } finally {
    if (outside) {
      await Promise.all([outside.exchange.stop(), outside.reference.stop(), outside.watcher.stop()])
      await outside.ref.close()
    }
    await ex.stop()
    const redis = await connectRedis(config.redisUrl, 'bench-cleanup')
    try {
      let cursor = '0'
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${config.redisPrefix}*`, 'COUNT', 1000)
        if (keys.length > 0) await redis.del(...keys)
        cursor = next
      } while (cursor !== '0')
    } finally {
      redis.disconnect()
    }
    await dropDatabase(databaseUrl)
  }
}
