// The order-path rate limit over real HTTP (DESIGN.md §10): one pool per user shared by the session and
// all keys and by every API node, 120 a minute standard and ten times that for a market maker set by
// the operator, the 429 body and headers, and what is not limited. Most exchanges here pin the
// limiter's clock so the GCRA arithmetic is exact; the last block runs on Redis' real clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AuthEvent } from '../../src/auth/authEvents.js'
import { createKey, expectError, signIn, type SignedIn } from '../support/auth.js'
import { deferred } from '../support/deferred.js'
import { startTestExchange, type TestExchange } from '../support/exchange.js'
import { http, type Http, type HttpResult } from '../support/http.js'
import { ADMIN } from '../support/exchange.js'

const T0 = Date.UTC(2026, 10, 21, 12)
let now = T0
const clock = () => now

let ex: TestExchange
let nodeB: TestExchange
let api: Http
let apiB: Http

beforeAll(async () => {
  ex = await startTestExchange({ ROLES: 'api,engine,scheduler' }, { rateLimitClock: clock })
  nodeB = await startTestExchange({ ROLES: 'api' }, { db: ex.db, redisPrefix: ex.config.redisPrefix, rateLimitClock: clock })
  api = http(ex.url!)
  apiB = http(nodeB.url!)
})
afterAll(async () => {
  await nodeB?.close()
  await ex?.close()
})

const order = (h: Http, headers: Record<string, string>) => h.post('/test/order-path', {}, headers)
const limitHeaders = (r: HttpResult) => ['limit', 'remaining', 'reset'].map((h) => r.headers.get(`x-ratelimit-${h}`))

/** A user with a session and two trade keys: the three credentials the spec says share one pool. */
async function trader(): Promise<{ s: SignedIn; credentials: Array<Record<string, string>> }> {
  const s = await signIn(api, ex.url!)
  const k1 = await createKey(api, s.cookie, { scope: 'trade' })
  const k2 = await createKey(api, s.cookie, { scope: 'trade' })
  return { s, credentials: [s.cookie, k1.auth, k2.auth, s.bearer] }
}

/** `n` order-path calls spread round-robin over the credentials and nodes, `batch` at a time. */
async function spend(n: number, credentials: Array<Record<string, string>>, nodes: Http[] = [api], batch = 40): Promise<HttpResult[]> {
  const out: HttpResult[] = []
  for (let i = 0; i < n; i += batch) {
    const calls = Array.from({ length: Math.min(batch, n - i) }, (_, j) => {
      const k = i + j
      return order(nodes[k % nodes.length]!, credentials[k % credentials.length]!)
    })
    out.push(...(await Promise.all(calls)))
  }
  return out
}

describe('standard tier: 120 a minute per user', () => {
  it('passes 120 calls spread over a session and two keys and refuses the 121st with 429 ORDER_RATE_LIMIT', async () => {
    now = T0
    const { credentials } = await trader()
    const ok = await spend(120, credentials, [api], 1)
    expect(ok.map((r) => r.status)).toEqual(Array(120).fill(200))
    // Remaining counts down through the shared pool whatever the credential.
    expect(ok.map((r) => Number(r.headers.get('x-ratelimit-remaining')))).toEqual(Array.from({ length: 120 }, (_, i) => 119 - i))
    expect(limitHeaders(ok[0]!)).toEqual(['120', '119', '1'])
    expect(limitHeaders(ok[119]!)).toEqual(['120', '0', '60'])

    const refused = await order(api, credentials[1]!)
    expect(refused.status).toBe(429)
    // GCRA: the pool refills one call every 60000 / 120 = 500 ms.
    expect(refused.body).toEqual({
      error: 'RateLimitError', code: 'ORDER_RATE_LIMIT', message: expect.any(String), retryAfterMs: 500, details: { retryAfterMs: 500 },
    })
    expect(refused.headers.get('retry-after')).toBe('1')
    expect(limitHeaders(refused)).toEqual(['120', '0', '60'])
    expect(refused.headers.get('x-correlation-id')).toBeTruthy()
  })

  it('counts down retryAfterMs with time and lets one call through per interval', async () => {
    now = T0
    const { credentials } = await trader()
    await spend(120, credentials)
    now = T0 + 200
    expect((await order(api, credentials[0]!)).body.retryAfterMs).toBe(300)
    now = T0 + 499
    expect((await order(api, credentials[2]!)).body.retryAfterMs).toBe(1)
    now = T0 + 500
    const passed = await order(api, credentials[1]!)
    expect(passed.status).toBe(200)
    expect(passed.headers.get('x-ratelimit-remaining')).toBe('0')
    const again = await order(api, credentials[0]!)
    expect([again.status, again.body.retryAfterMs]).toEqual([429, 500])
    // A full minute later the whole allowance is back.
    now = T0 + 500 + 60_000
    expect((await spend(120, credentials)).every((r) => r.status === 200)).toBe(true)
    expect((await order(api, credentials[0]!)).status).toBe(429)
  })

  it('keeps users apart', async () => {
    now = T0
    const a = await trader()
    const b = await trader()
    await spend(121, a.credentials)
    expect((await order(api, a.credentials[0]!)).status).toBe(429)
    expect((await order(api, b.credentials[0]!)).status).toBe(200)
  })

  it('does not count refused credentials, reads, market data or GraphQL reads', async () => {
    now = T0
    const { s, credentials } = await trader()
    const read = await createKey(api, s.cookie, { scope: 'read' })
    for (let i = 0; i < 5; i++) {
      expectError(await order(api, read.auth), 403, 'SCOPE_INSUFFICIENT')
      expectError(await order(api, {}), 401, 'MISSING_CREDENTIAL')
    }
    const ok = await spend(120, credentials)
    expect(ok.every((r) => r.status === 200)).toBe(true)
    expect((await order(api, credentials[0]!)).status).toBe(429)
    for (const path of ['/auth/me', '/perps/me/api-keys']) {
      const res = await api.get(path, s.cookie)
      expect(res.status, path).toBe(200)
      expect(res.headers.get('x-ratelimit-limit')).toBeNull()
    }
    expect((await api.get('/perps/markets', read.auth)).status).toBe(200)
    expect((await api.graphql('{ me { id } }', {}, s.bearer)).body.data.me.id).toBe(s.user.id)
  })
})

