// GraphQL request errors over real HTTP: whatever a client sends to /graphql (too deep to parse, broken
// GET parameters, malformed bodies, unknown operations, unsupported media types) is answered with the
// spec's code INVALID_REQUEST, never a 500 and never a null body, and carries the correlation id.
import { getIntrospectionQuery } from 'graphql'
import { describe, expect, it } from 'vitest'
import { exchangeFor } from '../support/exchange.js'
import type { HttpResult } from '../support/http.js'

const h = exchangeFor()

/** A GraphQL error response: the HTTP status, and errors[0] with INVALID_REQUEST and our extensions. */
function expectRequestError(res: HttpResult, status: number): void {
  expect(res.status, res.text).toBe(status)
  expect(res.headers.get('content-type')).toMatch(/json/)
  const corr = res.headers.get('x-correlation-id')
  expect(corr).toBeTruthy()
  expect(res.body.data).toBeUndefined()
  expect(res.body.errors).toHaveLength(1)
  expect(res.body.errors[0].extensions, res.text).toEqual({ code: 'INVALID_REQUEST', status, correlationId: corr })
  expect(res.body.errors[0].message).toEqual(expect.any(String))
  expect(res.text).not.toMatch(/call stack|JSON\.parse|Unexpected token|BAD_REQUEST|GRAPHQL_PARSE_FAILED|OPERATION_RESOLUTION_FAILURE/)
}

const post = (body: unknown, headers: Record<string, string> = {}) =>
  h.api.request('POST', '/graphql', { raw: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } })

describe('documents too deep to parse', () => {
  it.each([
    ['a 2,000-deep list argument', `query { market(id: ${'['.repeat(2000)}"x"${']'.repeat(2000)}) { id } }`],
    ['a 5,000-deep object argument', `query { market(id: ${'{a:'.repeat(5000)}1${'}'.repeat(5000)}) { id } }`],
    ['3,000 nested inline fragments', `query { ${'... on Query { '.repeat(3000)}__typename${' }'.repeat(3000)} }`],
  ])('refuses %s with 400 INVALID_REQUEST', async (_name, query) => {
    const res = await post({ query }, { 'x-correlation-id': 'gql-deep-0001' })
    expectRequestError(res, 400)
    expect(res.body.errors[0].message).toMatch(/nested more than 100 levels/)
    expect(res.headers.get('x-correlation-id')).toBe('gql-deep-0001')
    // and the server still answers
    expect((await h.api.graphql('{ __typename }')).body).toEqual({ data: { __typename: 'Query' } })
  })

  it('refuses a document of more than 5,000 tokens, and admits one nested 100 levels', async () => {
    expectRequestError(await post({ query: `{${' _'.repeat(6000)} }` }), 400)
    const res = await post({ query: `query { market(id: ${'['.repeat(98)}"x"${']'.repeat(98)}) { id } }` })
    // parsed, then refused by argument coercion (a list is no String), not by the parser
    expect(res.body.errors[0].extensions.code).toBe('INVALID_REQUEST')
    expect(res.body.errors[0].message).not.toMatch(/nested|tokens|Syntax/)
  })

  it('still parses a large legitimate document (the introspection query)', async () => {
    const res = await h.api.graphql(getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }))
    expect(res.status).toBe(200)
    expect(res.body.errors).toBeUndefined()
    expect(res.body.data.__schema.queryType.name).toBe('Query')
  })
})

describe('GET with broken parameters', () => {
  it.each([
    ['variables', '/graphql?query=%7B+__typename+%7D&variables=%7Bbad'],
    ['extensions', '/graphql?query=%7B+__typename+%7D&extensions=%7Bbad'],
  ])('refuses invalid JSON in %s with 400 INVALID_REQUEST', async (_name, path) => {
    expectRequestError(await h.api.get(path, { accept: 'application/json' }), 400)
  })
})

