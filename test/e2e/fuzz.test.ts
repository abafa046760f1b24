// A seeded, bounded fuzz run against one real exchange (api, engine, scheduler in this process): over
// 3,000 malformed requests across REST bodies, paths and queries, GraphQL documents and variables over
// HTTP, WebSocket frames on the three /ws sockets and graphql-ws at /graphql, and SSE queries. None may
// earn a 500 (an HTTP status, a GraphQL error's status, INTERNAL_ERROR in a stream message, a close with
// 1011 or graphql-ws' 4500) or log an error; afterwards the process still serves, and its memory is
// back near where it started (RSS within 20% after a forced GC; `gc` is exposed with V8's flag at run
// time, as vitest 4 sets execArgv per project, not per file). Each request is drawn from its own
// generator (seed, index): a failure prints both, and FUZZ_SEED=<seed> replays the run.
import { request, Agent, type IncomingHttpHeaders } from 'node:http'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { parse } from 'graphql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { restRoutes } from '../../src/rest/routes.js'
import { createKey, fundPerps, signIn, type SignedIn } from '../support/auth.js'
import { ADMIN, startTestExchange, type TestExchange } from '../support/exchange.js'
import { encode, Fuzz } from '../support/fuzz.js'
import { http as httpClient, type Http } from '../support/http.js'
import { pushBtcCurve } from '../support/marks.js'
import { wsUrl } from '../support/streams.js'

const SEED = Number(process.env['FUZZ_SEED'] ?? 20_261_125) >>> 0
/** Requests per kind (a WebSocket session counts each frame it sends). */
const PLAN = { restBody: 800, restPath: 400, restQuery: 400, graphql: 600, sse: 200, wsFeeds: 45, graphqlWs: 45 } as const
const CONCURRENCY = 8

setFlagsFromString('--expose_gc')
const gc = runInNewContext('gc') as () => void

let ex: TestExchange
let api: Http
let base: URL
let alice: SignedIn
let tradeKey: Record<string, string>
let orderId: string
let option: string
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2 })

beforeAll(async () => {
  ex = await startTestExchange({
    ROLES: 'api,engine,scheduler',
    MARK_STALE_MS: '3600000',
    ORDER_RATE_PER_MIN: '1000000',
    LOG_LEVEL: 'warn',
  })
  api = httpClient(ex.url!)
  base = new URL(ex.url!)
  expect((await pushBtcCurve(api, '95000')).status).toBe(200)
  alice = await signIn(api, ex.url!)
  await fundPerps(api, alice)
  tradeKey = (await createKey(api, alice.cookie, { scope: 'trade' })).auth
  const placed = await api.post('/perps/orders', { marketId: 'BTC-PERP', side: 'buy', type: 'limit', price: '90000', quantity: '0.01' }, alice.cookie)
  expect(placed.status).toBe(200)
  orderId = placed.body.id
  option = (await api.get('/markets/board')).body.calls[0].marketId
}, 120_000)
afterAll(async () => {
  agent.destroy()
  await ex?.close()
})

// ---------------------------------------------------------------------------------------------------
// Sending, and what counts as a failure

interface Failure {
  index: number
  kind: string
  request: string
  outcome: string
}

interface Sent {
  status: number
  headers: IncomingHttpHeaders
  text: string
}

/** One HTTP request as given (the path is not normalized); a streaming answer is read for a moment
 * and then cut, as a client that leaves would. */
function send(method: string, path: string, headers: Record<string, string>, body?: string | Buffer): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = request({ host: base.hostname, port: base.port, method, path, headers, agent }, (res) => {
      const chunks: Buffer[] = []
      const streaming = /event-stream|multipart/.test(String(res.headers['content-type']))
      let cut: NodeJS.Timeout | undefined
      const done = () => {
        clearTimeout(cut)
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') })
      }
      res.on('data', (c: Buffer) => {
        chunks.push(c)
        if (streaming) {
          // The first message is enough; a stream never ends by itself.
          cut ??= setTimeout(() => req.destroy(), 20)
        }
      })
      res.on('end', done)
      res.on('close', done)
      res.on('error', done)
      if (streaming) setTimeout(() => req.destroy(), 1_000).unref()
    })
    // The server may close a connection it refuses (a body over the limit) while the request is still
    // being written: no answer, and nothing wrong.
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' || err.code === 'EPIPE' ? resolve({ status: 0, headers: {}, text: '' }) : reject(err)))
    req.end(body)
  })
}

