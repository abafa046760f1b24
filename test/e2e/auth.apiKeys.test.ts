// API keys over real HTTP: creation and its validation, listing, scopes (read, trade, session-only key
// management), revocation reaching another API node on the very next request, expiry, forged and
// malformed keys, the IP allowlist with and without a trusted proxy, usage tracking, the audit log,
// and proof that no secret or JWT ever appears in a listing, an error body or a log line.
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKey, del, expectError, signIn, type CreatedKey, type SignedIn } from '../support/auth.js'
import { startTestExchange, type TestExchange } from '../support/exchange.js'
import { http, ISO, type Http } from '../support/http.js'
import { testClock } from '../support/clock.js'

let ex: TestExchange
/** A second API node on the same database and Redis. */
let nodeB: TestExchange
/** A third API node that trusts 127.0.0.1 as a proxy (believes its X-Forwarded-For). */
let behindProxy: TestExchange
let api: Http
let apiB: Http
let apiProxy: Http
let alice: SignedIn
let bob: SignedIn

/** Every response body of this file, with whether it is the one response allowed to show a secret. */
const responses: Array<{ text: string; mayShowSecrets: boolean }> = []
const secrets = new Set<string>()
const tokens = new Set<string>()

function recording(h: Http): Http {
  const request: Http['request'] = async (method, path, opts) => {
    const res = await h.request(method, path, opts)
    const mayShowSecrets = (method === 'POST' && path === '/perps/me/api-keys' && res.status === 201) || path === '/auth/verify'
    responses.push({ text: res.text, mayShowSecrets })
    if (mayShowSecrets && res.body?.secret) secrets.add(res.body.secret)
    if (mayShowSecrets && res.body?.token) tokens.add(res.body.token)
    return res
  }
  return {
    request,
    get: (path, headers) => request('GET', path, { headers }),
    post: (path, body, headers) => request('POST', path, { body: body ?? {}, headers }),
    graphql: (query, variables, headers) => request('POST', '/graphql', { body: { query, variables }, headers }),
  }
}

const orderPath = (h: Http, headers: Record<string, string>) => h.post('/test/order-path', {}, headers)
const me = (h: Http, headers: Record<string, string>) => h.get('/auth/me', headers)
/** Revokes a key as a node whose pub/sub announcement was lost sees it: the database and the marker only. */
async function revokeQuietly(keyId: string): Promise<void> {
  await ex.pool.query('UPDATE api_keys SET "revokedAt" = now() WHERE id = $1', [keyId])
  await ex.services.identity.revocations.mark(keyId)
}
const listKeys = async (session: Record<string, string>) => (await api.get('/perps/me/api-keys', session)).body.keys as any[]

beforeAll(async () => {
  ex = await startTestExchange({ ROLES: 'api,engine,scheduler' })
  const shared = { db: ex.db, redisPrefix: ex.config.redisPrefix }
  nodeB = await startTestExchange({ ROLES: 'api' }, shared)
  behindProxy = await startTestExchange({ ROLES: 'api', TRUSTED_PROXIES: '127.0.0.1' }, shared)
  api = recording(http(ex.url!))
  apiB = recording(http(nodeB.url!))
  apiProxy = recording(http(behindProxy.url!))
  alice = await signIn(api, ex.url!)
  bob = await signIn(api, ex.url!)
})
afterAll(async () => {
  await behindProxy?.close()
  await nodeB?.close()
  await ex?.close()
})

