// Sign-in with Ethereum over real HTTP: nonces, every message check with its code, users created on
// first sign-in, the session cookie's attributes, and the GraphQL signIn mutation. Messages are built
// with the `siwe` package and signed with real keys, as a wallet front-end does.
import { request as httpRequest } from 'node:http'
import { SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEV_JWT_SECRET } from '../../src/config/env.js'
import { cookiePair, expectError, hostOf, newWallet, nonce, signIn, siweMessage, verify } from '../support/auth.js'
import { startTestExchange, type TestExchange } from '../support/exchange.js'
import { http, ISO, type Http } from '../support/http.js'
import { testClock } from '../support/clock.js'

let ex: TestExchange
let api: Http
let base: string

beforeAll(async () => {
  ex = await startTestExchange({ ROLES: 'api,engine,scheduler' })
  base = ex.url!
  api = http(base)
})
afterAll(() => ex?.close())

const minutes = (n: number) => new Date(testClock.now() + n * 60_000).toISOString()

describe('GET /auth/nonce', () => {
  it('issues a fresh alphanumeric nonce valid for five minutes', async () => {
    const before = testClock.now()
    const a = await api.get('/auth/nonce')
    const b = await api.get('/auth/nonce')
    expect(a.status).toBe(200)
    expect(Object.keys(a.body).sort()).toEqual(['expiresAt', 'nonce'])
    expect(a.body.nonce).toMatch(/^[0-9A-Za-z]{16,}$/)
    expect(a.body.nonce).not.toBe(b.body.nonce)
    expect(a.body.expiresAt).toMatch(ISO)
    const ttl = Date.parse(a.body.expiresAt) - before
    expect(ttl).toBeGreaterThan(299_000)
    expect(ttl).toBeLessThanOrEqual(301_000)
  })
})

