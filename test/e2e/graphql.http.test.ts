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

// A document runs with graphql-js the first time and compiled by graphql-jit from the second
// (src/graphql/compiledExecution.ts): the answers must not tell the two apart.
describe('a document run again (compiled) answers as the first time', () => {
  const run = (query: string, variables?: Record<string, unknown>) =>
    h.api.request('POST', '/graphql', {
      raw: JSON.stringify({ query, variables }),
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-correlation-id': 'gql-compiled-0001' },
    })

  it.each([
    ['data', '{ markets(first: 2) { edges { node { marketId type } } } }', undefined],
    ['a resolver error, with its locations and path', 'query NotFound { __typename\n  orderbook(marketId: "NOPE") { sequence } }', undefined],
    ['a partial result: me refused without a credential', '{ markets(first: 1) { edges { node { marketId } } } me { id } }', undefined],
    ['a mutation refused without a credential', 'mutation { cancelOrder(id: "x", kind: LINEAR) { id } }', undefined],
    ['variables that do not coerce', 'query Q($n: Int!) { markets(first: $n) { edges { node { marketId } } } }', { n: 'two' }],
    ['a missing variable', 'query Q($n: Int!) { markets(first: $n) { edges { node { marketId } } } }', {}],
  ])('%s', async (_name, query, variables) => {
    const first = await run(query, variables)
    for (let i = 0; i < 2; i++) {
      const again = await run(query, variables)
      expect(again.status).toBe(first.status)
      expect(again.text).toBe(first.text)
    }
    expect(first.text).toMatch(/"data"|"errors"/)
  })
})