/** Answers by status, for the log: what the run reached. */
const statuses = new Map<number, number>()

/** What is wrong with an HTTP answer, or null: a 5xx, or a GraphQL error or stream message carrying one. */
function httpFault(r: Sent): string | null {
  statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1)
  if (r.status >= 500) return `HTTP ${r.status} ${r.text.slice(0, 300)}`
  if (/"code":"INTERNAL_ERROR"|"status":5\d\d/.test(r.text)) return `internal error in the body: ${r.text.slice(0, 300)}`
  return null
}

/** What is wrong with a message a WebSocket server sent, or null. */
function messageFault(text: string): string | null {
  return /INTERNAL_ERROR|UPSTREAM_DEGRADED|"status":5\d\d/.test(text) ? `message ${text.slice(0, 300)}` : null
}

/** WebSocket close codes, for the log. */
const closes = new Map<number, number>()

function closeFault(code: number): string | null {
  closes.set(code, (closes.get(code) ?? 0) + 1)
  return code === 1011 || code === 4500 ? `closed ${code}` : null
}

// ---------------------------------------------------------------------------------------------------
// What is fuzzed

const ADMIN_ROUTES = [
  { method: 'POST', path: '/admin/marks', body: { marks: [{ marketId: 'BTC-USDC-SPOT', price: '95000', source: 'push', sourceTimestamp: 1 }] } },
  { method: 'POST', path: '/admin/marks', body: { marketId: 'BTC-USDC-SPOT', price: '95000' } },
  { method: 'POST', path: '/admin/feed', body: { enabled: true } },
  { method: 'POST', path: '/admin/markets/:marketId/halt', body: undefined },
  { method: 'POST', path: '/admin/markets/:marketId/resume', body: undefined },
  { method: 'POST', path: '/admin/users/:userId/rate-tier', body: { tier: 2 } },
]

const ORDER = {
  marketId: 'BTC-PERP', side: 'buy', type: 'limit', price: '94000', quantity: '0.01', timeInForce: 'gtc', postOnly: false,
  reduceOnly: false, marginMode: 'cross', clientOrderId: 'fz-1', stopPrice: '93000', takeProfitPrice: '99000', stopLossPrice: '90000',
}
const QUOTE_SIDE = { price: '94000', quantity: '0.01', clientOrderId: 'q-1' }
/** An option id of the catalog's shape (listed or not: either way nothing may fail). */
const OPTION = 'BTC-2026-12-18-100000-C'
const OPTION_ORDER = {
  marketId: OPTION, side: 'sell', type: 'limit', price: '0.05', quantity: '0.1', timeInForce: 'gtc', postOnly: false, reduceOnly: false, clientOrderId: 'fz-2',
}
const OPTION_SIDE = { price: '0.04', quantity: '0.1', clientOrderId: 'q-2' }

