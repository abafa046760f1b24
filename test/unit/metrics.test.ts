// The metric families' own rules, without a server: operation-name labels bounded against clients,
// readings taken at scrape time (shared by one scrape, bounded in time), the HTTP histogram's labels,
// and the slow-consumer counts of a WebSocket stream.
import { parse } from 'graphql'
import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import type { WebSocket } from 'ws'
import { ApiMetrics } from '../../src/metrics/apiMetrics.js'
import { GraphqlMetrics } from '../../src/metrics/graphqlMetrics.js'
import { scrapeReading } from '../../src/metrics/registry.js'
import { SocketFeed } from '../../src/streams/socketFeed.js'
import { deferred } from '../support/deferred.js'
import { parseMetrics } from '../support/metrics.js'

const page = async (r: Registry) => parseMetrics(await r.metrics())

describe('GraphQL operation labels', () => {
  it('name the operation by its document, anonymous without a name, and count only operations that run', async () => {
    const registry = new Registry()
    const m = new GraphqlMetrics([registry])
    const labels = m.operation('http', parse('mutation Place { placeOrder }'), undefined)
    expect(labels).toEqual({ transport: 'http', type: 'mutation', operation: 'Place' })
    m.operation('ws', parse('{ markets }'), null)
    // Two operations in a document: the one asked for.
    expect(m.operation('http', parse('query A { a } subscription B { b }'), 'B')).toEqual({ transport: 'http', type: 'subscription', operation: 'B' })
    expect(m.refused('http', parse('query Bad { nope }'), null)).toEqual({ transport: 'http', type: 'query', operation: 'Bad' })
    expect(m.refused('ws', null, 'Unparsed')).toEqual({ transport: 'ws', type: 'unknown', operation: 'Unparsed' })
    m.errored(labels, ['INSUFFICIENT_MARGIN', 'INSUFFICIENT_MARGIN', 'INVALID_REQUEST'])
    const p = await page(registry)
    expect(p.value('exchange_graphql_operations_total', { transport: 'ws', type: 'query', operation: 'anonymous' })).toBe(1)
    expect(p.find('exchange_graphql_operations_total', { operation: 'Bad' })).toEqual([])
    expect(p.value('exchange_graphql_errors_total', { operation: 'Place', code: 'INSUFFICIENT_MARGIN' })).toBe(2)
    expect(p.value('exchange_graphql_errors_total', { operation: 'Place', code: 'INVALID_REQUEST' })).toBe(1)
  })

  it('keep the first 200 distinct names; later ones are `other`, and a name that is no GraphQL name is `invalid`', () => {
    const m = new GraphqlMetrics([])
    for (let i = 0; i < 200; i++) expect(m.refused('http', null, `Op${i}`).operation).toBe(`Op${i}`)
    expect(m.refused('http', null, 'Op200').operation).toBe('other')
    expect(m.refused('http', null, 'Op7').operation).toBe('Op7')
    expect(new GraphqlMetrics([]).refused('http', null, 'not a name; DROP').operation).toBe('invalid')
    expect(new GraphqlMetrics([]).refused('http', null, `A${'b'.repeat(100)}`).operation).toBe('invalid')
  })
})

describe('scrapeReading', () => {
  it('shares one reading among the gauges of a scrape, and reads afresh at the next', async () => {
    let reads = 0
    const gate = deferred<number>()
    const read = scrapeReading(() => {
      reads++
      return gate.promise
    })
    const a = read()
    const b = read()
    gate.resolve(7)
    expect([await a, await b, reads]).toEqual([7, 7, 1])
    await read()
    expect(reads).toBe(2)
  })

  it('is null when the reading fails or outlasts its deadline, and the next scrape tries again', async () => {
    expect(await scrapeReading(() => Promise.reject(new Error('down')))()).toBeNull()
    const stuck = scrapeReading(() => new Promise<number>(() => {}), 20)
    expect(await stuck()).toBeNull()
    let n = 0
    const flaky = scrapeReading(async () => {
      if (n++ === 0) throw new Error('once')
      return n
    })
    expect([await flaky(), await flaky()]).toEqual([null, 2])
  })
})

describe('the api families', () => {
  it('label request latency by route pattern, method and status, in seconds', async () => {
    const registry = new Registry()
    const m = new ApiMetrics([registry])
    m.http.observe('/perps/orders/:id', 'DELETE', 200, 0.002)
    m.http.observe('/perps/orders/:id', 'DELETE', 200, 0.02)
    m.http.observe('/perps/orders/:id', 'DELETE', 404, 0.001)
    const p = await page(registry)
    const series = { route: '/perps/orders/:id', method: 'DELETE', status_code: '200' }
    expect(p.value('exchange_http_request_duration_seconds_count', series)).toBe(2)
    expect(p.value('exchange_http_request_duration_seconds_sum', series)).toBeCloseTo(0.022, 9)
    expect(p.value('exchange_http_request_duration_seconds_bucket', { ...series, le: '0.0025' })).toBe(1)
    expect(p.value('exchange_http_request_duration_seconds_count', { ...series, status_code: '404' })).toBe(1)
  })

  it('show every refusal limit and every transport from 0', async () => {
    const registry = new Registry()
    const m = new ApiMetrics([registry])
    m.refusals.order()
    const p = await page(registry)
    expect(p.value('exchange_rate_limit_refusals_total', { limit: 'order' })).toBe(1)
    expect(p.value('exchange_rate_limit_refusals_total', { limit: 'connection' })).toBe(0)
    expect(p.find('exchange_stream_slow_consumer_drops_total').map((s) => s.labels['transport'])).toEqual(['sse', 'ws', 'graphql-ws', 'graphql-sse'])
  })
})

describe('SocketFeed', () => {
  /** A socket whose unsent bytes the test sets. */
  const socket = () => {
    const sent: string[] = []
    const ws = { bufferedAmount: 0, readyState: 1, extensions: '', send: (t: string) => sent.push(t) }
    return { ws, sent, asWs: ws as unknown as WebSocket }
  }

  it('counts every frame a conflating stream skips while its socket is full', () => {
    const { ws, sent, asWs } = socket()
    const counts = { conflated: 0, dropped: 0 }
    const feed = new SocketFeed(asWs, { maxBytes: 100, meter: { conflated: (n) => (counts.conflated += n), dropped: () => counts.dropped++ }, resync: () => {}, giveUp: () => {} })
    feed.send('a')
    ws.bufferedAmount = 101
    feed.send('b')
    feed.send('c')
    feed.send('d')
    feed.close()
    feed.send('e') // closed: neither sent nor skipped
    expect(sent).toEqual(['a'])
    expect(counts).toEqual({ conflated: 3, dropped: 0 })
  })

  it('counts an event stream it gives up as dropped', () => {
    const { ws, asWs } = socket()
    const counts = { conflated: 0, dropped: 0 }
    let overflowed = 0
    const feed = new SocketFeed(asWs, { maxBytes: 100, meter: { conflated: (n) => (counts.conflated += n), dropped: () => counts.dropped++ }, resync: null, giveUp: () => overflowed++ })
    ws.bufferedAmount = 101
    feed.send('x')
    expect([counts, overflowed]).toEqual([{ conflated: 0, dropped: 1 }, 1])
  })
})