describe('request errors carry INVALID_REQUEST and the project extensions', () => {
  it('a syntax error', async () => {
    expectRequestError(await post({ query: '{' }), 400)
  })

  it('a query that is not a string, and no query at all', async () => {
    expectRequestError(await post({ query: 5 }), 400)
    expectRequestError(await post({}), 400)
  })

  it('variables that are not an object', async () => {
    expectRequestError(await post({ query: '{ __typename }', variables: 'string' }), 400)
  })

  it('a batched array body', async () => {
    expectRequestError(await post([{ query: '{ __typename }' }, { query: '{ __typename }' }]), 400)
  })

  it('an unknown operationName', async () => {
    expectRequestError(await post({ query: 'query A { __typename }', operationName: 'B' }), 400)
  })

  it('a mutation over GET: 405 with Allow: POST', async () => {
    const res = await h.api.get(`/graphql?query=${encodeURIComponent('mutation { cancelAllAfter(timeoutMs: 0) { timeoutMs } }')}`, { accept: 'application/json' })
    expectRequestError(res, 405)
    expect(res.headers.get('allow')).toBe('POST')
  })

  it('variables that do not coerce: every one reported by execution, with its location, not refused by the cost check', async () => {
    const res = await h.api.graphql('query Q($n: Int!, $m: Int!) {\n  a: markets(first: $n) { edges { node { marketId } } }\n  b: markets(first: $m) { edges { node { marketId } } } }', { n: 'two', m: 'three' })
    expect(res.body.data).toBeUndefined()
    expect(res.body.errors.map((e: { message: string; locations: unknown; extensions: { code: string } }) => [e.message, e.locations, e.extensions.code])).toEqual([
      [expect.stringMatching(/^Variable "\$n" got invalid value "two"/), [{ line: 1, column: 9 }], 'INVALID_REQUEST'],
      [expect.stringMatching(/^Variable "\$m" got invalid value "three"/), [{ line: 1, column: 19 }], 'INVALID_REQUEST'],
    ])
  })

  it('keeps the established shapes: validation and coercion errors, with each request\'s own correlation id', async () => {
    for (const id of ['gql-valid-0001', 'gql-valid-0002']) {
      const bad = await h.api.graphql('{ markets { edges { node { nope } } } }', undefined, { 'x-correlation-id': id })
      expect(bad.body.errors[0].extensions).toEqual({ code: 'INVALID_REQUEST', status: 400, correlationId: id })
    }
    for (const id of ['gql-parse-0001', 'gql-parse-0002']) {
      const bad = await post({ query: '{' }, { 'x-correlation-id': id })
      expect(bad.body.errors[0].extensions.correlationId).toBe(id)
    }
    const notFound = await h.api.graphql('{ orderbook(marketId: "NOPE") { sequence } }')
    expect(notFound.body.errors[0].extensions).toMatchObject({ code: 'MARKET_NOT_FOUND', status: 404 })
  })
})

describe('media types yoga does not serve', () => {
  const body = JSON.stringify({ query: '{ __typename }' })

  it.each([
    ['text/plain', { 'content-type': 'text/plain' }],
    ['text/plain with a charset', { 'content-type': 'text/plain;charset=UTF-8' }],
  ])('refuses a %s body with 415 and the spec error body', async (_name, headers) => {
    const res = await h.api.request('POST', '/graphql', { raw: body, headers: { ...headers, 'x-correlation-id': 'gql-media-0001' } })
    expect(res.status).toBe(415)
    expect(res.body).toEqual({ error: 'RequestError', code: 'INVALID_REQUEST', message: expect.any(String) })
    expect(res.headers.get('content-type')).toMatch(/application\/json/)
    expect(res.headers.get('x-correlation-id')).toBe('gql-media-0001')
  })

  it('refuses a POST without a content type with the spec error body', async () => {
    const bare = await fetch(new URL('/graphql', h.ex.url!), { method: 'POST' })
    expect(bare.status).toBe(415)
    expect(await bare.json()).toEqual({ error: 'RequestError', code: 'INVALID_REQUEST', message: expect.any(String) })
    expect(bare.headers.get('x-correlation-id')).toBeTruthy()
    // with a body, Fastify refuses it before yoga (src/http/errors.ts), in the same shape
    const res = await fetch(new URL('/graphql', h.ex.url!), { method: 'POST', body: new TextEncoder().encode(body) })
    expect(res.status).toBeGreaterThanOrEqual(400)
    expect(await res.json()).toEqual({ error: 'RequestError', code: 'INVALID_REQUEST', message: expect.any(String) })
    expect(res.headers.get('x-correlation-id')).toBeTruthy()
  })

  it.each(['text/html', 'application/xml'])('answers Accept: %s with 406 and the spec error body', async (accept) => {
    const res = await h.api.request('POST', '/graphql', { raw: body, headers: { 'content-type': 'application/json', accept, 'x-correlation-id': 'gql-media-0002' } })
    expect(res.status).toBe(406)
    expect(res.body).toEqual({ error: 'RequestError', code: 'INVALID_REQUEST', message: expect.any(String) })
    expect(res.headers.get('content-type')).toMatch(/application\/json/)
    expect(res.headers.get('x-correlation-id')).toBe('gql-media-0002')
  })
})
