// How a single GraphQL result leaves over HTTP (src/http/app.ts sends it as its string, not as yoga's
// stream): the media type the client asked for with its charset, a Content-Length that counts the
// bytes (non-ASCII included) and the whole body, errors included; a subscription over SSE still streams.
import { describe, expect, it } from 'vitest'
import { exchangeFor } from '../support/exchange.js'

const h = exchangeFor()

const post = (query: string, accept: string) =>
  h.api.request('POST', '/graphql', {
    raw: JSON.stringify({ query }),
    headers: { 'content-type': 'application/json', accept },
  })

describe('a single result over HTTP', () => {
  it.each([
    ['*/*', 'application/json; charset=utf-8'],
    ['application/json', 'application/json; charset=utf-8'],
    ['application/graphql-response+json', 'application/graphql-response+json; charset=utf-8'],
  ])('Accept %s: answered as %s, whole, with its length in bytes', async (accept, type) => {
    // a market id with non-ASCII characters: its error message repeats it
    const res = await post('{ __typename orderbook(marketId: "NÖPE-€") { sequence } }', accept)
    expect(res.headers.get('content-type')).toBe(type)
    expect(res.headers.get('transfer-encoding')).toBeNull()
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(res.text))
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'MARKET_NOT_FOUND', status: 404 })
  })

  it('a query with data', async () => {
    const res = await post('{ __typename }', 'application/json')
    expect(res.status).toBe(200)
    expect(res.text).toBe('{"data":{"__typename":"Query"}}')
    expect(res.headers.get('content-length')).toBe(String(res.text.length))
  })
})
