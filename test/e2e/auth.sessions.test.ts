// Sessions over real HTTP: the cookie and the JWT as credentials for REST and GraphQL, every way a
// session credential is refused (missing, malformed, forged, tampered, expired, logged out), logout
// on one API node ending the session on another, and public market data needing nothing.
import { SignJWT, decodeJwt } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEV_JWT_SECRET } from '../../src/config/env.js'
import { createKey, expectError, signIn, type SignedIn } from '../support/auth.js'
import { startTestExchange, type TestExchange } from '../support/exchange.js'
import { http, type Http } from '../support/http.js'
import { testClock } from '../support/clock.js'

let ex: TestExchange
let nodeB: TestExchange
let api: Http
let apiB: Http
let alice: SignedIn

beforeAll(async () => {
  ex = await startTestExchange({ ROLES: 'api,engine,scheduler' })
  nodeB = await startTestExchange({ ROLES: 'api' }, { db: ex.db, redisPrefix: ex.config.redisPrefix })
  api = http(ex.url!)
  apiB = http(nodeB.url!)
  alice = await signIn(api, ex.url!)
})
afterAll(async () => {
  await nodeB?.close()
  await ex?.close()
})

const mint = (claims: Record<string, unknown>, opts: { secret?: string; sub?: string; exp?: number | string; alg?: string } = {}) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: opts.alg ?? 'HS256' })
    .setIssuer('exchange-api')
    .setSubject(opts.sub ?? alice.user.id)
    .setIssuedAt(Math.floor(testClock.now() / 1000))
    .setExpirationTime(opts.exp ?? Math.floor(testClock.now() / 1000) + 3_600)
    .sign(new TextEncoder().encode(opts.secret ?? DEV_JWT_SECRET))

describe('a session as cookie or JWT', () => {
  it.each(['cookie', 'bearer'] as const)('identifies the user on REST and GraphQL (%s)', async (how) => {
    const headers = alice[how]
    const rest = await api.get('/auth/me', headers)
    expect(rest.status).toBe(200)
    expect(rest.body).toEqual({ id: alice.user.id, address: alice.wallet.address, rateTier: 1, createdAt: expect.any(String) })
    const gql = await api.graphql('{ me { id address rateTier } }', {}, headers)
    expect(gql.body).toEqual({ data: { me: { id: alice.user.id, address: alice.wallet.address, rateTier: 1 } } })
    // Any API node: the session lives in Redis, the JWT key is shared.
    expect((await apiB.get('/auth/me', headers)).body.id).toBe(alice.user.id)
  })

  it('carries the user, the session id and an expiry equal to the session lifetime in the JWT', () => {
    const claims = decodeJwt(alice.token)
    expect(claims).toMatchObject({ sub: alice.user.id, addr: alice.wallet.address, iss: 'exchange-api', sid: expect.any(String) })
    expect(claims.exp! - claims.iat!).toBe(7 * 86_400)
  })

  it('prefers the Authorization header when a cookie is sent too', async () => {
    const bob = await signIn(api, ex.url!)
    const res = await api.get('/auth/me', { ...alice.cookie, ...bob.bearer })
    expect(res.body.id).toBe(bob.user.id)
  })
})

describe('refused session credentials', () => {
  it('has no credential at all: 401 MISSING_CREDENTIAL on REST and GraphQL', async () => {
    expectError(await api.get('/auth/me'), 401, 'MISSING_CREDENTIAL')
    const gql = await api.graphql('{ me { id } }')
    expect(gql.body.data).toEqual({ me: null })
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'MISSING_CREDENTIAL', status: 401 })
  })

  it.each([
    ['a Basic header', 'Basic dXNlcjpwYXNz'],
    ['Bearer with no token', 'Bearer'],
    ['a token that is not a JWT', 'Bearer not-a-jwt'],
    ['a JWT with a broken payload', 'Bearer eyJhbGciOiJIUzI1NiJ9.!!!.abc'],
  ])('refuses %s: 401 INVALID_TOKEN', async (_name, authorization) => {
    expectError(await api.get('/auth/me', { authorization }), 401, 'INVALID_TOKEN')
  })

  it('refuses a garbage session cookie: 401 INVALID_TOKEN', async () => {
    expectError(await api.get('/auth/me', { cookie: 'session=garbage' }), 401, 'INVALID_TOKEN')
  })

  it('ignores cookies other than the session cookie', async () => {
    expectError(await api.get('/auth/me', { cookie: 'theme=dark' }), 401, 'MISSING_CREDENTIAL')
  })

  it('refuses a JWT signed with another secret, for a live session: 401 INVALID_TOKEN', async () => {
    const sid = decodeJwt(alice.token)['sid']
    const forged = await mint({ sid, addr: alice.user.address }, { secret: 'another-secret-of-at-least-thirty-two-chars' })
    expectError(await api.get('/auth/me', { authorization: `Bearer ${forged}` }), 401, 'INVALID_TOKEN')
  })

  it('refuses a tampered JWT (payload changed, signature kept): 401 INVALID_TOKEN', async () => {
    const bob = await signIn(api, ex.url!)
    const [header, payload, signature] = alice.token.split('.')
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString())
    const tampered = Buffer.from(JSON.stringify({ ...claims, sub: bob.user.id })).toString('base64url')
    expectError(await api.get('/auth/me', { authorization: `Bearer ${header}.${tampered}.${signature}` }), 401, 'INVALID_TOKEN')
  })

  it('refuses an unsigned JWT (alg none): 401 INVALID_TOKEN', async () => {
    const sid = decodeJwt(alice.token)['sid']
    const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url')
    const token = `${enc({ alg: 'none', typ: 'JWT' })}.${enc({ sid, sub: alice.user.id, iss: 'exchange-api', exp: 9_999_999_999 })}.`
    expectError(await api.get('/auth/me', { authorization: `Bearer ${token}` }), 401, 'INVALID_TOKEN')
  })

  it('refuses an expired JWT even while its session record lives: 401 INVALID_TOKEN', async () => {
    const sid = decodeJwt(alice.token)['sid']
    const expired = await mint({ sid, addr: alice.user.address }, { exp: Math.floor(testClock.now() / 1000) - 10 })
    const res = await api.get('/auth/me', { authorization: `Bearer ${expired}` })
    expectError(res, 401, 'INVALID_TOKEN')
    expect(res.body.message).toMatch(/expired/)
    // A correctly signed, unexpired JWT for the same session is accepted: only the expiry failed above.
    const fresh = await mint({ sid, addr: alice.user.address })
    expect((await api.get('/auth/me', { authorization: `Bearer ${fresh}` })).status).toBe(200)
  })

  it('refuses a JWT naming another user than its session: 401 INVALID_TOKEN', async () => {
    const bob = await signIn(api, ex.url!)
    const sid = decodeJwt(alice.token)['sid']
    const crossed = await mint({ sid, addr: bob.user.address }, { sub: bob.user.id })
    expectError(await api.get('/auth/me', { authorization: `Bearer ${crossed}` }), 401, 'INVALID_TOKEN')
  })
})