describe('a revoked key', () => {
  it('is never charged: a key a node has cached, revoked with only its marker (announcement lost), leaves the pool as it was', async () => {
    now = T0
    const s = await signIn(api, ex.url!)
    const { id: keyId, auth: key } = await createKey(api, s.cookie, { scope: 'trade' })
    expect((await order(apiB, key)).headers.get('x-ratelimit-remaining')).toBe('119')
    await ex.pool.query('UPDATE api_keys SET "revokedAt" = now() WHERE id = $1', [keyId])
    await ex.services.identity.revocations.mark(keyId)
    for (let i = 0; i < 3; i++) {
      const refused = await order(apiB, key)
      expectError(refused, 401, 'KEY_REVOKED')
      expect(refused.headers.get('x-ratelimit-remaining')).toBeNull()
    }
    expect((await order(apiB, s.cookie)).headers.get('x-ratelimit-remaining')).toBe('118')
  })
})

describe('two API nodes', () => {
  it('share one pool: 60 calls on each, then the 121st is refused on either node', async () => {
    now = T0
    const { credentials } = await trader()
    const ok = await spend(120, credentials, [api, apiB])
    expect(ok.every((r) => r.status === 200)).toBe(true)
    for (const node of [api, apiB]) {
      const refused = await order(node, credentials[0]!)
      expect([refused.status, refused.body.retryAfterMs]).toEqual([429, 500])
    }
  })
})

describe('market-maker tier', () => {
  it('gives a user with tier 10 ten times the allowance: 1200 pass, the 1201st waits 50 ms', async () => {
    now = T0
    const { s, credentials } = await trader()
    const set = await api.post(`/admin/users/${s.user.id}/rate-tier`, { tier: 10 }, ADMIN)
    expect(set.status).toBe(200)
    expect(set.body).toEqual({ userId: s.user.id, address: s.wallet.address, rateTier: 10 })
    const ok = await spend(1200, credentials, [api, apiB])
    expect(ok.filter((r) => r.status !== 200)).toEqual([])
    expect(limitHeaders(ok[0]!)[0]).toBe('1200')
    const refused = await order(api, credentials[0]!)
    expect([refused.status, refused.body.retryAfterMs, refused.headers.get('retry-after')]).toEqual([429, 50, '1'])
    expect((await api.get('/auth/me', s.cookie)).body.rateTier).toBe(10)
  })

  it('applies a tier change on another node from its next request', async () => {
    now = T0
    const { s, credentials } = await trader()
    await spend(120, credentials, [apiB])
    expect((await order(apiB, credentials[0]!)).status).toBe(429) // node B has cached tier 1
    const heard = deferred<AuthEvent>()
    nodeB.services.identity.events.on((e) => {
      if (e.type === 'rate-tier' && e.userId === s.user.id) heard.resolve(e)
    })
    await api.post(`/admin/users/${s.user.id}/rate-tier`, { tier: 2 }, ADMIN)
    await heard.promise
    // The pool's debt is time (GCRA), so it is still full, but tier 2 refills it every 250 ms, not 500.
    const refused = await order(apiB, credentials[0]!)
    expect([refused.status, refused.body.retryAfterMs, limitHeaders(refused)[0]]).toEqual([429, 250, '240'])
    // Half a minute refills 120 calls at tier 2 (it would be 60 at tier 1).
    now = T0 + 30_000
    expect((await spend(120, credentials, [apiB])).every((r) => r.status === 200)).toBe(true)
    expect((await order(apiB, credentials[0]!)).body.retryAfterMs).toBe(250)
  })
})

