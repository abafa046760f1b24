// Prometheus metrics (README "Metrics"): a test exchange on a real local chain scraped after some activity
// (money deposited and a withdrawal left pending, orders, GraphQL over HTTP and graphql-ws, a stream
// subscriber, a refused order and a refused connection), on the API port behind METRICS_TOKEN and on the
// internal listener (METRICS_PORT); every family the README lists is there with the values the activity
// implies. A process of the engine role alone shows the engine's families and none of the api's.
import { createClient } from 'graphql-ws'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { expectError, fundPerps, signIn, type SignedIn } from '../support/auth.js'
import { chainEnv, startAnvil, type Chain } from '../support/anvil.js'
import { deferred, type Deferred } from '../support/deferred.js'
import { ADMIN, startTestExchange, type TestExchange } from '../support/exchange.js'
import { http, type Http } from '../support/http.js'
import { pushBtcCurve } from '../support/marks.js'
import { scrape, type MetricsPage } from '../support/metrics.js'
import { pollUntil } from '../support/poll.js'
import { SseClient, wsUrl } from '../support/streams.js'

const CONFIRMATIONS = 3
const USDC = 1_000_000n
const METRICS_TOKEN = 'metrics-token-0123456789'
const BEARER = { authorization: `Bearer ${METRICS_TOKEN}` }
const PERP = 'BTC-PERP'

let chain: Chain
let ex: TestExchange
let api: Http
let alice: SignedIn
/** Holds the engine's next batch before its commit while set (the lag test). */
let gate: Deferred<void> | null = null
const vaultKey = generatePrivateKey()
const vault = privateKeyToAccount(vaultKey)

const page = () => scrape(ex.metricsUrl!)

beforeAll(async () => {
  chain = await startAnvil()
  const usdc = await chain.deployToken()
  await chain.fund(vault.address)
  ex = await startTestExchange(
    {
      ...chainEnv(chain, usdc.address, vault.address, vaultKey, CONFIRMATIONS),
      ROLES: 'api,engine,scheduler,indexer',
      MARK_STALE_MS: '3600000',
      METRICS_TOKEN,
      METRICS_PORT: '0',
      ORDER_RATE_PER_MIN: '10',
      STREAM_MAX_CONNECTIONS_PER_IP: '1',
    },
    { beforeCommit: () => gate?.promise ?? Promise.resolve() },
  )
  api = http(ex.url!)
  expect((await pushBtcCurve(api, '95000')).status).toBe(200)
  alice = await signIn(api, ex.url!)
  await fundPerps(api, alice)
  // 20 USDC-T deposited on chain and credited, 5 of it asked back: pending until the worker pays it.
  await chain.fund(alice.wallet.address)
  await usdc.mint(alice.wallet.address, 20n * USDC)
  await usdc.transfer(alice.wallet, vault.address, 20n * USDC)
  await chain.mine(CONFIRMATIONS)
  await ex.indexer!.runNow('deposits')
  expect((await api.get('/wallet/balance', alice.bearer)).body.onchainDepositTotal).toBe('20')
  expect((await api.post('/wallet/withdraw', { amount: '5' }, alice.bearer)).status).toBe(200)
  await chain.mine(4)
  await ex.indexer!.runNow('deposits')
})
afterAll(async () => {
  gate?.resolve()
  await ex?.close()
  await chain?.stop()
})

describe('GET /metrics', () => {
  it('on the API port needs METRICS_TOKEN; the internal listener serves the same families without one', async () => {
    expectError(await api.get('/metrics'), 401, 'MISSING_CREDENTIAL')
    expectError(await api.get('/metrics', { authorization: 'Bearer not-the-metrics-token' }), 401, 'INVALID_TOKEN')
    expectError(await api.get('/metrics', ADMIN), 401, 'INVALID_TOKEN')
    const res = await api.get('/metrics', BEARER)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    const [viaApi, internal] = [await scrape(`${ex.url}/metrics`, BEARER), await page()]
    expect(new Set(viaApi.types.keys())).toEqual(new Set(internal.types.keys()))
    expect((await fetch(ex.metricsUrl!.replace(/\/metrics$/, '/other'))).status).toBe(404)
  })

  it('is in the API reference where it is served, as an operator route with its own token', async () => {
    const doc = (await api.get('/openapi.json')).body
    expect(doc.paths['/metrics'].get).toMatchObject({ tags: ['Operator'], security: [{ metricsToken: [] }] })
    expect(doc.components.securitySchemes.metricsToken).toMatchObject({ type: 'http', scheme: 'bearer' })
  })

  it('shows the roles of the process and Node process metrics', async () => {
    const p = await page()
    for (const role of ['api', 'engine', 'scheduler', 'indexer']) expect(p.value('exchange_roles', { role })).toBe(1)
    expect(p.value('exchange_roles', { role: 'maker' })).toBeUndefined()
    expect(p.value('process_cpu_seconds_total')).toBeGreaterThan(0)
    expect(p.types.get('nodejs_eventloop_lag_seconds')).toBe('gauge')
  })
})