describe('POST /auth/logout', () => {
  it.each(['cookie', 'bearer'] as const)('ends the session for cookie and JWT alike, on every node (logout by %s)', async (how) => {
    const s = await signIn(api, ex.url!)
    expect((await apiB.get('/auth/me', s.bearer)).status).toBe(200)
    const res = await api.post('/auth/logout', {}, s[how])
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ message: expect.any(String) })
    const cleared = res.headers.getSetCookie()
    expect(cleared).toHaveLength(1)
    expect(cleared[0]).toMatch(/^session=;.*Max-Age=0/)
    for (const headers of [s.cookie, s.bearer]) {
      expectError(await api.get('/auth/me', headers), 401, 'INVALID_TOKEN')
      expectError(await apiB.get('/auth/me', headers), 401, 'INVALID_TOKEN')
    }
    expectError(await api.post('/auth/logout', {}, s[how]), 401, 'INVALID_TOKEN')
  })

  it('leaves the user’s other sessions alone', async () => {
    const first = await signIn(api, ex.url!)
    const second = await signIn(api, ex.url!, first.wallet)
    await api.post('/auth/logout', {}, first.cookie)
    expect((await api.get('/auth/me', second.cookie)).status).toBe(200)
  })

  it('cannot be called with an API key (403 SCOPE_INSUFFICIENT) or without a credential (401)', async () => {
    const key = await createKey(api, alice.cookie, { scope: 'trade' })
    expectError(await api.post('/auth/logout', {}, key.auth), 403, 'SCOPE_INSUFFICIENT')
    expectError(await api.post('/auth/logout', {}), 401, 'MISSING_CREDENTIAL')
  })

  it('works as the GraphQL signOut mutation', async () => {
    const s = await signIn(api, ex.url!)
    const res = await api.graphql('mutation { signOut }', {}, s.bearer)
    expect(res.body).toEqual({ data: { signOut: true } })
    expect(res.headers.getSetCookie()[0]).toMatch(/^session=;/)
    expectError(await api.get('/auth/me', s.cookie), 401, 'INVALID_TOKEN')
  })
})

describe('public market data', () => {
  it('needs no credential, and works with every valid credential and even a refused one', async () => {
    const read = await createKey(api, alice.cookie, { scope: 'read' })
    const trade = await createKey(api, alice.cookie, { scope: 'trade' })
    const credentials: Array<Record<string, string>> = [
      {},
      alice.cookie,
      alice.bearer,
      read.auth,
      trade.auth,
      { authorization: 'Bearer svc_sk_forged' },
      { cookie: 'session=expired' },
    ]
    for (const headers of credentials) {
      for (const path of ['/perps/markets', '/perps/orderbook/BTC-PERP', '/catalog/instruments']) {
        const res = await api.get(path, headers)
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(200)
        expect(res.headers.get('x-ratelimit-limit')).toBeNull()
      }
      const gql = await api.graphql('{ markets(first: 1) { edges { node { marketId } } } }', {}, headers)
      expect(gql.body.errors).toBeUndefined()
    }
  })

  it('reports a refused credential only where one is needed, in the same GraphQL operation', async () => {
    const res = await api.graphql('{ markets(first: 1) { edges { node { marketId } } } me { id } }', {}, { authorization: 'Bearer svc_sk_forged' })
    expect(res.body.data.me).toBeNull() // me is nullable: its error leaves the markets standing
    expect(res.body.data.markets.edges).toHaveLength(1)
    expect(res.body.errors).toHaveLength(1)
    expect(res.body.errors[0]).toMatchObject({ path: ['me'], extensions: { code: 'INVALID_TOKEN', status: 401 } })
  })
})
