// The API reference the server serves: /openapi.json is valid OpenAPI 3.1 (checked by an OpenAPI
// validator from npm), documents exactly the routes the server registers (every one, and nothing it
// does not serve), lists each operation's error codes; /docs is a page whose every asset this server
// serves, under a Content-Security-Policy that reaches nothing else. And the issue's example: a
// malformed body is 400 INVALID_REQUEST with details.issues.
import { Validator } from '@seriousme/openapi-schema-validator'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { registeredRoutes } from '../../src/http/app.js'
import { openApiPath } from '../../src/rest/openapi.js'
import { restRoutes } from '../../src/rest/routes.js'
import { WEBSOCKET_PATHS } from '../../src/streams/streamDocs.js'
import { expectError, signIn, type SignedIn } from '../support/auth.js'
import { startTestExchange, type TestExchange } from '../support/exchange.js'
import { http, type Http } from '../support/http.js'

let ex: TestExchange
let api: Http
let doc: any

beforeAll(async () => {
  ex = await startTestExchange({ ROLES: 'api' })
  api = http(ex.url!)
  const res = await api.get('/openapi.json')
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  doc = res.body
})
afterAll(() => ex?.close())

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const

/** `METHOD /path/{param}` of every operation in the document. */
const documented = () => Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) => METHODS.filter((m) => ops[m]).map((m) => `${m.toUpperCase()} ${path}`))

/** `METHOD /path/{param}` of every route Fastify has: HEAD (Fastify's own, beside each GET) and OPTIONS
 * (CORS preflights) are not operations of the API; /test/* are the test exchange's own (test/support). */
function registered(): string[] {
  const out = new Set<string>()
  for (const r of registeredRoutes(ex.http!)) {
    for (const method of [r.method].flat()) {
      if (method === 'HEAD' || method === 'OPTIONS' || r.url.startsWith('/test/')) continue
      out.add(`${method} ${openApiPath(r.url)}`)
    }
  }
  return [...out]
}