describe('POST /perps/me/api-keys', () => {
  it.each(['cookie', 'bearer'] as const)('creates a key with a session (%s) and shows the secret once', async (how) => {
    const res = await api.post('/perps/me/api-keys', { name: 'desk', scope: 'trade', allowedIps: ['203.0.113.7'], expiresInDays: 30 }, alice[how])
    expect(res.status).toBe(201)
    expect(Object.keys(res.body).sort()).toEqual(['allowedIps', 'expiresAt', 'id', 'name', 'scope', 'secret'])
    expect(res.body).toMatchObject({ name: 'desk', scope: 'trade', allowedIps: ['203.0.113.7'] })
    expect(res.body.id).toMatch(/^svc_kid_[0-9A-Za-z]{16}$/)
    expect(res.body.secret).toMatch(/^svc_sk_[0-9A-Za-z]{43}$/)
    expect(res.body.expiresAt).toMatch(ISO)
    expect(Math.abs(Date.parse(res.body.expiresAt) - (testClock.now() + 30 * 86_400_000))).toBeLessThan(60_000)
    // Stored as its SHA-256 only.
    const { rows } = await ex.pool.query('SELECT "secretHash" FROM api_keys WHERE id = $1', [res.body.id])
    expect(rows[0].secretHash).toMatch(/^[0-9a-f]{64}$/)
    const all = await ex.pool.query('SELECT * FROM api_keys')
    expect(JSON.stringify(all.rows)).not.toContain(res.body.secret)
  })

  it('never expires with expiresInDays 0 or omitted, allows any IP when allowedIps is omitted, and dedupes IPs', async () => {
    const zero = await api.post('/perps/me/api-keys', { name: 'a', scope: 'read', expiresInDays: 0 }, alice.cookie)
    const omitted = await api.post('/perps/me/api-keys', { name: 'b', scope: 'read', allowedIps: ['10.0.0.1', '10.0.0.1'] }, alice.cookie)
    expect(zero.body).toMatchObject({ expiresAt: null, allowedIps: [] })
    expect(omitted.body).toMatchObject({ expiresAt: null, allowedIps: ['10.0.0.1'] })
  })

  it.each([
    ['an IPv4 address out of range', { allowedIps: ['300.1.1.1'] }, 'allowedIps'],
    ['a truncated address', { allowedIps: ['10.1.2'] }, 'allowedIps'],
    ['an IPv6 address', { allowedIps: ['::1'] }, 'allowedIps'],
    ['a CIDR block', { allowedIps: ['10.0.0.0/8'] }, 'allowedIps'],
    ['a leading-zero address', { allowedIps: ['010.0.0.1'] }, 'allowedIps'],
    ['more than 32 addresses', { allowedIps: Array.from({ length: 33 }, (_, i) => `10.0.0.${i}`) }, 'allowedIps'],
    ['allowedIps that is not a list', { allowedIps: '10.0.0.1' }, 'allowedIps'],
    ['an unknown scope', { scope: 'admin' }, 'scope'],
    ['an upper-case scope', { scope: 'TRADE' }, 'scope'],
    ['negative days', { expiresInDays: -1 }, 'expiresInDays'],
    ['fractional days', { expiresInDays: 1.5 }, 'expiresInDays'],
    ['days as a string', { expiresInDays: '30' }, 'expiresInDays'],
    ['over ten years', { expiresInDays: 3_651 }, 'expiresInDays'],
    ['an empty name', { name: '   ' }, 'name'],
    ['a name over 64 characters', { name: 'x'.repeat(65) }, 'name'],
    ['a name with a NUL', { name: '\u0000nul' }, 'name'],
    ['a name with a control character', { name: 'a\u0007b' }, 'name'],
    ['an unknown field', { allowedIP: ['10.0.0.1'] }, null],
  ])('refuses %s: 400 INVALID_REQUEST with details.issues', async (_name, patch, field) => {
    const res = await api.post('/perps/me/api-keys', { name: 'k', scope: 'read', ...patch }, alice.cookie)
    expectError(res, 400, 'INVALID_REQUEST')
    // One issue list for REST and GraphQL: each names its field by its path in the request.
    const issues: Array<{ path: Array<string | number>; code: string; keys?: string[] }> = res.body.details.issues
    if (field) expect(issues.map((i) => i.path[0])).toContain(field)
    else expect(issues).toContainEqual(expect.objectContaining({ path: [], code: 'unrecognized_keys', keys: ['allowedIP'] }))
  })

  it('keeps at most 50 active keys per user, even when the requests arrive together', async () => {
    const carol = await signIn(api, ex.url!)
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => api.post('/perps/me/api-keys', { name: `k${i}`, scope: 'read' }, carol.cookie)))
    expect(results.filter((r) => r.status === 201)).toHaveLength(50)
    for (const r of results.filter((x) => x.status !== 201)) expectError(r, 400, 'INVALID_REQUEST')
    expect((await api.get('/perps/me/api-keys', carol.cookie)).body.keys).toHaveLength(50)
  })

  it('refuses a missing body and a missing name or scope', async () => {
    expectError(await api.request('POST', '/perps/me/api-keys', { headers: alice.cookie }), 400, 'INVALID_REQUEST')
    expectError(await api.post('/perps/me/api-keys', { scope: 'read' }, alice.cookie), 400, 'INVALID_REQUEST')
    expectError(await api.post('/perps/me/api-keys', { name: 'k' }, alice.cookie), 400, 'INVALID_REQUEST')
  })

  it('refuses an IPv4 allowlist entry in GraphQL the same way', async () => {
    const res = await api.graphql('mutation { createApiKey(input: {name: "g", scope: READ, allowedIps: ["1.2.3"]}) { secret } }', {}, alice.cookie)
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'INVALID_REQUEST', status: 400, details: { issues: [expect.objectContaining({ path: ['allowedIps', 0], message: expect.any(String) })] } })
  })
})

