// Owns the HTTP placement benchmark: order entry measured from outside, as a client sees it. The
// exchange runs as `npm start` runs it (a node process on a bundle, bench/httpServer.ts: a fresh
// database, its own Redis prefix and port, SIM_MAKER=false, marks pushed by the operator, the
// order-rate limit far above what is sent); two market-maker users sign in with SIWE and trade with
// API keys of scope `trade`; autocannon (programmatic, in this process) keeps 64 connections busy.
// Cases:
//   ceiling  an order-path route that stops before the engine (auth, rate limit, body, an order-sized
//            answer: bench/httpRoutes.ts), measured on the same server; every case prints its ratio
//   (a) resting post-only limit orders on BTC-PERP that never fill, each cancelled next
//   (b) crossing pairs on BTC-PERP: a buy and a sell at one price, every second order filling
//   (c) case (a) through the GraphQL placeOrder and cancelOrder mutations at /graphql
//   (d) case (a) with the API (and scheduler) and the engine in separate processes
//   (e) case (a) on a near-the-money BTC option (/orders)
// After each case it waits for the engine to commit what was sent, then checks PostgreSQL: every
// acknowledged order is stored, once; every acknowledged cancel is cancelled; the balances sum to zero
// (fees and insurance are balances of the system account), each balance equals its ledger rows, and the
// fees bucket holds exactly the fills' fees. Each figure comes with every process's CPU a request (the
// server's, PostgreSQL's, Redis's and this load generator's; bench/hostCpu.ts). Figures only, no pass/fail.
//   npm run bench -- http          (HTTP_BENCH_SECONDS=5 for a quick local run; default 20 per case)
// HTTP_BENCH_CASES=a,d runs only those cases (the ceiling always); HTTP_BENCH_TRACE=1 prints the
// server's stage timers after each case (bench/httpTrace.ts); HTTP_BENCH_CPU_PROF=<dir> starts the
// exchange processes with --cpu-prof into that directory (HTTP_BENCH_CPU_PROF_INTERVAL=<µs> samples more often
// than the default 1,000 µs).
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { Redis } from 'ioredis'
import pg from 'pg'
import { SiweMessage } from 'siwe'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { redisKeys } from '../src/bus/keys.js'
import { compareStreamIds } from '../src/bus/streamIds.js'
import { dropDatabase, withDatabase } from '../src/store/migrate.js'
import { createPool } from '../src/store/pg.js'
import { hostCpuWindow, processCpu, type HostCpu } from './hostCpu.js'
import { CEILING_PATH, TRACE_PATH } from './httpRoutes.js'
import { fmt, printLine } from './report.js'

const SECONDS = Math.max(1, Number(process.env.HTTP_BENCH_SECONDS ?? 20))
const WARMUP_SECONDS = Math.min(3, SECONDS)
const CONNECTIONS = 64
const PERP = 'BTC-PERP'
const MID = 100_000
const ADMIN_TOKEN = `bench-admin-${randomBytes(8).toString('hex')}`
const SYSTEM_USER = '00000000000000000000000000'
/** The server times the stages of the path (bench/httpTrace.ts) and each case prints them. */
const TRACE = Boolean(process.env.HTTP_BENCH_TRACE)

/** The server's entry beside this module: its bundle under `npm run bench`, else the TypeScript under tsx. */
const compiled = import.meta.url.endsWith('.mjs')
const SERVER = fileURLToPath(new URL(compiled ? './httpServer.mjs' : './httpServer.ts', import.meta.url))

/** One exchange process, started as `npm start` starts one (same node flags), until SIGTERM. */
class ServerProcess {
  private readonly child: ChildProcess
  readonly ready: Promise<string | null>
  private readonly exited: Promise<void>