describe('families after activity', () => {
  let before: MetricsPage
  beforeAll(async () => {
    before = await page()
  })

  it('HTTP latency per route pattern, method and status; event streams left out', async () => {
    expect((await api.post('/perps/orders', { marketId: PERP, side: 'buy', price: '90000', quantity: '0.01' }, alice.cookie)).status).toBe(200)
    expect((await api.get(`/perps/orderbook/${PERP}`)).status).toBe(200)
    expect((await api.get('/no/such/route')).status).toBe(404)
    const sse = await SseClient.open(`${ex.url}/perps/book-stream?marketId=${PERP}`)
    await sse.nextJson()
    sse.close()
    await pollUntil(async () => (await page()).value('exchange_stream_subscribers', { stream: 'book' }) === 0, { what: 'the SSE subscriber to leave' })

    const p = await page()
    expect(p.types.get('exchange_http_request_duration_seconds')).toBe('histogram')
    const count = (route: string, method: string, status: string) =>
      p.value('exchange_http_request_duration_seconds_count', { route, method, status_code: status }) ?? 0
    expect(count('/perps/orders', 'POST', '200')).toBeGreaterThanOrEqual(1)
    expect(count('/perps/orderbook/:marketId', 'GET', '200')).toBe(1)
    expect(count('unmatched', 'GET', '404')).toBe(1)
    expect(p.find('exchange_http_request_duration_seconds_count', { route: '/perps/book-stream' })).toEqual([])
    const inf = p.value('exchange_http_request_duration_seconds_bucket', { route: '/perps/orderbook/:marketId', method: 'GET', status_code: '200', le: '+Inf' })
    expect(inf).toBe(1)
    const sum = p.value('exchange_http_request_duration_seconds_sum', { route: '/perps/orderbook/:marketId', method: 'GET', status_code: '200' })!
    expect(sum).toBeGreaterThan(0)
    expect(sum).toBeLessThan(30)
  })

  it('engine: commands, batch sizes and commit latency grow with the commands; the leader is caught up', async () => {
    const p0 = await page()
    for (let i = 0; i < 3; i++) expect((await api.post('/wallet/transfer', { from: 'wallet', to: 'spot', amount: '1' }, alice.cookie)).status).toBe(200)
    const p = await page()
    const grew = (name: string) => p.value(name)! - (p0.value(name) ?? 0)
    expect(grew('exchange_engine_commands_total')).toBeGreaterThanOrEqual(3)
    expect(grew('exchange_engine_batch_size_count')).toBeGreaterThanOrEqual(1)
    expect(grew('exchange_engine_batch_size_sum')).toBe(grew('exchange_engine_commands_total'))
    expect(grew('exchange_engine_commit_duration_seconds_count')).toBe(grew('exchange_engine_batch_size_count'))
    expect(p.value('exchange_engine_commit_duration_seconds_sum')).toBeGreaterThan(0)
    expect(p.value('exchange_engine_leader')).toBe(1)
    // The scheduler's heartbeat is a command a second: caught up between them.
    await pollUntil(async () => (await page()).value('exchange_engine_stream_lag_seconds') === 0, { what: 'the engine to be caught up' })
  })

  it('engine: the lag is the age of the oldest command not committed yet, and 0 again once it is', async () => {
    gate = deferred<void>()
    const held = api.post('/admin/marks', { marketId: 'XAUT-USDC-SPOT', price: '4000' }, ADMIN)
    const lag = await pollUntil(async () => {
      const v = (await page()).value('exchange_engine_stream_lag_seconds')!
      return v >= 0.2 && v
    }, { what: 'the engine lag to pass 0.2 s' })
    expect(lag).toBeLessThan(60)
    gate.resolve()
    gate = null
    expect((await held).status).toBe(200)
    await pollUntil(async () => (await page()).value('exchange_engine_stream_lag_seconds') === 0, { what: 'the lag back to 0' })
  })

  it('stream subscribers while a stream is open; a refused connection and a refused order count as rate-limit refusals', async () => {
    const first = await SseClient.open(`${ex.url}/perps/book-stream?marketId=${PERP}`)
    await first.nextJson()
    expect((await page()).value('exchange_stream_subscribers', { stream: 'book' })).toBe(1)
    const second = await SseClient.open(`${ex.url}/markets/board/stream`)
    expect(second.status).toBe(429)
    first.close()

    let refused = 0
    for (let i = 0; i < 100 && refused === 0; i++) {
      const res = await api.post('/perps/orders', { marketId: PERP, side: 'buy', price: '90000', quantity: 'x' }, alice.cookie)
      if (res.status === 429) refused++
    }
    expect(refused).toBe(1)

    const p = await page()
    expect(p.value('exchange_rate_limit_refusals_total', { limit: 'connection' })).toBe((before.value('exchange_rate_limit_refusals_total', { limit: 'connection' }) ?? 0) + 1)
    expect(p.value('exchange_rate_limit_refusals_total', { limit: 'order' })).toBe((before.value('exchange_rate_limit_refusals_total', { limit: 'order' }) ?? 0) + 1)
    // Slow consumers are none here: the families are there, at 0, for every transport.
    for (const transport of ['sse', 'ws', 'graphql-ws', 'graphql-sse']) {
      expect(p.value('exchange_stream_conflated_frames_total', { transport })).toBe(0)
      expect(p.value('exchange_stream_slow_consumer_drops_total', { transport })).toBe(0)
    }
    expect(p.find('exchange_stream_subscribers').map((s) => s.labels['stream']).sort()).toEqual(
      ['balances', 'board', 'book', 'fills', 'my_quotes', 'orders', 'prices', 'quotes', 'ticks', 'trades'],
    )
    await pollUntil(async () => (await page()).value('exchange_stream_subscribers', { stream: 'book' }) === 0, { what: 'the SSE subscriber to leave' })
  })

  it('GraphQL operations by transport, type and name, and their errors by code', async () => {
    expect((await api.graphql('query MetricsMarkets { markets { edges { node { marketId } } } }')).status).toBe(200)
    expect((await api.graphql('query MetricsMe { me { id } }')).body.errors[0].extensions.code).toBe('MISSING_CREDENTIAL')
    expect((await api.graphql('query MetricsBroken { nope }')).body.errors[0].extensions.code).toBe('INVALID_REQUEST')
    const client = createClient({ url: wsUrl(ex.url!, '/graphql'), webSocketImpl: WebSocket, retryAttempts: 0, lazy: true })
    const result = await new Promise<unknown>((resolve, reject) => {
      client.subscribe({ query: 'query MetricsOverWs { markets { edges { node { marketId } } } }' }, { next: resolve, error: reject, complete: () => {} })
    })
    expect(result).toMatchObject({ data: { markets: expect.anything() } })
    await client.dispose()

    const p = await page()
    const ops = (labels: Record<string, string>) => p.value('exchange_graphql_operations_total', labels)
    expect(ops({ transport: 'http', type: 'query', operation: 'MetricsMarkets' })).toBe(1)
    expect(ops({ transport: 'http', type: 'query', operation: 'MetricsMe' })).toBe(1)
    expect(ops({ transport: 'ws', type: 'query', operation: 'MetricsOverWs' })).toBe(1)
    expect(p.find('exchange_graphql_operations_total', { operation: 'MetricsBroken' })).toEqual([])
    const errors = (labels: Record<string, string>) => p.value('exchange_graphql_errors_total', labels)
    expect(errors({ transport: 'http', type: 'query', operation: 'MetricsMe', code: 'MISSING_CREDENTIAL' })).toBe(1)
    // Refused before it ran (invalid): its error counts, the operation does not.
    expect(errors({ transport: 'http', type: 'query', operation: 'MetricsBroken', code: 'INVALID_REQUEST' })).toBe(1)
    expect(p.find('exchange_graphql_errors_total', { operation: 'MetricsMarkets' })).toEqual([])
  })

  it('indexer lag in blocks and poll age; withdrawals pending and their amount', async () => {
    const p = await page()
    // Every poll records final blocks up to head - confirmations + 1.
    expect(p.value('exchange_indexer_lag_blocks')).toBe(CONFIRMATIONS - 1)
    expect(p.value('exchange_indexer_poll_age_seconds')).toBeGreaterThanOrEqual(0)
    expect(p.value('exchange_indexer_poll_age_seconds')).toBeLessThan(600)
    expect(p.value('exchange_withdrawals_pending')).toBe(1)
    expect(p.value('exchange_withdrawals_pending_usdc')).toBe(5)
  })
})

describe('a process of the engine role alone', () => {
  it("shows the engine's families (a standby: not leading, no lag of its own) and none of the api's or the indexer's", async () => {
    const standby = await startTestExchange({ ROLES: 'engine', METRICS_PORT: '0' }, { db: ex.db, redisPrefix: ex.config.redisPrefix })
    try {
      const p = await scrape(standby.metricsUrl!)
      expect(p.value('exchange_roles', { role: 'engine' })).toBe(1)
      expect(p.value('exchange_engine_leader')).toBe(0)
      expect(p.value('exchange_engine_stream_lag_seconds')).toBe(0)
      expect(p.value('exchange_engine_commands_total')).toBe(0)
      const families = [...p.types.keys()].filter((f) => f.startsWith('exchange_'))
      expect(families.sort()).toEqual([
        'exchange_engine_batch_size', 'exchange_engine_commands_total', 'exchange_engine_commit_duration_seconds',
        'exchange_engine_leader', 'exchange_engine_stream_lag_seconds', 'exchange_roles',
      ])
    } finally {
      await standby.close()
    }
  })
})
