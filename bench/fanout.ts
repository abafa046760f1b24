// Owns the stream fan-out benchmark: a real exchange in this process (api, engine, scheduler; throwaway
// database and Redis prefix, removed at the end) and 1,000 graphql-ws subscribers of one order book in a
// separate process (bench/fanoutClients.ts). No documented socket carries a linear book (/ws/feeds is
// options only), so the subscribers use the GraphQL `orderbook` subscription. The engine is driven at 50
// and then 100 book changes per second (a resting post-only order placed or cancelled per command, so
// each command is one OrderbookDelta), and the benchmark reports what reached the clients: messages per
// second, loss (every client must see every sequence), the server's RSS, and delivery latency measured
// two ways: from the event's engineTs (the command's time: engine, commit, bus and fan-out) and from the
// event's appearance on the Redis bus (seen by a watcher process: the API node's fan-out alone). A bare
// `ws` server sending the same messages to the same clients gives this machine's floor for comparison.
// (Running the engine in a process of its own was tried: on two cores the extra process costs more than
// it isolates.)
// Run alone: npm run bench -- fanout
import { fork } from 'node:child_process'
import { randomBytes } from 'node:crypto'
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
import type { ChildMessage, ParentMessage } from './fanoutClients.js'
import { fmt, printLine } from './report.js'

const SUBSCRIBERS = 1_000
const MARKET = 'BTC-PERP'
const PHASE_SECONDS = 10
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

/**
 * The floor on this machine: a bare `ws` server speaking just enough graphql-transport-ws (ack, a
 * snapshot, then one `next` per delta with the same payload shape) to the same client process, sending
 * each delta to every socket at once, with no GraphQL, Redis, engine or backpressure.
 */
async function reference(outside: Outside, rate: number, seconds: number): Promise<void> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  await new Promise((r) => wss.once('listening', r))
  const subscribers: Array<{ ws: WebSocket; prefix: string }> = []
  const next = (seq: number, payload: unknown) => JSON.stringify({ data: { orderbook: { eventSeq: seq, engineTs: performance.timeOrigin + performance.now(), payload } } })
  wss.on('connection', (ws) => {
    ws.on('message', (raw) => {
      const m = JSON.parse(String(raw)) as { type: string; id?: string }
      if (m.type === 'connection_init') ws.send('{"type":"connection_ack"}')
      if (m.type === 'subscribe') {
        const prefix = `{"id":${JSON.stringify(m.id)},"type":"next","payload":`
        subscribers.push({ ws, prefix })
        ws.send(prefix + next(0, { kind: 'snapshot', sequence: 0, changes: null }) + '}')
      }
    })
  })
  try {
    const { port } = wss.address() as { port: number }
    await outside.clients.request({ type: 'start', url: `ws://127.0.0.1:${port}`, clients: SUBSCRIBERS, marketId: MARKET }, 'ready')
    await outside.clients.request({ type: 'begin' }, 'begun')
    const total = rate * seconds
    const busTimes: Array<[number, number]> = []
    const t0 = performance.now()
    for (let seq = 1; seq <= total; seq++) {
      await pace(t0 + ((seq - 1) * 1000) / rate)
      const json = next(seq, { kind: 'delta', sequence: seq, changes: [{ side: 'BID', price: String(MID - 1_000 - (seq % 500)), size: '0.001' }] })
      busTimes.push([seq, performance.timeOrigin + performance.now()])
      for (const s of subscribers) s.ws.send(s.prefix + json + '}')
    }
    const s = await outside.clients.request({ type: 'end', untilSeq: total, timeoutMs: 30_000, busTimes }, 'stats')
    printLine(
      `reference: bare ws server, same clients and messages, ${rate} deltas/s`,
      `${fmt(s.received / ((s.lastMs - s.firstMs) / 1000))} msg/s delivered, loss ${fmt(total * SUBSCRIBERS - s.received)}, ` +
        `latency p50 ${fmt(s.fromBus.p50, 1)} / p99 ${fmt(s.fromBus.p99, 1)} / max ${fmt(s.fromBus.max, 1)} ms`,
    )
  } finally {
    for (const c of wss.clients) c.terminate()
    await new Promise((r) => wss.close(r))
  }
}

interface Outside {
  clients: Child
  watcher: Child
}

async function phase(ex: Exchange, outside: Outside, userId: string, rate: number, seconds: number, report: boolean): Promise<void> {
  const before = (await ex.services.marketData.orderbook(MARKET)).sequence
  await Promise.all([outside.clients.request({ type: 'begin' }, 'begun'), outside.watcher.request({ type: 'begin' }, 'begun')])
  let rss = process.memoryUsage().rss
  const sampler = setInterval(() => (rss = Math.max(rss, process.memoryUsage().rss)), 100)
  const t0 = performance.now()
  const { refused } = await drive(ex, userId, rate, seconds)
  const driveSeconds = (performance.now() - t0) / 1000
  const untilSeq = (await ex.services.marketData.orderbook(MARKET)).sequence
  const { times } = await outside.watcher.request({ type: 'busTimes', untilSeq, timeoutMs: 30_000 }, 'busTimes')
  const s = await outside.clients.request({ type: 'end', untilSeq, timeoutMs: 30_000, busTimes: times }, 'stats')
  clearInterval(sampler)
  if (!report) return
  const deltas = untilSeq - before
  const expected = deltas * SUBSCRIBERS
  const ms = (p: { p50: number; p99: number; max: number }) => `p50 ${fmt(p.p50, 1)} / p99 ${fmt(p.p99, 1)} / max ${fmt(p.max, 1)} ms`
  printLine(
    `fan-out: ${fmt(SUBSCRIBERS)} graphql-ws subscribers of one book, ${rate} deltas/s`,
    `${fmt(s.received / ((s.lastMs - s.firstMs) / 1000))} msg/s delivered, loss ${fmt(expected - s.received)} (gaps ${s.gaps}, clients behind ${s.behind}), ` +
      `server RSS ${fmt(rss / 2 ** 20)} MiB (${fmt(deltas)} deltas in ${fmt(driveSeconds, 1)} s${refused ? `, ${refused} commands refused` : ''})`,
  )
  printLine('    latency from the event\'s engineTs (engine + commit + bus + fan-out)', ms(s.fromEngine))
  printLine('    latency from the event on the Redis bus (API node fan-out)', ms(s.fromBus))
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

    outside = { clients: new Child(), watcher: new Child() }
    await outside.watcher.request({ type: 'watch', redisUrl: config.redisUrl, channel: ex.keys.eventChannel(`book:${MARKET}`) }, 'watching')
    const t0 = performance.now()
    const ready = await outside.clients.request({ type: 'start', url: `${ex.url!.replace(/^http/, 'ws')}/graphql`, clients: SUBSCRIBERS, marketId: MARKET }, 'ready')
    console.log(`${fmt(SUBSCRIBERS)} subscribers connected and snapshotted in ${fmt(performance.now() - t0)} ms (snapshot sequences ${ready.snapshotSeqs.join('..')})`)
    await phase(ex, outside, userId, 20, 2, false) // warm-up
    for (const rate of RATES) await phase(ex, outside, userId, rate, PHASE_SECONDS, true)
    for (const rate of RATES) await reference(outside, rate, PHASE_SECONDS)
  } finally {
    if (outside) await Promise.all([outside.clients.stop(), outside.watcher.stop()])
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