/** A valid-looking body per POST route: the fuzz starts from these and breaks them. */
const BODIES: Record<string, unknown> = {
  '/perps/orders': ORDER,
  '/perps/orders/preview': ORDER,
  '/perps/orders/cancel-all': { marketId: 'BTC-PERP', quoteId: 'q', clientOrderId: 'fz-1' },
  '/perps/orders/:id/cancel': undefined,
  '/perps/orders/:id/modify': { price: '94500', quantity: '0.02' },
  '/perps/positions/close': { marketId: 'BTC-PERP', quantity: '0.01' },
  '/perps/quotes': { marketId: 'BTC-PERP', quoteId: 'q', bid: QUOTE_SIDE, ask: { ...QUOTE_SIDE, price: '96000' } },
  '/perps/quotes/bulk': { marketId: 'BTC-PERP', quoteId: 'q', cancelAll: true, quotes: [{ side: 'buy', ...QUOTE_SIDE }, { side: 'sell', ...QUOTE_SIDE, price: '96000' }] },
  '/orders': OPTION_ORDER,
  '/orders/preview': OPTION_ORDER,
  '/orders/cancel-all': { marketId: OPTION, quoteId: 'q', clientOrderId: 'fz-2' },
  '/orders/:id/cancel': undefined,
  '/orders/:id/modify': { price: '0.045', quantity: '0.2' },
  '/quotes': { marketId: OPTION, quoteId: 'q', bid: OPTION_SIDE, ask: { ...OPTION_SIDE, price: '0.06' } },
  '/quotes/bulk': { marketId: OPTION, quoteId: 'q', cancelAll: true, quotes: [{ side: 'buy', ...OPTION_SIDE }, { side: 'sell', ...OPTION_SIDE, price: '0.06' }] },
  '/orders/cancel-all-after': { timeoutMs: 60_000 },
  '/wallet/transfer': { from: 'wallet', to: 'perps', amount: '1' },
  '/wallet/faucet': { amount: '1' },
  '/auth/verify': { message: 'localhost wants you to sign in', signature: `0x${'ab'.repeat(65)}` },
  '/perps/me/api-keys': { name: 'fuzz', scope: 'read', allowedIps: ['10.0.0.0/8'], expiresInDays: 30 },
}

const QUERY_KEYS = ['marketId', 'symbol', 'resolution', 'from', 'to', 'limit', 'cursor', 'underlying', 'marginMode', 'status', 'query', 'variables']

const SSE_PATHS = [
  { path: '/perps/book-stream', keys: ['marketId'], valid: '?marketId=BTC-PERP' },
  { path: '/markets/board/stream', keys: ['underlying'], valid: '?underlying=BTC' },
  { path: '/stream/options/ticks', keys: ['underlying'], valid: '?underlying=XAUT' },
  { path: '/portfolio/balances/stream', keys: [], valid: '' },
]

const ENVELOPE = 'eventId eventType eventSeq engineTs sourceTs correlationId causationId'
const SUBSCRIPTIONS = [
  `subscription($m: String!) { orderbook(marketId: $m) { ${ENVELOPE} payload { kind sequence bids { price size } } } }`,
  `subscription($s: String!, $f: SafeInt) { prices(symbol: $s, fromSeq: $f) { ${ENVELOPE} payload { price } } }`,
  `subscription($m: String!, $f: SafeInt) { trades(marketId: $m, fromSeq: $f) { ${ENVELOPE} payload { price quantity } } }`,
  `subscription($s: String!) { quotes(symbol: $s) { ${ENVELOPE} payload { bid ask } } }`,
  `subscription($u: String) { optionsBoard(underlying: $u) { ${ENVELOPE} } }`,
  `subscription($u: String) { optionTicks(underlying: $u) { ${ENVELOPE} payload { seq } } }`,
  `subscription($f: SafeInt) { myOrders(fromSeq: $f) { ${ENVELOPE} payload { id status } } }`,
  'subscription { myFills { eventType } } ',
  'subscription { myBalances { eventType payload { walletBalance } } }',
]
/** Every REST operation (but signing out, which would end the session the run uses), the subscriptions,
 * and introspection. */
const DOCUMENTS = [
  ...restRoutes.map((r) => r.operation).filter((d) => !d.includes('signOut')),
  ...SUBSCRIPTIONS,
  '{ __schema { types { name fields { name args { name } } } } }',
  'query Q($id: String!) { me { order(id: $id) { id status } } market(id: "BTC-PERP") { id } }',
]
const VARIABLES = DOCUMENTS.map((d) => parse(d).definitions.flatMap((def) => ('variableDefinitions' in def ? (def.variableDefinitions ?? []) : [])).map((v) => v.variable.name.value))