describe('key management is session-only', () => {
  let read: CreatedKey
  let trade: CreatedKey
  beforeAll(async () => {
    read = await createKey(api, alice.cookie, { scope: 'read' })
    trade = await createKey(api, alice.cookie, { scope: 'trade' })
  })

  it.each(['read', 'trade'] as const)('refuses a %s key on every key endpoint: 403 SCOPE_INSUFFICIENT', async (scope) => {
    const key = scope === 'read' ? read : trade
    expectError(await api.post('/perps/me/api-keys', { name: 'x', scope: 'read' }, key.auth), 403, 'SCOPE_INSUFFICIENT')
    expectError(await api.get('/perps/me/api-keys', key.auth), 403, 'SCOPE_INSUFFICIENT')
    expectError(await del(api, `/perps/me/api-keys/${key.id}`, key.auth), 403, 'SCOPE_INSUFFICIENT')
    const gql = await api.graphql('mutation ($id: String!) { revokeApiKey(id: $id) { id } }', { id: key.id }, key.auth)
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'SCOPE_INSUFFICIENT', status: 403 })
    const created = await api.graphql('mutation { createApiKey(input: {name: "k", scope: TRADE}) { secret } }', {}, key.auth)
    expect(created.body).toMatchObject({ data: { createApiKey: null }, errors: [{ extensions: { code: 'SCOPE_INSUFFICIENT', status: 403 } }] })
    const list = await api.graphql('{ me { id apiKeys { edges { node { id } } } } }', {}, key.auth)
    expect(list.body.errors[0]).toMatchObject({ path: ['me', 'apiKeys'], extensions: { code: 'SCOPE_INSUFFICIENT' } })
    // The key itself survived the attempt.
    expect((await me(api, key.auth)).status).toBe(200)
  })

  it('refuses no credential with 401 MISSING_CREDENTIAL', async () => {
    expectError(await api.post('/perps/me/api-keys', { name: 'x', scope: 'read' }), 401, 'MISSING_CREDENTIAL')
    expectError(await api.get('/perps/me/api-keys'), 401, 'MISSING_CREDENTIAL')
    expectError(await del(api, `/perps/me/api-keys/${read.id}`, {}), 401, 'MISSING_CREDENTIAL')
  })

  it('lets each credential reach exactly its level (read < trade < session)', async () => {
    const cases: Array<[string, Record<string, string>, number, number, number]> = [
      // credential, GET /auth/me (read), POST /test/order-path (trade), GET /perps/me/api-keys (session)
      ['read key', read.auth, 200, 403, 403],
      ['trade key', trade.auth, 200, 200, 403],
      ['session cookie', alice.cookie, 200, 200, 200],
      ['session JWT', alice.bearer, 200, 200, 200],
      ['none', {}, 401, 401, 401],
    ]
    for (const [name, headers, readStatus, tradeStatus, sessionStatus] of cases) {
      const got = [(await me(api, headers)).status, (await orderPath(api, headers)).status, (await api.get('/perps/me/api-keys', headers)).status]
      expect(got, name).toEqual([readStatus, tradeStatus, sessionStatus])
    }
    expectError(await orderPath(api, read.auth), 403, 'SCOPE_INSUFFICIENT')
  })

  it('reports the key behind a GraphQL me', async () => {
    const res = await api.graphql('{ me { id address } }', {}, read.auth)
    expect(res.body.data.me).toEqual({ id: alice.user.id, address: alice.wallet.address })
  })
})

