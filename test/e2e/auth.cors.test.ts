// Cross-origin requests over real HTTP: the service domain, its subdomains and configured partners get
// CORS headers with credentials (preflight and actual requests); every other origin gets none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKey, signIn } from '../support/auth.js'
import { startTestExchange, type TestExchange } from '../support/exchange.js'
import { http, type Http, type HttpResult } from '../support/http.js'

let ex: TestExchange
let api: Http

beforeAll(async () => {
  ex = await startTestExchange({
    ROLES: 'api,engine,scheduler',
    SERVICE_DOMAIN: 'example.com',
    CORS_ORIGINS: 'https://partner.io,https://desk.partner.net:8443',
  })
  api = http(ex.url!)
})
afterAll(() => ex?.close())

const ALLOWED = [
  'https://example.com',
  'https://app.example.com',
  'https://deep.app.example.com',
  'https://app.example.com:8443',
  'https://partner.io',
  'https://desk.partner.net:8443',
]
const REFUSED = [
  'https://evil.com',
  'https://example.com.evil.com',
  'https://notexample.com',
  'https://partner.io.evil.com',
  'https://desk.partner.net',
  'https://sub.partner.io',
  'null',
]

const preflight = (origin: string, method = 'POST') =>
  api.request('OPTIONS', '/perps/me/api-keys', {
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'content-type,authorization' },
  })

const corsHeaders = (r: HttpResult) => ({
  origin: r.headers.get('access-control-allow-origin'),
  credentials: r.headers.get('access-control-allow-credentials'),
})

describe('allowed origins', () => {
  it.each(ALLOWED)('%s passes preflight with credentials, methods and headers', async (origin) => {
    const res = await preflight(origin, 'DELETE')
    expect(res.status).toBe(204)
    expect(corsHeaders(res)).toEqual({ origin, credentials: 'true' })
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE')
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization')
    expect(res.headers.get('vary')).toMatch(/Origin/)
  })

  it('answers an OPTIONS without Access-Control-Request-Method as a preflight (204), not with a bare text/plain 400', async () => {
    const res = await api.request('OPTIONS', '/perps/me/api-keys', { headers: { origin: 'https://app.example.com' } })
    expect(res.status).toBe(204)
    expect(res.text).toBe('')
    expect(res.headers.get('x-correlation-id')).toBeTruthy()
    expect(corsHeaders(res)).toEqual({ origin: 'https://app.example.com', credentials: 'true' })
  })

  it.each(ALLOWED)('%s gets its origin echoed on actual requests, with exposed headers', async (origin) => {
    const res = await api.get('/perps/markets', { origin })
    expect(res.status).toBe(200)
    expect(corsHeaders(res)).toEqual({ origin, credentials: 'true' })
    const exposed = res.headers.get('access-control-expose-headers')!
    for (const h of ['X-Correlation-Id', 'Retry-After', 'X-RateLimit-Remaining']) expect(exposed).toContain(h)
  })

  it('carries the session cookie cross-origin (what a subdomain front-end does)', async () => {
    const s = await signIn(api, ex.url!)
    const res = await api.get('/auth/me', { origin: 'https://app.example.com', ...s.cookie })
    expect(res.status).toBe(200)
    expect(corsHeaders(res)).toEqual({ origin: 'https://app.example.com', credentials: 'true' })
    const key = await createKey(api, s.cookie, { scope: 'trade' })
    const order = await api.post('/test/order-path', {}, { origin: 'https://partner.io', ...key.auth })
    expect([order.status, corsHeaders(order).origin]).toEqual([200, 'https://partner.io'])
  })

  it('adds CORS headers to error responses too, so the browser can read the code', async () => {
    const res = await api.get('/auth/me', { origin: 'https://app.example.com' })
    expect(res.status).toBe(401)
    expect(corsHeaders(res).origin).toBe('https://app.example.com')
  })
})

describe('refused origins', () => {
  it.each(REFUSED)('%s gets no CORS headers on preflight or request', async (origin) => {
    const pre = await preflight(origin)
    expect(corsHeaders(pre)).toEqual({ origin: null, credentials: null })
    const res = await api.get('/perps/markets', { origin })
    expect(res.status).toBe(200) // the browser, not the server, withholds the body
    expect(corsHeaders(res)).toEqual({ origin: null, credentials: null })
  })

  it('gives a request without Origin (not a browser) no CORS headers', async () => {
    expect(corsHeaders(await api.get('/perps/markets'))).toEqual({ origin: null, credentials: null })
  })
})
