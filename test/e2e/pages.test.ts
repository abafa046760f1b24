// The pages a person opens work without internet. GraphiQL at GET /graphql loads its script, styles and
// editor workers from this server (the pinned @graphql-yoga/render-graphiql build), and the REST
// reference at /docs its Swagger UI (src/http/docs.ts). In a real browser (Debian's Chromium, headless)
// with the network cut off from everything but the exchange, GraphiQL renders, loads the schema and runs
// a query, and /docs renders the OpenAPI document's operations. Screenshots land in test-artifacts/.
import { describe, expect, it } from 'vitest'
import { GRAPHIQL_ASSETS } from '../../src/graphql/graphiql.js'
import { browserFor, WAIT_MS } from '../support/browser.js'
import { exchangeFor } from '../support/exchange.js'
import { pushBtcCurve } from '../support/marks.js'

const h = exchangeFor({ MARK_STALE_MS: '3600000' }, (api) => pushBtcCurve(api, '95000'))
const chrome = browserFor()

describe('the GraphiQL page and its assets over HTTP', () => {
  it('names no other host: every script, style, icon and worker is a path on this server', async () => {
    const res = await h.api.get('/graphql', { accept: 'text/html' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/html/)
    expect(res.text).not.toMatch(/\/\/[a-z0-9.-]+\.[a-z]{2,}\//i) // no absolute URL of any host
    const referenced = [...res.text.matchAll(/(?:src|href)="([^"]+)"|"(\/graphiql-assets\/[^"]+)"/g)].map((m) => m[1] ?? m[2])
    expect(referenced.sort()).toEqual(
      ['editor.worker.js', 'favicon.ico', 'graphiql.css', 'graphiql.js', 'graphql.worker.js', 'json.worker.js'].map((f) => `${GRAPHIQL_ASSETS}/${f}`),
    )
  })

  it.each([
    ['graphiql.js', /^text\/javascript/, 'YogaGraphiQL'],
    ['graphiql.css', /^text\/css/, '.graphiql-container'],
    ['editor.worker.js', /^text\/javascript/, ''],
    ['json.worker.js', /^text\/javascript/, ''],
    ['graphql.worker.js', /^text\/javascript/, ''],
    ['favicon.ico', /^image\/x-icon/, ''],
  ])('serves %s, cacheable for good, gzipped when asked', async (file, type, contains) => {
    const url = `${h.ex.url}${GRAPHIQL_ASSETS}/${file}`
    const plain = await fetch(url, { headers: { 'accept-encoding': 'identity' } })
    expect(plain.status).toBe(200)
    expect(plain.headers.get('content-type')).toMatch(type)
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(plain.headers.get('content-encoding')).toBeNull()
    const body = Buffer.from(await plain.arrayBuffer())
    expect(body.length).toBeGreaterThan(1000)
    expect(body.toString('latin1')).toContain(contains)
    // fetch inflates it: a valid gzip stream of the same bytes.
    const zipped = await fetch(url, { headers: { 'accept-encoding': 'gzip' } })
    expect(zipped.headers.get('content-encoding')).toBe('gzip')
    expect(Buffer.from(await zipped.arrayBuffer()).equals(body)).toBe(true)
    if (file === 'favicon.ico') expect(body.subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0]))
  })

  it.each(['nope.js', 'constructor', '__proto__', 'toString'])('answers %s, not an asset, with 404 NOT_FOUND', async (file) => {
    const res = await h.api.get(`${GRAPHIQL_ASSETS}/${file}`)
    expect(res.status).toBe(404)
    expect(res.body).toMatchObject({ code: 'NOT_FOUND' })
  })
})

describe('GraphiQL in a browser without internet', () => {
  it("renders from the server's assets, loads the schema and runs its default query", async () => {
    const tab = await chrome.open(h.ex.url!)
    await tab.page.goto(`${h.ex.url}/graphql`)
    await tab.page.locator('.graphiql-container').first().waitFor()
    await tab.page.locator('.graphiql-query-editor .monaco-editor').first().waitFor()
    await tab.page.locator('.graphiql-execute-button').first().click()
    // Monaco lays text out with non-breaking spaces.
    const response = async () => (await tab.page.locator('.graphiql-response').first().innerText()).replace(/\s+/g, ' ')
    await expect.poll(response, { timeout: WAIT_MS }).toContain('"marketId": "BTC-PERP", "type": "PERPETUAL", "mark": { "price": "95000" }')
    await tab.screenshot('graphiql')
    // The schema came through introspection: the documentation explorer lists the root types.
    await tab.page.getByLabel('Show Documentation Explorer').click()
    await tab.page.locator('.graphiql-doc-explorer').getByText('Subscription', { exact: true }).waitFor()
    expect(tab.blocked).toEqual([])
    expect(tab.errors).toEqual([])
  })
})

describe('the REST reference at /docs in a browser without internet', () => {
  it('renders every tag of /openapi.json and opens an operation with its schema', async () => {
    const tab = await chrome.open(h.ex.url!)
    await tab.page.goto(`${h.ex.url}/docs`)
    await tab.page.locator('.swagger-ui .info .title').getByText('Exchange API').waitFor()
    const doc = (await h.api.get('/openapi.json')).body as { tags?: Array<{ name: string }>; paths: Record<string, Record<string, { tags: string[] }>> }
    const tags = new Set(Object.values(doc.paths).flatMap((ops) => Object.values(ops).flatMap((op) => op.tags)))
    for (const tag of tags) await tab.page.locator(`.opblock-tag[data-tag="${tag}"]`).waitFor()
    // The order placement, expanded: its request body's schema is drawn from the document.
    const place = tab.page.locator('.opblock-post:has(.opblock-summary-path[data-path="/perps/orders"])')
    await place.locator('.opblock-summary').click()
    await place.locator('.opblock-body').getByText('clientOrderId').first().waitFor()
    await place.scrollIntoViewIfNeeded()
    await tab.screenshot('docs')
    expect(tab.blocked).toEqual([])
    expect(tab.errors).toEqual([])
  })
})