  constructor(env: Record<string, string>) {
    const flags = ['--max-semi-space-size=128', '--no-allocation-site-pretenuring', '--enable-source-maps', ...(compiled ? [] : ['--import', 'tsx'])]
    if (process.env.HTTP_BENCH_CPU_PROF) flags.push('--cpu-prof', `--cpu-prof-dir=${process.env.HTTP_BENCH_CPU_PROF}`)
    if (process.env.HTTP_BENCH_CPU_PROF_INTERVAL) flags.push(`--cpu-prof-interval=${process.env.HTTP_BENCH_CPU_PROF_INTERVAL}`)
    this.child = spawn(process.execPath, [...flags, SERVER], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()))
    this.ready = new Promise((resolve, reject) => {
      createInterface({ input: this.child.stdout! }).on('line', (line) => {
        if (line.startsWith('{"ready"')) resolve((JSON.parse(line) as { ready: string | null }).ready)
        else if (line.trim()) console.log(line)
      })
      void this.exited.then(() => reject(new Error(`exchange process (${env['ROLES']}) exited before it was ready`)))
    })
    this.ready.catch(() => {})
  }

  get pid(): number {
    return this.child.pid!
  }

  /** Seconds of CPU (user + system) this process has used so far. */
  cpuSeconds(): number {
    return processCpu(this.pid).seconds
  }

  async stop(): Promise<void> {
    this.child.kill('SIGTERM')
    await this.exited
  }
}

interface Trader {
  userId: string
  /** Authorization and content-type headers of an order request. */
  headers: Record<string, string>
}

/** A deployment on its own fresh database and Redis prefix: one process with every role, or API and engine apart. */
class Deployment {
  readonly databaseUrl: string
  readonly prefix: string
  processes: ServerProcess[] = []
  url = ''
  pool!: pg.Pool
  redis!: Redis