describe('/openapi.json', () => {
  it('is valid OpenAPI 3.1', async () => {
    expect(doc.openapi).toBe('3.1.0')
    const result = await new Validator().validate(doc)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
  })

  it('documents every registered route: REST, GraphQL, streams, operator, probes and the docs', () => {
    const routes = registered()
    expect(routes).toEqual(expect.arrayContaining(['GET /health', 'POST /graphql', 'GET /perps/book-stream', 'POST /admin/marks', 'GET /docs']))
    const missing = routes.filter((r) => !documented().includes(r))
    expect(missing).toEqual([])
  })

  it('documents nothing the server does not serve (WebSockets are served by upgrade, not by a route)', () => {
    const routes = registered()
    const extra = documented().filter((d) => !routes.includes(d))
    expect(extra.sort()).toEqual(WEBSOCKET_PATHS.map((p) => `GET ${p}`).sort())
    for (const p of WEBSOCKET_PATHS) expect(Object.keys(doc.paths[p].get.responses)).toContain('101')
  })

  it('has each REST route with its summary, tag, credential and request schemas', () => {
    for (const r of restRoutes) {
      const op = doc.paths[openApiPath(r.path)]?.[r.method.toLowerCase()]
      expect(op, `${r.method} ${r.path}`).toBeDefined()
      expect(op.summary).toBe(r.summary)
      expect(op.tags).toEqual([r.tag])
      expect(op.security.length === 0).toBe(r.auth === 'public')
      if (r.body) expect(op.requestBody.content['application/json'].schema.$ref).toMatch(/^#\/components\/schemas\//)
      for (const name of Object.keys(r.params?.shape ?? {})) expect(op.parameters).toContainEqual(expect.objectContaining({ name, in: 'path', required: true }))
    }
  })

  it('describes the order request from its schema and lists the error codes of the order path by status', () => {
    const op = doc.paths['/perps/orders'].post
    const body = doc.components.schemas[op.requestBody.content['application/json'].schema.$ref.split('/').pop()]
    expect(body.required).toEqual(['marketId', 'side', 'quantity'])
    expect(body.additionalProperties).toBe(false)
    expect(body.properties.timeInForce.anyOf[0].enum).toEqual(['gtc', 'ioc', 'fok'])
    const codes = (status: number) => op.responses[String(status)].content['application/json'].schema.allOf[1].properties.code.enum
    expect(codes(400)).toEqual(expect.arrayContaining(['INVALID_REQUEST', 'INVALID_MARKET_ID', 'INVALID_PRICE', 'INVALID_QUANTITY', 'INVALID_TIME_IN_FORCE']))
    expect(codes(401)).toEqual(expect.arrayContaining(['MISSING_CREDENTIAL', 'INVALID_TOKEN', 'KEY_REVOKED']))
    expect(codes(403)).toEqual(expect.arrayContaining(['SCOPE_INSUFFICIENT', 'IP_NOT_ALLOWED']))
    expect(codes(409)).toEqual(expect.arrayContaining(['MARKET_HALTED', 'DUPLICATE_CLIENT_ORDER_ID']))
    expect(codes(422)).toEqual(expect.arrayContaining(['INSUFFICIENT_MARGIN', 'STALE_MARK_PRICE', 'POST_ONLY_WOULD_CROSS']))
    expect(codes(429)).toEqual(['ORDER_RATE_LIMIT'])
    expect(op.responses['429'].headers['Retry-After']).toBeDefined()
    expect(op.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Order' })
    // A path id's own not-found code: 404, not 400.
    expect(doc.paths['/perps/orders/{id}/cancel'].post.responses['404'].content['application/json'].schema.allOf[1].properties.code.enum).toContain('ORDER_NOT_FOUND')
  })

  it('documents paged lists with limit, cursor and X-Next-Cursor', () => {
    const op = doc.paths['/perps/orders'].get
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(['limit', 'cursor', 'marketId', 'marginMode'])
    expect(op.responses['200'].headers['X-Next-Cursor']).toEqual({ $ref: '#/components/headers/XNextCursor' })
  })
})

describe('/docs', () => {
  it('is a page whose every asset this server serves, and which may reach nothing else', async () => {
    const page = await fetch(`${ex.url}/docs`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    const csp = page.headers.get('content-security-policy')!
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("connect-src 'self'")
    const html = await page.text()
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//)
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => new URL(m[1]!, `${ex.url}/docs`))
    expect(urls.map((u) => u.pathname).sort()).toEqual(['/docs/favicon-32x32.png', '/docs/init.js', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css'])
    for (const url of urls) {
      const res = await fetch(url)
      expect(res.status, url.pathname).toBe(200)
      expect((await res.arrayBuffer()).byteLength, url.pathname).toBeGreaterThan(100)
    }
    // The page loads the document from this server, and never asks an outside validator.
    const init = await (await fetch(`${ex.url}/docs/init.js`)).text()
    expect(init).toContain("url: 'openapi.json'")
    expect(init).toContain('validatorUrl: null')
    expect(new URL('openapi.json', `${ex.url}/docs`).pathname).toBe('/openapi.json')
  })

  it('serves no other file', async () => {
    expectError(await api.get('/docs/package.json'), 404, 'NOT_FOUND')
    expectError(await api.get('/docs/..%2Fpackage.json'), 404, 'NOT_FOUND')
  })
})

describe('request validation by the documented schemas', () => {
  let alice: SignedIn
  beforeAll(async () => {
    alice = await signIn(api, ex.url!)
  })

  it('answers a transfer without its fields 400 INVALID_REQUEST, each missing field in details.issues', async () => {
    const res = await api.post('/wallet/transfer', { amount: 5 }, alice.cookie)
    expectError(res, 400, 'INVALID_REQUEST')
    expect(res.body.details).toEqual({
      in: 'body',
      issues: [
        { path: ['from'], code: 'invalid_value', message: expect.any(String) },
        { path: ['to'], code: 'invalid_value', message: expect.any(String) },
        { path: ['amount'], code: 'invalid_type', message: expect.stringContaining('expected string') },
      ],
    })
  })

  it('keeps a field\'s own code, and judges several faults by the first in the documented order', async () => {
    const order = { marketId: 'BTC-PERP', side: 'buy', type: 'limit', price: '90000', quantity: '0.01' }
    const res = await api.post('/perps/orders', { ...order, price: 90000 }, alice.cookie)
    expectError(res, 400, 'INVALID_PRICE')
    expect(res.body.details.issues).toEqual([{ path: ['price'], code: 'invalid_type', message: expect.any(String) }])
    expectError(await api.post('/perps/orders', { ...order, quantity: 1, price: 2 }, alice.cookie), 400, 'INVALID_PRICE')
    expectError(await api.post('/perps/orders', { ...order, marketId: undefined, quantity: 1 }, alice.cookie), 400, 'INVALID_MARKET_ID')
    expectError(await api.post('/perps/orders', { ...order, side: 'long', quantity: 1 }, alice.cookie), 400, 'INVALID_REQUEST')
    expectError(await api.post('/perps/quotes', { marketId: 'BTC-PERP', bid: { price: '1', quantity: 1 } }, alice.cookie), 400, 'INVALID_QUANTITY')
    const unknown = await api.post('/perps/orders', { ...order, postonly: true }, alice.cookie)
    expectError(unknown, 400, 'INVALID_REQUEST')
    expect(unknown.body.details.issues).toEqual([expect.objectContaining({ code: 'unrecognized_keys', keys: ['postonly'] })])
  })

  it('checks queries the same way', async () => {
    const res = await api.get('/perps/orders?limit=500', alice.cookie)
    expectError(res, 400, 'INVALID_REQUEST')
    expect(res.body.details).toMatchObject({ in: 'query', issues: [{ path: ['limit'] }] })
    expectError(await api.get('/perps/orders?marketId=a&marketId=b', alice.cookie), 400, 'INVALID_REQUEST')
    expect((await api.get('/perps/orders?limit=', alice.cookie)).status).toBe(200)
  })
})