describe('POST /auth/verify', () => {
  it('signs in: token, expiry and user, with an HttpOnly, SameSite=Lax, Secure session cookie', async () => {
    const wallet = newWallet()
    const res = await verify(api, base, wallet)
    expect(res.status, res.text).toBe(200)
    expect(Object.keys(res.body).sort()).toEqual(['expiresAt', 'token', 'user'])
    expect(res.body.user).toEqual({ id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/), address: wallet.address })
    expect(res.body.token.split('.')).toHaveLength(3)
    const expiresAt = Date.parse(res.body.expiresAt)
    expect(Math.abs(expiresAt - (testClock.now() + 7 * 86_400_000))).toBeLessThan(60_000)

    const cookies = res.headers.getSetCookie()
    expect(cookies).toHaveLength(1)
    const attrs = cookies[0]!.split(';').map((s) => s.trim())
    expect(attrs[0]).toBe(`session=${res.body.token}`)
    expect(attrs).toEqual(expect.arrayContaining(['HttpOnly', 'Secure', 'SameSite=Lax', 'Path=/']))
    const expires = attrs.find((a) => a.startsWith('Expires='))!
    expect(Math.abs(Date.parse(expires.slice(8)) - expiresAt)).toBeLessThan(1_000)
  })

  it('creates the user on first sign-in only, keyed by the checksummed address', async () => {
    const wallet = newWallet()
    const first = await signIn(api, base, wallet)
    const second = await signIn(api, base, wallet)
    expect(second.user).toEqual(first.user)
    expect(second.token).not.toBe(first.token)
    const { rows } = await ex.pool.query('SELECT id, address, "rateTier" FROM users WHERE address = $1', [wallet.address])
    expect(rows).toEqual([{ id: first.user.id, address: wallet.address, rateTier: 1 }])
  })

  it('gives concurrent first sign-ins of one address the same user', async () => {
    const wallet = newWallet()
    const results = await Promise.all(Array.from({ length: 6 }, () => verify(api, base, wallet)))
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(200))
    expect(new Set(results.map((r) => r.body.user.id)).size).toBe(1)
    const { rows } = await ex.pool.query('SELECT count(*)::int AS n FROM users WHERE address = $1', [wallet.address])
    expect(rows[0].n).toBe(1)
  })

  it('refuses a nonce used once already: 400 NONCE_MISMATCH', async () => {
    const wallet = newWallet()
    const message = siweMessage(base, wallet.address, { nonce: await nonce(api) })
    const signature = await wallet.signMessage({ message })
    expect((await api.post('/auth/verify', { message, signature })).status).toBe(200)
    expectError(await api.post('/auth/verify', { message, signature }), 400, 'NONCE_MISMATCH')
  })

  it('refuses a nonce it never issued: 400 NONCE_MISMATCH', async () => {
    expectError(await verify(api, base, newWallet(), { nonce: 'abcdefgh12345678' }), 400, 'NONCE_MISMATCH')
  })

  it('spends the nonce of a failed attempt, so a forged signature cannot be retried with it', async () => {
    const wallet = newWallet()
    const n = await nonce(api)
    const message = siweMessage(base, wallet.address, { nonce: n })
    const forged = await newWallet().signMessage({ message })
    expectError(await api.post('/auth/verify', { message, signature: forged }), 401, 'INVALID_SIGNATURE')
    expectError(await api.post('/auth/verify', { message, signature: await wallet.signMessage({ message }) }), 400, 'NONCE_MISMATCH')
  })

  it.each([
    ['a signature by another key', 'signature', async (message: string) => newWallet().signMessage({ message })],
    ['a signature that is not 65 bytes', 'signature', async () => '0x1234'],
    ['a signature that recovers no address', 'signature', async () => `0x${'00'.repeat(65)}`],
  ])('refuses %s: 401 INVALID_SIGNATURE', async (_name, reason, sign) => {
    const wallet = newWallet()
    const message = siweMessage(base, wallet.address, { nonce: await nonce(api) })
    const res = await api.post('/auth/verify', { message, signature: await sign(message) })
    expectError(res, 401, 'INVALID_SIGNATURE')
    expect(res.body.details).toEqual({ reason })
  })

  it('refuses a message altered after signing: 401 INVALID_SIGNATURE', async () => {
    const wallet = newWallet()
    const message = siweMessage(base, wallet.address, { nonce: await nonce(api) })
    const signature = await wallet.signMessage({ message })
    const res = await api.post('/auth/verify', { message: message.replace('Sign in to the exchange', 'Sign in to the exchangf'), signature })
    expectError(res, 401, 'INVALID_SIGNATURE')
  })

  it.each([
    ['another domain', { domain: 'evil.example:443', uri: 'https://evil.example' }, 'domain'],
    ['a URI outside its domain', { uri: 'https://evil.example/login' }, 'uri'],
    ['another chain', { chainId: 1 }, 'chainId'],
    ['an expired message', { expirationTime: minutes(-1) }, 'expired'],
    ['a message issued in the future', { issuedAt: minutes(10) }, 'issuedAt'],
    ['a message not valid yet', { notBefore: minutes(10) }, 'notBefore'],
  ])('refuses %s: 401 INVALID_SIGNATURE without spending the nonce', async (_name, fields, reason) => {
    const wallet = newWallet()
    const n = await nonce(api)
    const res = await verify(api, base, wallet, { nonce: n, ...fields })
    expectError(res, 401, 'INVALID_SIGNATURE')
    expect(res.body.details).toEqual({ reason })
    // The nonce is still good for a correct message.
    expect((await verify(api, base, wallet, { nonce: n })).status).toBe(200)
  })

  it('accepts a message with a future expiry and a past notBefore', async () => {
    const res = await verify(api, base, newWallet(), { expirationTime: minutes(5), notBefore: minutes(-1) })
    expect(res.status, res.text).toBe(200)
  })

  it('never takes the domain from the Host header', async () => {
    const wallet = newWallet()
    const message = siweMessage(base, wallet.address, { nonce: await nonce(api), domain: 'evil.example', uri: 'http://evil.example' })
    const payload = JSON.stringify({ message, signature: await wallet.signMessage({ message }) })
    const { status, body } = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = httpRequest(
        new URL('/auth/verify', base),
        { method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
        (res) => {
          let text = ''
          res.on('data', (d) => (text += d))
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }))
        },
      )
      req.on('error', reject)
      req.end(payload)
    })
    expect([status, body.code, body.details]).toEqual([401, 'INVALID_SIGNATURE', { reason: 'domain' }])
  })

  it.each([
    ['a body that is not an object', '"hello"'],
    ['a missing signature', JSON.stringify({ message: 'x' })],
    ['a message that is not EIP-4361', JSON.stringify({ message: 'please let me in', signature: `0x${'11'.repeat(65)}` })],
    ['a message over 4 KiB', JSON.stringify({ message: 'x'.repeat(5_000), signature: `0x${'11'.repeat(65)}` })],
  ])('refuses %s: 400 INVALID_REQUEST', async (_name, raw) => {
    expectError(await api.request('POST', '/auth/verify', { raw, headers: { 'content-type': 'application/json' } }), 400, 'INVALID_REQUEST')
  })

  it('refuses an address that is not EIP-55 checksummed: 400 INVALID_REQUEST', async () => {
    const wallet = newWallet()
    const message = siweMessage(base, wallet.address, { nonce: await nonce(api) }).replace(wallet.address, wallet.address.toLowerCase())
    const res = await api.post('/auth/verify', { message, signature: await wallet.signMessage({ message }) })
    expectError(res, 400, 'INVALID_REQUEST')
    expect(res.body.message).toMatch(/EIP-55/)
  })

  it('refuses a malformed timestamp: 400 INVALID_REQUEST', async () => {
    const wallet = newWallet()
    const message = siweMessage(base, wallet.address, { nonce: await nonce(api) }).replace(/Issued At: .*/, 'Issued At: yesterday')
    expectError(await api.post('/auth/verify', { message, signature: await wallet.signMessage({ message }) }), 400, 'INVALID_REQUEST')
  })
})