/** A market id, sometimes real, sometimes an order id, mostly nasty. */
const marketIdFor = (f: Fuzz) => (f.chance(0.3) ? f.pick(['BTC-PERP', 'BTC-USDC-SPOT', option, 'XAUT-USDC-PERP']) : f.string())

function credentials(f: Fuzz, sessionOk = true): Record<string, string> {
  const r = f.int(10)
  if (r < 2) return {}
  if (r < 5 && sessionOk) return alice.cookie
  if (r < 9) return tradeKey
  return { authorization: f.pick(['Bearer x', 'Bearer svc_sk_garbage', `Bearer ${alice.token}x`, 'Basic Zm9vOmJhcg==', 'Bearer ']) }
}

/** The body as sent: the mutated template as JSON most of the time; else no JSON at all, JSON nested
 * thousands deep, or over the size limit. */
function bodyFor(f: Fuzz, template: unknown): { body: string | Buffer | undefined; type: string | undefined } {
  const r = f.int(20)
  if (r === 0) return { body: undefined, type: f.pick([undefined, 'application/json']) }
  if (r === 1) return { body: f.deepJson(), type: 'application/json' }
  if (r === 2) return { body: f.pick(['{', '{"a":', '[1,', 'nul', '"\\ud800"', '{"a":1}}', '\u0000', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}']), type: 'application/json' }
  if (r === 3) return { body: f.bytes(200), type: f.pick(['application/json', 'application/octet-stream', 'text/plain', 'multipart/form-data; boundary=x']) }
  if (r === 4) return { body: JSON.stringify({ x: 'y'.repeat(70 * 1024) }), type: 'application/json' }
  const value = template === undefined ? f.json() : f.mutate(template)
  return { body: JSON.stringify(value) ?? 'null', type: f.chance(0.95) ? 'application/json' : f.pick(['text/plain', 'application/json; charset=latin1', 'application/x-www-form-urlencoded', 'application/graphql']) }
}

/** A path of `route` with its parameters real, nasty or missing, and now and then bent beyond it. */
function pathFor(f: Fuzz, route: string): string {
  let path = route.replace(/:(\w+)/g, (_, name: string) => {
    if (f.chance(0.25)) return encode(name === 'id' ? orderId : name === 'userId' ? alice.user.id : marketIdFor(f))
    return f.segment()
  })
  const r = f.int(12)
  if (r === 0) path += `/${f.segment()}`
  else if (r === 1) path = path.replace(/\//g, '//')
  else if (r === 2) path = path.toUpperCase()
  else if (r === 3) path += f.pick(['/', '?', '#x', '%', '/..', '.json'])
  return path
}

type Kind = keyof typeof PLAN
type Run = (f: Fuzz, fail: (request: string, outcome: string) => void) => Promise<number>

async function restBody(f: Fuzz, fail: (request: string, outcome: string) => void): Promise<number> {
  const admin = f.chance(0.15)
  const posts = restRoutes.filter((r) => r.method !== 'GET')
  const route = admin ? f.pick(ADMIN_ROUTES) : f.pick(posts)
  const template = admin ? (route as (typeof ADMIN_ROUTES)[number]).body : BODIES[route.path]
  const path = pathFor(f, route.path)
  const { body, type } = bodyFor(f, template)
  const sessionOk = route.path !== '/auth/logout'
  const headers: Record<string, string> = { ...(admin ? (f.chance(0.8) ? ADMIN : {}) : credentials(f, sessionOk)) }
  if (type) headers['content-type'] = type
  const method = f.chance(0.05) ? f.pick(['PUT', 'PATCH', 'GET', 'DELETE', 'OPTIONS']) : route.method
  const r = await send(method, path, headers, body)
  const fault = httpFault(r)
  if (fault) fail(`${method} ${path} ${type ?? ''} ${String(body).slice(0, 300)}`, fault)
  return 1
}

async function restPath(f: Fuzz, fail: (request: string, outcome: string) => void): Promise<number> {
  const route = f.chance(0.85) ? f.pick(restRoutes) : f.pick(ADMIN_ROUTES)
  const path = f.chance(0.1) ? `/${Array.from({ length: 1 + f.int(4) }, () => f.segment()).join('/')}` : pathFor(f, route.path)
  const headers = route.path.startsWith('/admin') ? ADMIN : credentials(f, route.path !== '/auth/logout')
  const r = await send(route.method, path, headers, route.method === 'GET' ? undefined : '{}')
  const fault = httpFault(r)
  if (fault) fail(`${route.method} ${path}`, fault)
  return 1
}

async function restQuery(f: Fuzz, fail: (request: string, outcome: string) => void): Promise<number> {
  const gets = restRoutes.filter((r) => r.method === 'GET')
  const route = f.pick(gets)
  const path = pathFor(f, route.path).split('?')[0] + f.query(QUERY_KEYS)
  const r = await send('GET', path, credentials(f))
  const fault = httpFault(r)
  if (fault) fail(`GET ${path}`, fault)
  return 1
}

/** Variables for document `i`: plausible values, random JSON, or not an object at all. */
function variablesFor(f: Fuzz, i: number): unknown {
  if (f.chance(0.1)) return f.json()
  const vars: Record<string, unknown> = {}
  for (const name of VARIABLES[i]!) {
    if (f.chance(0.15)) continue
    vars[name] = f.chance(0.3) ? f.pick([marketIdFor(f), orderId, 'BTC', 5, '0.01', { marketId: 'BTC-PERP', side: 'BUY', quantity: '0.01' }]) : f.json()
  }
  return vars
}

async function graphql(f: Fuzz, fail: (request: string, outcome: string) => void): Promise<number> {
  const i = f.int(DOCUMENTS.length)
  const query = f.chance(0.35) ? f.document(DOCUMENTS[i]!) : DOCUMENTS[i]!
  const variables = variablesFor(f, i)
  const headers: Record<string, string> = { ...credentials(f), accept: f.pick(['application/json', 'application/graphql-response+json', 'text/event-stream', 'multipart/mixed', '*/*']) }
  const r = f.int(10)
  let sent: Sent
  let described: string
  if (r === 0) {
    const qs = `?query=${encode(query)}&variables=${encode(f.chance(0.8) ? JSON.stringify(variables) : f.string())}${f.chance(0.2) ? `&operationName=${encode(f.string())}` : ''}`
    described = `GET /graphql${qs}`
    sent = await send('GET', `/graphql${qs}`, headers)
  } else {
    let body: string
    if (r === 1) body = JSON.stringify([{ query, variables }, { query }])
    else if (r === 2) body = f.pick([f.deepJson(JSON.stringify(query)), JSON.stringify(f.json()), '{"query":', 'query'])
    else if (r === 3) body = JSON.stringify({ query: f.chance(0.5) ? f.json() : query, variables: f.string(), operationName: f.json(), extensions: f.json() })
    else body = JSON.stringify({ query, variables, ...(f.chance(0.2) ? { operationName: f.string() } : {}) })
    headers['content-type'] = f.chance(0.95) ? 'application/json' : f.pick(['application/graphql', 'text/plain', 'application/x-www-form-urlencoded'])
    described = `POST /graphql ${body.slice(0, 400)}`
    sent = await send('POST', '/graphql', headers, body)
  }
  const fault = httpFault(sent)
  if (fault) fail(described, fault)
  return 1
}

async function sse(f: Fuzz, fail: (request: string, outcome: string) => void): Promise<number> {
  const s = f.pick(SSE_PATHS)
  const path = s.path + (f.chance(0.2) ? s.valid : f.query(s.keys))
  const headers = { ...credentials(f), ...(f.chance(0.8) ? { accept: 'text/event-stream' } : {}), ...(f.chance(0.2) ? { 'last-event-id': f.string().replace(/[^\x20-\x7e]/g, '') } : {}) }
  const r = await send('GET', path, headers)
  const fault = httpFault(r)
  if (fault) fail(`GET ${path}`, fault)
  return 1
}

/** A WebSocket that records what the server sent and how it closed; `settle` sends `probe` and waits
 * for the answer `isAnswer` accepts (or the close), so the frames before it have been handled. */
async function openSocket(path: string, protocol?: string, headers: Record<string, string> = {}) {
  const ws = new WebSocket(wsUrl(ex.url!, path), protocol, { headers })
  const messages: string[] = []
  let closeCode: number | null = null
  const closed = new Promise<void>((resolve) => ws.on('close', (code) => {
    closeCode = code
    resolve()
  }))
  ws.on('message', (d) => messages.push(String(d)))
  ws.on('error', () => {})
  const opened = await new Promise<boolean>((resolve) => {
    ws.once('open', () => resolve(true))
    ws.once('unexpected-response', (_req, res) => {
      res.resume()
      resolve(false)
    })
    ws.once('error', () => resolve(false))
  })
  return {
    ws,
    opened,
    messages,
    closeCode: () => closeCode,
    send(data: string | Buffer, binary = false) {
      if (ws.readyState === ws.OPEN) ws.send(data, { binary })
    },
    /** Bytes straight onto the TCP socket, past the client library's framing. */
    sendRaw(bytes: Buffer) {
      if (ws.readyState === ws.OPEN) (ws as unknown as { _socket: { write(b: Buffer): void } })._socket.write(bytes)
    },
    async settle(probe: string, isAnswer: (m: string) => boolean): Promise<void> {
      if (ws.readyState !== ws.OPEN) return closed
      const seen = messages.length
      this.send(probe)
      await Promise.race([
        closed,
        new Promise<void>((resolve) => {
          const check = () => {
            if (messages.slice(seen).some(isAnswer)) {
              ws.off('message', check)
              resolve()
            }
          }
          ws.on('message', check)
        }),
      ])
    },
    async close(): Promise<void> {
      ws.close()
      const cut = setTimeout(() => ws.terminate(), 2_000)
      await closed
      clearTimeout(cut)
    },
  }
}

/** A frame that ends the connection on its own: too big, or text that is not UTF-8. */
function killerFrame(f: Fuzz, limit: number): { data: Buffer | string; binary: boolean } {
  return f.chance(0.5) ? { data: 'x'.repeat(limit + 1 + f.int(1_000)), binary: false } : { data: Buffer.from([0x7b, 0xc3, 0x28, 0xff, 0x7d]), binary: false }
}

const FEEDS: Record<string, Array<{ type: string; symbol: () => string }>> = {
  '/ws/perps/prices': [{ type: 'prices', symbol: () => 'BTC-PERP' }],
  '/ws/feeds': [{ type: 'orderbook', symbol: () => option }, { type: 'fills', symbol: () => option }],
  '/ws/quotes': [{ type: 'quotes', symbol: () => 'BTC-PERP' }, { type: 'quotes', symbol: () => 'BTC' }, { type: 'myQuotes', symbol: () => 'BTC' }],
}

async function wsFeeds(f: Fuzz, fail: (request: string, outcome: string) => void): Promise<number> {
  const path = f.pick(Object.keys(FEEDS))
  // The caller's quote state needs a credential: sometimes there is one.
  const s = await openSocket(path, undefined, path === '/ws/quotes' && f.chance(0.5) ? alice.cookie : {})
  if (!s.opened) return 1
  const frames: string[] = []
  const n = 4 + f.int(12)
  for (let i = 0; i < n; i++) {
    const r = f.int(20)
    const t = f.pick(FEEDS[path]!)
    const valid = { method: 'subscribe', subscription: { type: t.type, symbol: t.symbol(), ...(f.chance(0.3) ? { fromSeq: f.int(5) } : {}) } }
    let frame: string | Buffer
    let binary = false
    if (r < 9) frame = JSON.stringify(f.chance(0.25) ? valid : f.mutate(valid))
    else if (r < 11) frame = JSON.stringify({ ...valid, method: 'unsubscribe' })
    else if (r < 13) frame = f.pick(['ping', 'PING', 'pong', '', ' ping'])
    else if (r < 16) frame = f.chance(0.5) ? JSON.stringify(f.json()) : f.string()
    else if (r < 18) {
      frame = f.bytes(100)
      binary = true
    } else if (r < 19) frame = f.deepJson()
    else if (f.chance(0.5)) ({ data: frame, binary } = killerFrame(f, 64 * 1024))
    else {
      const raw = f.badFrame()
      frames.push(`<raw ${raw.toString('hex').slice(0, 60)}>`)
      s.sendRaw(raw)
      continue
    }
    frames.push(typeof frame === 'string' ? frame.slice(0, 200) : `<${frame.length} bytes>`)
    s.send(frame, binary)
  }
  await s.settle('ping', (m) => m === 'pong')
  await s.close()
  const faults = [...s.messages.map(messageFault), closeFault(s.closeCode() ?? 1000)].filter((x): x is string => x !== null)
  if (faults.length > 0) fail(`${path}: ${JSON.stringify(frames)}`, faults.join('; '))
  return n
}

async function graphqlWs(f: Fuzz, fail: (request: string, outcome: string) => void): Promise<number> {
  const protocol = f.chance(0.9) ? 'graphql-transport-ws' : f.pick(['graphql-ws', 'x'])
  const s = await openSocket('/graphql', protocol, f.chance(0.2) ? alice.cookie : {})
  if (!s.opened) return 1
  const frames: string[] = []
  const push = (frame: string | Buffer, binary = false) => {
    frames.push(typeof frame === 'string' ? frame.slice(0, 300) : `<${frame.length} bytes>`)
    s.send(frame, binary)
  }
  if (f.chance(0.85)) {
    const payload = f.chance(0.7) ? { authorization: f.pick([tradeKey['authorization'], 'Bearer x', alice.bearer['authorization']]) } : f.json()
    push(JSON.stringify(f.chance(0.9) ? { type: 'connection_init', payload } : f.mutate({ type: 'connection_init', payload })))
  }
  const n = 3 + f.int(8)
  for (let i = 0; i < n; i++) {
    const r = f.int(20)
    const d = f.int(DOCUMENTS.length)
    const subscribe = { id: f.chance(0.8) ? String(f.int(6)) : f.string(), type: 'subscribe', payload: { query: f.chance(0.3) ? f.document(DOCUMENTS[d]!) : DOCUMENTS[d]!, variables: variablesFor(f, d) } }
    if (r < 9) push(JSON.stringify(f.chance(0.6) ? subscribe : f.mutate(subscribe)))
    else if (r < 11) push(JSON.stringify({ id: String(f.int(6)), type: 'complete' }))
    else if (r < 13) push(JSON.stringify({ type: f.pick(['ping', 'pong']), ...(f.chance(0.3) ? { payload: f.json() } : {}) }))
    else if (r < 16) push(f.chance(0.5) ? JSON.stringify(f.json()) : f.string())
    else if (r < 17) push(f.bytes(100), true)
    else if (r < 18) push(f.deepJson())
    else if (r < 19) push(JSON.stringify({ type: 'subscribe', id: 'dup', payload: { query: SUBSCRIPTIONS[0], variables: { m: 'BTC-PERP' } } }))
    else if (f.chance(0.5)) {
      const raw = f.badFrame()
      frames.push(`<raw ${raw.toString('hex').slice(0, 60)}>`)
      s.sendRaw(raw)
    } else {
      const k = killerFrame(f, 64 * 1024)
      push(k.data, k.binary)
    }
  }
  await s.settle(JSON.stringify({ type: 'ping' }), (m) => m.includes('"pong"'))
  await s.close()
  const faults = [...s.messages.map(messageFault), closeFault(s.closeCode() ?? 1000)].filter((x): x is string => x !== null)
  if (faults.length > 0) fail(`/graphql: ${JSON.stringify(frames)}`, faults.join('; '))
  return n + 1
}

const RUNS: Record<Kind, Run> = { restBody, restPath, restQuery, graphql, sse, wsFeeds, graphqlWs }

/** Runs `plan` (scaled by `scale`) with CONCURRENCY in flight; returns the count of requests and the failures. */
async function fuzz(seed: number, scale: number): Promise<{ requests: number; failures: Failure[] }> {
  const tasks: Array<{ kind: Kind; index: number }> = []
  for (const [kind, n] of Object.entries(PLAN) as Array<[Kind, number]>) {
    for (let i = 0; i < Math.ceil(n * scale); i++) tasks.push({ kind, index: tasks.length })
  }
  // Interleaved, in an order the seed fixes.
  const order = new Fuzz(seed)
  for (let i = tasks.length - 1; i > 0; i--) {
    const j = order.int(i + 1)
    ;[tasks[i], tasks[j]] = [tasks[j]!, tasks[i]!]
  }
  const failures: Failure[] = []
  let requests = 0
  let next = 0
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < tasks.length) {
      const { kind, index } = tasks[next++]!
      const f = Fuzz.of(seed, index)
      const sent = await RUNS[kind](f, (request, outcome) => failures.push({ index, kind, request, outcome }))
      requests += sent
    }
  }))
  return { requests, failures }
}