describe('GET /perps/me/api-keys', () => {
  it('lists the caller’s keys newest first with every field and a computed status, never a secret', async () => {
    const carol = await signIn(api, ex.url!)
    const k1 = await createKey(api, carol.cookie, { name: 'first', scope: 'read' })
    const k2 = await createKey(api, carol.cookie, { name: 'second', scope: 'trade', allowedIps: ['127.0.0.1'], expiresInDays: 7 })
    await createKey(api, bob.cookie, { name: 'bobs' })
    const res = await api.get('/perps/me/api-keys', carol.bearer)
    expect(res.status).toBe(200)
    expect(Object.keys(res.body)).toEqual(['keys'])
    expect(res.body.keys.map((k: any) => k.id)).toEqual([k2.id, k1.id])
    const fields = ['allowedIps', 'createdAt', 'expiresAt', 'id', 'lastUsedAt', 'lastUsedIp', 'name', 'revokedAt', 'scope', 'status']
    for (const k of res.body.keys) expect(Object.keys(k).sort()).toEqual(fields)
    expect(res.body.keys[0]).toMatchObject({
      name: 'second', scope: 'trade', allowedIps: ['127.0.0.1'], expiresAt: expect.stringMatching(ISO), createdAt: expect.stringMatching(ISO),
      revokedAt: null, lastUsedAt: null, lastUsedIp: null, status: 'active',
    })
    for (const secret of [k1.secret, k2.secret]) expect(res.text).not.toContain(secret.slice(7))
  })

  it('matches GraphQL me { apiKeys } with upper-case enums', async () => {
    const key = await createKey(api, bob.cookie, { name: 'gql', scope: 'read' })
    const res = await api.graphql('{ me { apiKeys(first: 1) { edges { node { id name scope status allowedIps } } } } }', {}, bob.cookie)
    expect(res.body.data.me.apiKeys.edges[0].node).toEqual({ id: key.id, name: 'gql', scope: 'READ', status: 'ACTIVE', allowedIps: [] })
  })
})

describe('revocation', () => {
  it('refuses the next request with the key on another API node that had it cached: 401 KEY_REVOKED', async () => {
    const key = await createKey(api, alice.cookie, { scope: 'trade' })
    // Node B resolves the key now and keeps it in its cache.
    expect((await orderPath(apiB, key.auth)).status).toBe(200)
    expect((await me(apiB, key.auth)).status).toBe(200)
    const res = await del(api, `/perps/me/api-keys/${key.id}`, alice.cookie)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ message: expect.stringContaining(key.id) })
    expectError(await me(apiB, key.auth), 401, 'KEY_REVOKED')
    expectError(await orderPath(apiB, key.auth), 401, 'KEY_REVOKED')
    expectError(await me(api, key.auth), 401, 'KEY_REVOKED')
    const listed = (await listKeys(alice.cookie)).find((k) => k.id === key.id)
    expect(listed).toMatchObject({ status: 'revoked', revokedAt: expect.stringMatching(ISO) })
  })

  it('stays strict when the node’s cache missed the announcement (Redis marker, not pub/sub, decides)', async () => {
    const key = await createKey(api, alice.cookie, { scope: 'read' })
    expect((await me(apiB, key.auth)).status).toBe(200)
    await revokeQuietly(key.id)
    expectError(await me(apiB, key.auth), 401, 'KEY_REVOKED')
  })

  it('is 409 KEY_ALREADY_REVOKED for the owner’s revoked key and 404 NOT_FOUND for another user’s key, an unknown id or a malformed id', async () => {
    const key = await createKey(api, alice.cookie, { scope: 'read' })
    expectError(await del(api, `/perps/me/api-keys/${key.id}`, bob.cookie), 404, 'NOT_FOUND')
    expect((await me(api, key.auth)).status).toBe(200) // bob's attempt did nothing
    expectError(await del(api, '/perps/me/api-keys/svc_kid_0000000000000000', alice.cookie), 404, 'NOT_FOUND')
    expectError(await del(api, '/perps/me/api-keys/nonsense', alice.cookie), 404, 'NOT_FOUND')
    expect((await del(api, `/perps/me/api-keys/${key.id}`, alice.bearer)).status).toBe(200)
    const again = await del(api, `/perps/me/api-keys/${key.id}`, alice.cookie)
    expectError(again, 409, 'KEY_ALREADY_REVOKED')
    expect(again.body.details).toEqual({ revokedAt: expect.stringMatching(ISO) })
    const gql = await api.graphql('mutation ($id: String!) { revokeApiKey(id: $id) { id } }', { id: key.id }, alice.bearer)
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'KEY_ALREADY_REVOKED', status: 409 })
    const { rows } = await ex.pool.query(`SELECT count(*)::int AS n FROM api_key_audit WHERE "keyId" = $1 AND action = 'revoke'`, [key.id])
    expect(rows[0].n).toBe(1)
  })

  it('works as the GraphQL revokeApiKey mutation', async () => {
    const key = await createKey(api, bob.cookie, { scope: 'trade' })
    const res = await api.graphql('mutation ($id: String!) { revokeApiKey(id: $id) { id status revokedAt } }', { id: key.id }, bob.bearer)
    expect(res.body.data.revokeApiKey).toEqual({ id: key.id, status: 'REVOKED', revokedAt: expect.stringMatching(ISO) })
    expectError(await orderPath(api, key.auth), 401, 'KEY_REVOKED')
  })

  it('puts a revocation a node learns from the marker alone before its other refusals (IP allowlist, scope)', async () => {
    const remote = await createKey(api, alice.cookie, { scope: 'trade', allowedIps: ['10.9.9.9'] })
    const read = await createKey(api, alice.cookie, { scope: 'read' })
    // Node B caches both keys while refusing them for what it knows in-process.
    expectError(await orderPath(apiB, remote.auth), 403, 'IP_NOT_ALLOWED')
    expectError(await orderPath(apiB, read.auth), 403, 'SCOPE_INSUFFICIENT')
    for (const key of [remote, read]) {
      await revokeQuietly(key.id)
    }
    expectError(await orderPath(apiB, remote.auth), 401, 'KEY_REVOKED')
    expectError(await orderPath(apiB, read.auth), 401, 'KEY_REVOKED')
  })

  it('refuses a cached trade key on the order path once its marker is set', async () => {
    const key = await createKey(api, alice.cookie, { scope: 'trade' })
    expect((await orderPath(apiB, key.auth)).status).toBe(200)
    await revokeQuietly(key.id)
    expectError(await orderPath(apiB, key.auth), 401, 'KEY_REVOKED')
    expectError(await me(apiB, key.auth), 401, 'KEY_REVOKED')
  })

  it('checks revocation before the IP allowlist', async () => {
    const key = await createKey(api, alice.cookie, { scope: 'read', allowedIps: ['10.9.9.9'] })
    await del(api, `/perps/me/api-keys/${key.id}`, alice.cookie)
    expectError(await me(api, key.auth), 401, 'KEY_REVOKED')
  })
})