describe('configured SIWE_DOMAINS', () => {
  let node: TestExchange
  beforeAll(async () => {
    node = await startTestExchange({ ROLES: 'api', SIWE_DOMAINS: 'app.example.com' }, { db: ex.db, redisPrefix: ex.config.redisPrefix })
  })
  afterAll(() => node?.close())

  it('accepts messages for the configured domain only, not the node’s own address', async () => {
    const other = http(node.url!)
    const ok = await verify(other, node.url!, newWallet(), { domain: 'app.example.com', uri: 'https://app.example.com/login' })
    expect(ok.status, ok.text).toBe(200)
    const own = await verify(other, node.url!, newWallet(), { domain: hostOf(node.url!) })
    expectError(own, 401, 'INVALID_SIGNATURE')
  })

  it('shares nonces and sessions with the other node (one Redis)', async () => {
    const other = http(node.url!)
    const n = await nonce(api)
    const res = await verify(other, node.url!, newWallet(), { nonce: n, domain: 'app.example.com', uri: 'https://app.example.com' })
    expect(res.status).toBe(200)
    expect((await api.get('/auth/me', { cookie: cookiePair(res) })).status).toBe(200)
  })
})

describe('GraphQL signInNonce and signIn', () => {
  it('signs in, sets the session cookie, and the token works as a Bearer JWT', async () => {
    const wallet = newWallet()
    const n = await api.graphql('mutation { signInNonce { nonce expiresAt } }')
    expect(n.body.errors).toBeUndefined()
    const message = siweMessage(base, wallet.address, { nonce: n.body.data.signInNonce.nonce })
    const signature = await wallet.signMessage({ message })
    const res = await api.graphql(
      'mutation ($m: String!, $s: String!) { signIn(message: $m, signature: $s) { token expiresAt user { id address rateTier } } }',
      { m: message, s: signature },
    )
    expect(res.body.errors).toBeUndefined()
    const session = res.body.data.signIn
    expect(session.user).toMatchObject({ address: wallet.address, rateTier: 1 })
    expect(cookiePair(res)).toBe(`session=${session.token}`)
    const me = await api.graphql('{ me { id address } }', {}, { authorization: `Bearer ${session.token}` })
    expect(me.body.data.me).toEqual({ id: session.user.id, address: wallet.address })
  })

  it('reports the sign-in codes in extensions', async () => {
    const wallet = newWallet()
    const message = siweMessage(base, wallet.address, { nonce: 'neverissued1234' })
    const res = await api.graphql('mutation ($m: String!, $s: String!) { signIn(message: $m, signature: $s) { token } }', {
      m: message,
      s: await wallet.signMessage({ message }),
    })
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'NONCE_MISMATCH', status: 400 })
  })

  it('cannot be fooled by a JWT minted for a session that never existed', async () => {
    const { user } = await signIn(api, base)
    const token = await new SignJWT({ sid: '01ARZ3NDEKTSV4RRFFQ69G5FAV', addr: user.address })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('exchange-api')
      .setSubject(user.id)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(DEV_JWT_SECRET))
    expectError(await api.get('/auth/me', { authorization: `Bearer ${token}` }), 401, 'INVALID_TOKEN')
  })
})