describe('operator endpoint POST /admin/users/:userId/rate-tier', () => {
  it('defaults to the market-maker multiple and validates the tier', async () => {
    const s = await signIn(api, ex.url!)
    const path = `/admin/users/${s.user.id}/rate-tier`
    expect((await api.post(path, {}, ADMIN)).body.rateTier).toBe(10)
    for (const tier of [0, 101, 1.5, '3']) expectError(await api.post(path, { tier }, ADMIN), 400, 'INVALID_REQUEST')
    expectError(await api.post('/admin/users/01ARZ3NDEKTSV4RRFFQ69G5FAV/rate-tier', { tier: 2 }, ADMIN), 404, 'NOT_FOUND')
  })

  it('needs the admin token: 401 without it or with a wrong one, whatever other credential is sent', async () => {
    const s = await signIn(api, ex.url!)
    const path = `/admin/users/${s.user.id}/rate-tier`
    expectError(await api.post(path, { tier: 5 }), 401, 'MISSING_CREDENTIAL')
    expectError(await api.post(path, { tier: 5 }, { authorization: 'Bearer wrong-token-0123456789' }), 401, 'INVALID_TOKEN')
    expectError(await api.post(path, { tier: 5 }, s.bearer), 401, 'INVALID_TOKEN')
    expectError(await api.post('/admin/marks', { marketId: 'BTC-USDC-SPOT', price: '1' }, s.cookie), 401, 'MISSING_CREDENTIAL')
    expect((await api.get('/auth/me', s.cookie)).body.rateTier).toBe(1)
  })

  it('does not exist on a node with no ADMIN_TOKEN configured', async () => {
    const off = await startTestExchange({ ROLES: 'api', ADMIN_TOKEN: '' }, { db: ex.db, redisPrefix: ex.config.redisPrefix })
    try {
      const h = http(off.url!)
      const s = await signIn(api, ex.url!)
      expectError(await h.post(`/admin/users/${s.user.id}/rate-tier`, { tier: 5 }, ADMIN), 404, 'NOT_FOUND')
      expectError(await h.post('/admin/marks', { marketId: 'BTC-USDC-SPOT', price: '1' }, ADMIN), 404, 'NOT_FOUND')
      expectError(await h.post('/admin/markets/BTC-PERP/halt', {}, ADMIN), 404, 'NOT_FOUND')
      expectError(await h.post('/admin/feed', { enabled: false }, ADMIN), 404, 'NOT_FOUND')
    } finally {
      await off.close()
    }
  })
})

describe('on Redis’ own clock', () => {
  let live: TestExchange
  let liveApi: Http
  beforeAll(async () => {
    live = await startTestExchange({ ROLES: 'api' }, { db: ex.db, redisPrefix: ex.config.redisPrefix })
    liveApi = http(live.url!)
  })
  afterAll(() => live?.close())

  it('refills at 2 calls a second: 120 pass at once, then the wait is at most one interval', async () => {
    const s = await signIn(liveApi, live.url!)
    const k = await createKey(liveApi, s.cookie, { scope: 'trade' })
    const credentials = [s.cookie, k.auth]
    const started = Date.now()
    const burst = await spend(120, credentials, [liveApi], 120)
    expect(burst.every((r) => r.status === 200)).toBe(true)
    // Time passes while calls travel, so a few more may fit: exactly one per 500 ms elapsed, no more.
    let extra = 0
    let refused: HttpResult | undefined
    while (!refused) {
      const r = await order(liveApi, credentials[0]!)
      if (r.status === 429) refused = r
      else extra++
      expect(extra).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / 500) + 1)
    }
    expect(refused.body.retryAfterMs).toBeGreaterThan(0)
    expect(refused.body.retryAfterMs).toBeLessThanOrEqual(500)
    expect(refused.headers.get('retry-after')).toBe('1')
    // Waiting is the behaviour under test here: after retryAfterMs a call passes.
    await new Promise((resolve) => setTimeout(resolve, refused!.body.retryAfterMs + 5))
    expect((await order(liveApi, credentials[1]!)).status).toBe(200)
  })
})