describe('expired, forged and malformed keys', () => {
  it('refuses an expired key with 401 INVALID_TOKEN and lists it as expired', async () => {
    const key = await createKey(api, alice.cookie, { scope: 'trade', expiresInDays: 1, allowedIps: ['10.9.9.9'] })
    await ex.pool.query(`UPDATE api_keys SET "expiresAt" = $2 WHERE id = $1`, [key.id, new Date(testClock.now() - 1_000)])
    const res = await me(api, key.auth)
    expectError(res, 401, 'INVALID_TOKEN') // expiry is checked before the allowlist
    expect(res.body.message).toMatch(/expired/)
    expect((await listKeys(alice.cookie)).find((k) => k.id === key.id).status).toBe('expired')
  })

  it.each([
    ['a well-formed secret that was never issued', () => `svc_sk_${randomBytes(32).toString('base64url').replace(/[-_]/g, 'A').slice(0, 43)}`],
    ['a secret that is too short', () => 'svc_sk_abc'],
    ['a secret with characters outside base62', () => `svc_sk_${'-'.repeat(43)}`],
    ['a key id sent as the secret', () => 'svc_kid_0000000000000000'],
    ['a real secret with its last character changed', () => '__tampered__'],
  ])('refuses %s: 401 INVALID_TOKEN', async (_name, make) => {
    let secret = make()
    if (secret === '__tampered__') {
      const k = await createKey(api, alice.cookie, { scope: 'read' })
      secret = k.secret.slice(0, -1) + (k.secret.endsWith('a') ? 'b' : 'a')
    }
    expectError(await me(api, { authorization: `Bearer ${secret}` }), 401, 'INVALID_TOKEN')
    expectError(await orderPath(api, { authorization: `Bearer ${secret}` }), 401, 'INVALID_TOKEN')
  })
})