  constructor(readonly split: boolean) {
    const hex = randomBytes(4).toString('hex')
    this.databaseUrl = withDatabase(process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres', `exch_bench_http_${hex}`)
    this.prefix = `bench:http:${hex}:`
  }

  async start(): Promise<void> {
    const env = {
      NODE_ENV: 'production',
      JWT_SECRET: randomBytes(32).toString('hex'),
      ADMIN_TOKEN,
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: this.databaseUrl,
      REDIS_URL: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
      REDIS_PREFIX: this.prefix,
      SIM_MAKER: 'false',
      MARK_FEED: 'push',
      MARK_STALE_MS: '3600000',
      // The market-maker tier (MM_RATE_MULTIPLE = 10) of the highest base limit: 10M a minute, never reached.
      ORDER_RATE_PER_MIN: '1000000',
      FAUCET_DAILY_CAP: '1000000000',
      PRUNE_UNFILLED_ORDERS_AFTER_MS: '0',
      LOG_LEVEL: 'warn',
    }
    if (this.split) {
      // The engine first: the API node's start-up listing waits for its replies.
      const engine = new ServerProcess({ ...env, ROLES: 'engine' })
      this.processes.push(engine)
      await engine.ready
      const api = new ServerProcess({ ...env, ROLES: 'api,scheduler' })
      this.processes.push(api)
      this.url = (await api.ready)!
    } else {
      const all = new ServerProcess(env)
      this.processes.push(all)
      this.url = (await all.ready)!
    }
    // The application's pool: every client's 'error' is handled (the bench drops this database at the end).
    this.pool = await createPool(this.databaseUrl, { max: 2 })
    this.redis = new Redis(process.env.REDIS_URL || 'redis://127.0.0.1:6379', { lazyConnect: true })
    await this.redis.connect()
  }

  async stop(): Promise<void> {
    for (const p of this.processes.reverse()) await p.stop()
    await this.pool?.end()
    if (this.redis) {
      let cursor = '0'
      do {
        const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${this.prefix}*`, 'COUNT', 1000)
        if (keys.length > 0) await this.redis.del(...keys)
        cursor = next
      } while (cursor !== '0')
      this.redis.disconnect()
    }
    await dropDatabase(this.databaseUrl)
  }

  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
    const res = await fetch(this.url + path, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    return { status: res.status, body: text ? JSON.parse(text) : null }
  }

  async ok(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
    const r = await this.call(method, path, body, headers)
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`)
    return r.body
  }

  /** The BTC spot and listed quarterlies at MID: the perpetual's index and the options' forwards follow. */
  async pushMarks(): Promise<void> {
    const markets = (await this.ok('GET', '/perps/markets')) as Array<{ marketId: string }>
    const ids = markets.map((m) => m.marketId).filter((id) => id.startsWith('BTC-USDC-'))
    await this.ok('POST', '/admin/marks', { marks: ids.map((marketId) => ({ marketId, price: String(MID) })) }, { authorization: `Bearer ${ADMIN_TOKEN}` })
  }

  /** A market maker as test/support/auth.ts signs one in: SIWE, a session, a trade key; funded in perps and options. */
  async trader(): Promise<Trader> {
    const wallet = privateKeyToAccount(generatePrivateKey())
    const { nonce } = await this.ok('GET', '/auth/nonce')
    const origin = new URL(this.url)
    const message = new SiweMessage({
      domain: origin.host, address: wallet.address, statement: 'Sign in to the exchange', uri: origin.origin, version: '1', chainId: 84532,
      nonce, issuedAt: new Date().toISOString(),
    }).prepareMessage()
    const signed = await this.ok('POST', '/auth/verify', { message, signature: await wallet.signMessage({ message }) })
    const session = { authorization: `Bearer ${signed.token}` }
    const key = await this.ok('POST', '/perps/me/api-keys', { name: 'bench', scope: 'trade' }, session)
    await this.ok('POST', '/wallet/faucet', { amount: '1000000000' }, session)
    await this.ok('POST', '/wallet/transfer', { from: 'wallet', to: 'perps', amount: '500000000' }, session)
    await this.ok('POST', '/wallet/transfer', { from: 'wallet', to: 'options', amount: '500000000' }, session)
    await this.ok('POST', `/admin/users/${signed.user.id}/rate-tier`, {}, { authorization: `Bearer ${ADMIN_TOKEN}` })
    return { userId: signed.user.id, headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' } }
  }

  /** Until the engine has committed every command appended so far. */
  async drained(): Promise<void> {
    const keys = redisKeys(this.prefix)
    const last = (await this.redis.xrevrange(keys.commands, '+', '-', 'COUNT', 1))[0]?.[0]
    if (!last) return
    for (;;) {
      const { rows } = await this.pool.query<{ lastStreamId: string }>(`SELECT "lastStreamId" FROM engine_offsets`)
      if (rows.some((r) => compareStreamIds(r.lastStreamId, last) >= 0)) return
      await new Promise((r) => setTimeout(r, 50))
    }
  }

  cpuSeconds(): number[] {
    return this.processes.map((p) => p.cpuSeconds())
  }
}

/** What one case's connections send, and what they saw. */
interface Workload {
  requests: autocannon.Request[]
  /** Order ids acknowledged by a placement, and by a cancel. */
  placed: string[]
  canceled: string[]
  /** Answers that were not a success, by status and code. */
  refusals: Map<string, number>
}

/** What a connection remembers between its requests (autocannon's context, fresh at each turn of the list). */
interface Connection {
  orderId?: string
}

const ORDER_ID = /"id":"([0-9A-HJKMNP-TV-Z]{26})"/

function workload(): Workload {
  return { requests: [], placed: [], canceled: [], refusals: new Map() }
}

function refused(w: Workload, status: number, body: string): void {
  const code = /"code":"([A-Z_]+)"/.exec(body)?.[1] ?? ''
  const k = `${status}${code ? ` ${code}` : ''}`
  w.refusals.set(k, (w.refusals.get(k) ?? 0) + 1)
}

/**
 * Counts an order answer (REST or GraphQL: the order, or an error) by what it says: a cancelled order
 * acknowledges a cancel, any other a placement, whose id the connection keeps for its cancel. (By the
 * status, not by which request it answers: when a cancel is skipped autocannon may hand the next
 * placement's answer to the cancel's handler.)
 */
function onOrder(w: Workload) {
  return (status: number, body: string, context: object) => {
    const id = status === 200 && !body.includes('"errors":[') ? ORDER_ID.exec(body)?.[1] : undefined
    if (!id) return refused(w, status, body)
    if (CANCELED.test(body)) return void w.canceled.push(id)
    w.placed.push(id)
    ;(context as Connection).orderId = id
  }
}

const CANCELED = /"status":"(canceled|CANCELED)"/

/** The order the connection placed last, forgotten once taken (a refused placement leaves none to cancel). */
function takeOrderId(context: object): string | undefined {
  const c = context as Connection
  const id = c.orderId
  delete c.orderId
  return id
}

let priceStep = 0
/** A resting bid's price: below the mark, spread over 500 ticks so the book has levels to walk. */
const restingPrice = () => (MID - 1_000 - (priceStep++ % 500) / 10).toFixed(1)

/** REST place-then-cancel on `family` ('/perps' linear, '' options), for each trader in turn. */
function restingCase(traders: Trader[], family: '/perps' | '', market: string, price: () => string, quantity: string): Workload {
  const w = workload()
  for (const t of traders) {
    w.requests.push({
      method: 'POST',
      path: `${family}/orders`,
      headers: t.headers,
      setupRequest: (req) => ({ ...req, body: JSON.stringify({ marketId: market, side: 'buy', price: price(), quantity, postOnly: true }) }),
      onResponse: onOrder(w),
    })
    w.requests.push({
      method: 'POST',
      headers: { authorization: t.headers['authorization']! },
      // No order placed (refused): nothing to cancel, so the connection goes on with the next placement.
      setupRequest: (req, context) => {
        const id = takeOrderId(context)
        return id ? { ...req, path: `${family}/orders/${id}/cancel`, body: '' } : (undefined as never)
      },
      onResponse: onOrder(w),
    })
  }
  return w
}

const ORDER_SELECTION = `id userId marketId clientOrderId side type timeInForce price quantity filledQuantity status postOnly reduceOnly
  marginMode stopPrice takeProfitPrice stopLossPrice triggeredAt parentOrderId quoteId cancelReason createdAt updatedAt`
const PLACE = `mutation Place($input: PlaceOrderInput!) { placeOrder(input: $input) { ${ORDER_SELECTION} } }`
const CANCEL = `mutation Cancel($id: String!) { cancelOrder(id: $id, kind: LINEAR) { ${ORDER_SELECTION} } }`

/** Case (a) through /graphql. */
function graphqlCase(traders: Trader[]): Workload {
  const w = workload()
  for (const t of traders) {
    w.requests.push({
      method: 'POST',
      path: '/graphql',
      headers: t.headers,
      setupRequest: (req) => ({
        ...req,
        body: JSON.stringify({ query: PLACE, variables: { input: { marketId: PERP, kind: 'LINEAR', side: 'BUY', price: restingPrice(), quantity: '0.001', postOnly: true } } }),
      }),
      onResponse: onOrder(w),
    })
    w.requests.push({
      method: 'POST',
      path: '/graphql',
      headers: t.headers,
      setupRequest: (req, context) => {
        const id = takeOrderId(context)
        return id ? { ...req, body: JSON.stringify({ query: CANCEL, variables: { id } }) } : (undefined as never)
      },
      onResponse: onOrder(w),
    })
  }
  return w
}

/** Case (b): the first trader buys and the second sells, at one price, alternately on every connection. */
function crossingCase(traders: Trader[]): Workload {
  const w = workload()
  const body = (side: string) => JSON.stringify({ marketId: PERP, side, price: String(MID), quantity: '0.001' })
  w.requests.push({ method: 'POST', path: '/perps/orders', headers: traders[0]!.headers, body: body('buy'), onResponse: onOrder(w) })
  w.requests.push({ method: 'POST', path: '/perps/orders', headers: traders[1]!.headers, body: body('sell'), onResponse: onOrder(w) })
  return w
}

function ceilingCase(traders: Trader[]): Workload {
  const w = workload()
  for (const t of traders) {
    w.requests.push({
      method: 'POST',
      path: CEILING_PATH,
      headers: t.headers,
      setupRequest: (req) => ({ ...req, body: JSON.stringify({ marketId: PERP, side: 'buy', price: restingPrice(), quantity: '0.001', postOnly: true }) }),
      onResponse: (status, body) => (status === 200 ? undefined : refused(w, status, body)),
    })
  }
  return w
}

interface Measured {
  seconds: number
  requestsPerSecond: number
  p50: number
  p90: number
  p99: number
  errors: number
  /** CPU used by each exchange process over the run, in cores. */
  cores: number[]
  /** The rest of the machine over the run (PostgreSQL, Redis, this process, idle); null off Linux. */
  host: HostCpu | null
}

async function drive(d: Deployment, w: Workload, seconds: number): Promise<Measured> {
  const cpu0 = d.cpuSeconds()
  const host = hostCpuWindow()
  const t0 = performance.now()
  const r = await autocannon({ url: d.url, connections: CONNECTIONS, duration: seconds, requests: w.requests })
  const elapsed = (performance.now() - t0) / 1000
  const cores = d.cpuSeconds().map((c, i) => (c - cpu0[i]!) / elapsed)
  return {
    seconds: r.duration,
    requestsPerSecond: r.requests.total / r.duration,
    p50: r.latency.p50,
    p90: r.latency.p90,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    cores,
    host: host.end(),
  }
}

/** Warms the path up (JIT, pools, caches), then measures it for SECONDS. */
async function measure(d: Deployment, make: () => Workload): Promise<{ m: Measured; w: Workload; since: Date; trace: Trace | null }> {
  await drive(d, make(), WARMUP_SECONDS)
  await d.drained()
  const since = new Date()
  if (TRACE) await d.ok('GET', TRACE_PATH)
  const w = make()
  const m = await drive(d, w, SECONDS)
  const trace = TRACE ? ((await d.ok('GET', TRACE_PATH)) as Trace) : null
  return { m, w, since, trace }
}

interface Trace {
  eventLoopDelayMs: { p50: number; p99: number; max: number; mean: number }
  series: Record<string, { n: number; mean: number; p50: number; p99: number; total: number }>
}

/** The server's stage timers over the measured window (HTTP_BENCH_TRACE=1, bench/httpTrace.ts). */
function printTrace(t: Trace | null): void {
  if (!t) return
  const e = t.eventLoopDelayMs
  printLine('    trace: event-loop delay', `mean ${fmt(e.mean, 1)} / p50 ${fmt(e.p50, 1)} / p99 ${fmt(e.p99, 1)} / max ${fmt(e.max, 1)} ms`)
  for (const [name, s] of Object.entries(t.series).sort(([a], [b]) => a.localeCompare(b))) {
    printLine(`    trace: ${name}`, `n ${fmt(s.n)}, mean ${fmt(s.mean, 2)} / p50 ${fmt(s.p50, 2)} / p99 ${fmt(s.p99, 2)}`)
  }
}

function printCase(name: string, m: Measured, w: Workload | null, ceiling: Measured | null): void {
  const ratio = ceiling ? ` = ${(m.requestsPerSecond / ceiling.requestsPerSecond).toFixed(3)} of the ceiling` : ''
  const orders = w && w.placed.length > 0 ? `${fmt(w.placed.length / m.seconds)} orders/s, ` : ''
  const refusals = w && w.refusals.size > 0 ? `, refused ${[...w.refusals].map(([k, n]) => `${k} ×${n}`).join(', ')}` : ''
  printLine(
    name,
    `${orders}${fmt(m.requestsPerSecond)} req/s${ratio}; p50 ${fmt(m.p50, 1)} / p90 ${fmt(m.p90, 1)} / p99 ${fmt(m.p99, 1)} ms; ` +
      `errors ${m.errors}${refusals}; server CPU ${m.cores.map((c) => `${fmt(c * 100)}%`).join(' + ')} of a core, ` +
      `${m.cores.map((c) => fmt((c / m.requestsPerSecond) * 1e6)).join(' + ')} µs a request`,
  )
  printBudget(m)
}

/** Every process's CPU a request, the load generator's included: what two cores' 200 µs at 10,000 req/s must cover. */
function printBudget(m: Measured): void {
  if (!m.host) return
  const perRequest = (cores: number) => (cores / m.requestsPerSecond) * 1e6
  const parts: Array<[string, number]> = [
    ['server', m.cores.reduce((a, b) => a + b, 0)],
    ['PostgreSQL', m.host.postgres],
    ['Redis', m.host.redis],
    ['load generator', m.host.loadGenerator],
  ]
  const total = parts.reduce((s, [, c]) => s + perRequest(c), 0)
  printLine(
    '    CPU a request, every process',
    `${parts.map(([name, c]) => `${name} ${fmt(perRequest(c))}`).join(' + ')} = ${fmt(total)} µs; host idle ${fmt(m.host.idle * 100)}%`,
  )
}

/** What PostgreSQL holds after the case: acknowledged orders stored once, cancels cancelled, money conserved. */
async function check(d: Deployment, w: Workload, traders: Trader[], since: Date): Promise<void> {
  await d.drained()
  const q = async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => (await d.pool.query<T>(sql, params)).rows
  const acked = new Set(w.placed)
  const [found] = await q<{ n: string }>(`SELECT count(*) AS n FROM orders WHERE id = ANY($1)`, [[...acked]])
  const [stored] = await q<{ n: string }>(`SELECT count(*) AS n FROM orders WHERE "userId" = ANY($1) AND "createdAt" >= $2`, [traders.map((t) => t.userId), since])
  const [notCanceled] = await q<{ n: string }>(`SELECT count(*) AS n FROM orders WHERE id = ANY($1) AND status <> 'canceled'`, [w.canceled])
  const [money] = await q<{ balances: string; ledger: string; mismatched: string; fees: string; fillFees: string; insurance: string }>(`
    SELECT (SELECT coalesce(sum(amount), 0) FROM balances) AS balances,
           (SELECT coalesce(sum(amount), 0) FROM ledger_entries) AS ledger,
           (SELECT count(*) FROM balances b WHERE b.amount <> (SELECT coalesce(sum(l.amount), 0) FROM ledger_entries l
              WHERE l."userId" = b."userId" AND l.bucket = b.bucket)) AS mismatched,
           (SELECT coalesce(sum(amount), 0) FROM balances WHERE "userId" = $1 AND bucket = 'fees') AS fees,
           (SELECT coalesce(sum(fee), 0) FROM fills) AS "fillFees",
           (SELECT coalesce(sum(amount), 0) FROM balances WHERE "userId" = $1 AND bucket = 'insurance') AS insurance`, [SYSTEM_USER])
  const [fills] = await q<{ n: string; buys: string; sells: string }>(`
    SELECT count(*) AS n, coalesce(sum(quantity) FILTER (WHERE side = 'buy'), 0) AS buys, coalesce(sum(quantity) FILTER (WHERE side = 'sell'), 0) AS sells
    FROM fills WHERE "createdAt" >= $1`, [since])
  printLine(
    '    checks',
    `${fmt(acked.size)} acknowledged orders (${fmt(w.placed.length - acked.size)} ids twice), ${fmt(Number(found!.n))} of them stored; ` +
      `${fmt(Number(stored!.n) - Number(found!.n))} stored unacknowledged (in flight at the end); ` +
      `${fmt(w.canceled.length)} acknowledged cancels, ${notCanceled!.n} not cancelled; ` +
      `${fmt(Number(fills!.n))} fills (bought ${Number(fills!.buys)}, sold ${Number(fills!.sells)})`,
  )
  printLine(
    '    money',
    `Σ balances ${money!.balances}, Σ ledger ${money!.ledger}, balances ≠ ledger ${money!.mismatched}, ` +
      `fees bucket ${money!.fees} vs Σ fill fees ${money!.fillFees}, insurance ${money!.insurance}`,
  )
}

async function runCase(d: Deployment, name: string, traders: Trader[], make: () => Workload, ceiling: Measured): Promise<Measured> {
  const { m, w, since, trace } = await measure(d, make)
  printCase(name, m, w, ceiling)
  await check(d, w, traders, since)
  printTrace(trace)
  return m
}

async function runCeiling(d: Deployment, name: string, traders: Trader[]): Promise<Measured> {
  const { m, trace } = await measure(d, () => ceilingCase(traders))
  printCase(name, m, null, null)
  printTrace(trace)
  return m
}

/** HTTP_BENCH_CASES=a,c runs only those (the ceiling always); default all. */
const CASES = new Set((process.env.HTTP_BENCH_CASES ?? 'a,b,c,d,e').split(',').map((c) => c.trim()))

/** A near-the-money option of the quarterly whose forward is MID, and a bid price inside its band. */
async function nearTheMoneyOption(d: Deployment, t: Trader): Promise<{ id: string; price: string }> {
  const board = await d.ok('GET', '/markets/board')
  const expiry = Object.keys(board.expiryForwards).find((e) => Number(board.expiryForwards[e]) === MID)
  const rows = (board.calls as Array<{ marketId: string; strikePrice: string; expiry: string }>).filter((r) => expiry === undefined || r.expiry === expiry)
  rows.sort((a, b) => Math.abs(Number(a.strikePrice) - MID) - Math.abs(Number(b.strikePrice) - MID))
  const id = rows[0]!.marketId
  // A price no band admits, so the refusal names the band; its low end is a bid that never fills.
  const probe = await d.call('POST', '/orders', { marketId: id, side: 'buy', price: '1000', quantity: '0.01', postOnly: true }, t.headers)
  const low = probe.body?.details?.priceBandLow
  if (typeof low !== 'string') throw new Error(`no band for ${id}: ${JSON.stringify(probe.body)}`)
  return { id, price: low }
}

async function oneProcess(): Promise<Measured | null> {
  const d = new Deployment(false)
  try {
    await d.start()
    await d.pushMarks()
    const traders = [await d.trader(), await d.trader()]
    const option = await nearTheMoneyOption(d, traders[0]!)
    console.log(`HTTP placement: one process with every role, ${CONNECTIONS} connections, ${SECONDS} s per case after ${WARMUP_SECONDS} s of warm-up, 2 market makers`)
    const ceiling = await runCeiling(d, `ceiling: ${CEILING_PATH} (auth, rate limit, body, answer)`, traders)
    let a: Measured | null = null
    if (CASES.has('a')) a = await runCase(d, '(a) REST resting limit orders + cancels, BTC-PERP', traders, () => restingCase(traders, '/perps', PERP, restingPrice, '0.001'), ceiling)
    if (CASES.has('b')) await runCase(d, '(b) REST crossing pairs, every second order fills', traders, () => crossingCase(traders), ceiling)
    if (CASES.has('c')) await runCase(d, '(c) GraphQL placeOrder + cancelOrder, as (a)', traders, () => graphqlCase(traders), ceiling)
    if (CASES.has('e')) await runCase(d, `(e) REST option orders + cancels, ${option.id}`, traders, () => restingCase(traders, '', option.id, () => option.price, '0.01'), ceiling)
    return a
  } finally {
    await d.stop()
  }
}

async function apart(a: Measured | null): Promise<void> {
  const d = new Deployment(true)
  try {
    await d.start()
    await d.pushMarks()
    const traders = [await d.trader(), await d.trader()]
    console.log(`HTTP placement: API (+ scheduler) and engine in separate processes`)
    const ceiling = await runCeiling(d, `ceiling: ${CEILING_PATH}, API process`, traders)
    const m = await runCase(d, '(d) as (a), API and engine apart', traders, () => restingCase(traders, '/perps', PERP, restingPrice, '0.001'), ceiling)
    if (a) printLine('    (d) / (a), requests per second', (m.requestsPerSecond / a.requestsPerSecond).toFixed(3))
  } finally {
    await d.stop()
  }
}

export async function benchHttp(): Promise<void> {
  const a = CASES.has('a') || CASES.has('b') || CASES.has('c') || CASES.has('e') ? await oneProcess() : null
  if (CASES.has('d')) await apart(a)
}