function settledRss(): number {
  for (let i = 0; i < 3; i++) gc()
  return process.memoryUsage().rss
}

describe('fuzz', () => {
  it('answers thousands of malformed requests without a 500, stays up, and gives its memory back', { timeout: 120_000 }, async () => {
    console.log(`fuzz seed ${SEED} (replay: FUZZ_SEED=${SEED} npx vitest run test/e2e/fuzz.test.ts)`)
    // A warm-up round with another seed fills what is meant to stay (compiled code, pools, caches).
    const logsBefore = ex.logs.length
    const warmUp = await fuzz((SEED + 1) >>> 0, 0.2)
    const rssBefore = settledRss()

    const run = await fuzz(SEED, 1)
    const failures = [...warmUp.failures.map((x) => ({ ...x, seed: (SEED + 1) >>> 0 })), ...run.failures.map((x) => ({ ...x, seed: SEED }))]
    for (const x of failures.slice(0, 10)) console.log(`seed ${x.seed} #${x.index} ${x.kind}: ${x.request}\n  → ${x.outcome}`)
    expect(run.requests).toBeGreaterThanOrEqual(3_000)
    expect(failures.map((x) => `seed ${x.seed} #${x.index} ${x.kind}: ${x.outcome.slice(0, 120)}`)).toEqual([])
    const errorLogs = ex.logs.slice(logsBefore).filter((l) => (JSON.parse(l) as { level: number }).level >= 50)
    expect(errorLogs).toEqual([])

    // Still serving, REST and GraphQL.
    expect((await api.get('/perps/markets')).status).toBe(200)
    expect((await api.graphql('{ market(id: "BTC-PERP") { id } }')).body).toEqual({ data: { market: { id: 'BTC-PERP' } } })
    const rssAfter = settledRss()
    const counts = (m: Map<number, number>) => JSON.stringify(Object.fromEntries([...m].sort((a, b) => a[0] - b[0])))
    console.log(`fuzz: HTTP statuses ${counts(statuses)}; WebSocket closes ${counts(closes)}`)
    console.log(`fuzz: ${run.requests} requests after ${warmUp.requests} warming up; rss ${(rssBefore / 2 ** 20).toFixed(0)} MiB → ${(rssAfter / 2 ** 20).toFixed(0)} MiB`)
    expect(rssAfter).toBeLessThanOrEqual(rssBefore * 1.2)
  })
})