describe('IP allowlist', () => {
  it('admits a key from a listed address and refuses it elsewhere: 403 IP_NOT_ALLOWED', async () => {
    const local = await createKey(api, alice.cookie, { scope: 'trade', allowedIps: ['10.0.0.1', '127.0.0.1'] })
    expect((await orderPath(api, local.auth)).status).toBe(200)
    const remote = await createKey(api, alice.cookie, { scope: 'trade', allowedIps: ['10.1.2.3'] })
    expectError(await orderPath(api, remote.auth), 403, 'IP_NOT_ALLOWED')
    expectError(await me(api, remote.auth), 403, 'IP_NOT_ALLOWED')
  })

  it('is not bypassed by X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    const remote = await createKey(api, alice.cookie, { scope: 'trade', allowedIps: ['10.1.2.3'] })
    for (const xff of ['10.1.2.3', '10.1.2.3, 127.0.0.1', '127.0.0.1, 10.1.2.3']) {
      expectError(await orderPath(api, { ...remote.auth, 'x-forwarded-for': xff }), 403, 'IP_NOT_ALLOWED')
    }
  })

  it('uses X-Forwarded-For when the peer is a trusted proxy', async () => {
    const remote = await createKey(api, alice.cookie, { scope: 'trade', allowedIps: ['10.1.2.3'] })
    expect((await orderPath(apiProxy, { ...remote.auth, 'x-forwarded-for': '10.1.2.3' })).status).toBe(200)
    expectError(await orderPath(apiProxy, { ...remote.auth, 'x-forwarded-for': '10.9.9.9' }), 403, 'IP_NOT_ALLOWED')
    // Without the header the trusted proxy itself (127.0.0.1) is the client.
    expectError(await orderPath(apiProxy, remote.auth), 403, 'IP_NOT_ALLOWED')
    await behindProxy.services.identity.keyAuth.idle()
    expect((await listKeys(alice.cookie)).find((k) => k.id === remote.id).lastUsedIp).toBe('10.1.2.3')
  })
})

describe('usage tracking and audit', () => {
  it('records lastUsedAt/lastUsedIp and one audit row per create, use and revoke, with IP and user agent', async () => {
    const ua = { 'user-agent': 'audit-test/1.0' }
    const res = await api.post('/perps/me/api-keys', { name: 'audited', scope: 'read' }, { ...alice.cookie, ...ua })
    const key = { id: res.body.id, auth: { authorization: `Bearer ${res.body.secret}` } }
    const before = testClock.now()
    for (let i = 0; i < 3; i++) expect((await me(api, { ...key.auth, ...ua })).status).toBe(200)
    await ex.services.identity.keyAuth.idle()
    const listed = (await listKeys(alice.cookie)).find((k) => k.id === key.id)
    expect(listed.lastUsedIp).toBe('127.0.0.1')
    expect(Date.parse(listed.lastUsedAt)).toBeGreaterThanOrEqual(before - 1_000)
    await del(api, `/perps/me/api-keys/${key.id}`, { ...alice.cookie, ...ua })
    const { rows } = await ex.pool.query(
      'SELECT action, "userId", ip, "userAgent", at FROM api_key_audit WHERE "keyId" = $1 ORDER BY id',
      [key.id],
    )
    // Use is throttled to one row a minute per node: three calls, one row.
    expect(rows.map((r) => r.action)).toEqual(['create', 'use', 'revoke'])
    for (const r of rows) expect(r).toMatchObject({ userId: alice.user.id, ip: '127.0.0.1', userAgent: 'audit-test/1.0', at: expect.any(Date) })
  })

  it('keeps serving when the usage write fails', async () => {
    const key = await createKey(api, alice.cookie, { scope: 'read' })
    await ex.pool.query('ALTER TABLE api_key_audit RENAME TO api_key_audit_gone')
    try {
      expect((await me(apiB, key.auth)).status).toBe(200)
      await nodeB.services.identity.keyAuth.idle()
    } finally {
      await ex.pool.query('ALTER TABLE api_key_audit_gone RENAME TO api_key_audit')
    }
    expect(nodeB.logs.some((l) => l.includes('could not record API key use'))).toBe(true)
  })
})

describe('secrets stay secret', () => {
  it('shows no key secret or session JWT in any listing, error body or log line', async () => {
    expect(secrets.size).toBeGreaterThan(20)
    expect(tokens.size).toBeGreaterThanOrEqual(2)
    await Promise.all([ex, nodeB, behindProxy].map((n) => n.services.identity.keyAuth.idle()))
    const logs = [...ex.logs, ...nodeB.logs, ...behindProxy.logs].join('\n')
    expect(logs.length).toBeGreaterThan(0)
    for (const secret of [...secrets, ...tokens]) {
      expect(logs).not.toContain(secret)
      const showing = responses.filter((r) => r.text.includes(secret))
      expect(showing.every((r) => r.mayShowSecrets), `a response other than its creation shows ${secret.slice(0, 12)}…`).toBe(true)
    }
    // Error bodies were recorded too (every 4xx above went through the same recorder).
    expect(responses.length).toBeGreaterThan(100)
    expect(responses.filter((r) => r.text.includes('"code":"')).length).toBeGreaterThan(40)
  })
})

