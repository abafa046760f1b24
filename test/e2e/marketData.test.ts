// Public market data over real HTTP, REST and GraphQL, shapes checked field by field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nextQuarterlyExpiries, optionExpiries, isoDate } from '../../src/domain/calendar.js'
import { D, formatDecimal } from '../../src/domain/decimal.js'
import { curveIndex } from '../../src/domain/pricing/curveIndex.js'
import { ADMIN, startTestExchange, type TestExchange } from '../support/exchange.js'
import { DECIMAL, http, ISO, type Http } from '../support/http.js'
import { testClock } from '../support/clock.js'

let ex: TestExchange
let api: Http
const YEAR_MS = 365.25 * 86_400_000

const MARKET_KEYS = [
  'marketId', 'base', 'quote', 'type', 'tradingStatus', 'tickSize', 'stepSize', 'minQuantity', 'priceBandLow',
  'priceBandHigh', 'takerFeeBps', 'makerFeeBps', 'fundingIntervalMs', 'fundingMaxRateBps',
]

let futures: Record<string, string[]> = {}
/** The perpetual's index at an engine time: the curve's (inside the roll window it moves with time). */
let perpIndexAt: (ms: number) => string = () => ''
/** Engine time of the push; the perpetual's mark at any later read lies between its index then and now. */
let pushedAt = 0
/** Asserts `price` is the index the curve gave at some engine time since the push (it rises, F2 > F1). */
const expectPerpIndex = (price: string) => {
  expect(D(price).gte(perpIndexAt(pushedAt)), `${price} ≥ ${perpIndexAt(pushedAt)}`).toBe(true)
  expect(D(price).lte(perpIndexAt(testClock.now())), `${price} ≤ ${perpIndexAt(testClock.now())}`).toBe(true)
}
const marks: Record<string, string> = {}

beforeAll(async () => {
  ex = await startTestExchange({ ROLES: 'api,engine,scheduler', GRAPHQL_MAX_DEPTH: '5', GRAPHQL_MAX_COMPLEXITY: '1000' })
  api = http(ex.url!)
  const now = testClock.now()
  futures = Object.fromEntries(
    ['BTC', 'XAUT', 'WTIOIL'].map((f) => [f, nextQuarterlyExpiries(now, 2).map((e) => `${f}-USDC-${isoDate(e)}`)]),
  )
  Object.assign(marks, {
    'BTC-USDC-SPOT': '95000', [futures['BTC']![0]!]: '95500.5', [futures['BTC']![1]!]: '96400',
    'XAUT-USDC-SPOT': '4000', [futures['XAUT']![0]!]: '4012.34', [futures['XAUT']![1]!]: '4040',
    'WTIOIL-USDC-SPOT': '65', [futures['WTIOIL']![0]!]: '65.2', [futures['WTIOIL']![1]!]: '65.9',
  })
  const pushed = await api.post('/admin/marks', { marks: Object.entries(marks).map(([marketId, price]) => ({ marketId, price })) }, ADMIN)
  expect(pushed.status).toBe(200)
  // The perpetual's index is the curve's at the engine time of the push: the front future outside the
  // roll window, a blend inside it (whichever the test clock falls in).
  const perp = (await api.get('/catalog/instruments')).body.find((i: any) => i.id === 'BTC-PERP')
  const leg = (id: string) => ({ price: D(marks[id]!), expiryMs: Date.parse(`${id.slice(-10)}T08:00:00Z`), sourceTs: 0 })
  perpIndexAt = (ms) => formatDecimal(curveIndex({ nowMs: ms, f1: leg(futures['BTC']![0]!), f2: leg(futures['BTC']![1]!), tick: D('0.1') }).price)
  pushedAt = perp.computedAt
})
afterAll(() => ex?.close())

describe('GET /perps/markets', () => {
  it('lists every linear market with exactly the documented fields, decimals as strings', async () => {
    const res = await api.get('/perps/markets')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/application\/json/)
    const ids = res.body.map((m: any) => m.marketId)
    expect(ids).toEqual([
      'BTC-USDC-SPOT', 'BTC-PERP', ...futures['BTC']!,
      'XAUT-USDC-SPOT', 'XAUT-USDC-PERP', ...futures['XAUT']!,
      'WTIOIL-USDC-SPOT', 'WTIOIL-USDC-PERP', ...futures['WTIOIL']!,
    ])
    for (const m of res.body) {
      const keys = m.type === 'future' ? [...MARKET_KEYS, 'expiry'] : MARKET_KEYS
      expect(Object.keys(m).sort()).toEqual([...keys].sort())
      for (const k of ['tickSize', 'stepSize', 'minQuantity', 'takerFeeBps', 'makerFeeBps', 'priceBandLow', 'priceBandHigh']) {
        expect(m[k], `${m.marketId}.${k}`).toMatch(DECIMAL)
      }
      expect(m.tradingStatus).toBe('active')
      expect(m.quote).toBe('USDC')
    }
    const perp = res.body.find((m: any) => m.marketId === 'BTC-PERP')
    expect(perp).toMatchObject({
      base: 'BTC', type: 'perpetual', tickSize: '0.1', stepSize: '0.001', minQuantity: '0.001',
      takerFeeBps: '5', makerFeeBps: '1', fundingIntervalMs: 300000, fundingMaxRateBps: '25',
    })
    // ±10% around the perpetual's mark (its index, as no book gives it a premium), inward to the tick.
    const low = (index: string) => D(index).mul(0.9).div('0.1').ceil().mul('0.1')
    const high = (index: string) => D(index).mul(1.1).div('0.1').floor().mul('0.1')
    const [then, now] = [perpIndexAt(pushedAt), perpIndexAt(testClock.now())]
    expect(D(perp.priceBandLow).gte(low(then)) && D(perp.priceBandLow).lte(low(now)), perp.priceBandLow).toBe(true)
    expect(D(perp.priceBandHigh).gte(high(then)) && D(perp.priceBandHigh).lte(high(now)), perp.priceBandHigh).toBe(true)
    const spot = res.body.find((m: any) => m.marketId === 'XAUT-USDC-SPOT')
    expect(spot).toMatchObject({ type: 'spot', takerFeeBps: '10', makerFeeBps: '5', fundingIntervalMs: null, fundingMaxRateBps: null })
    const future = res.body.find((m: any) => m.marketId === futures['WTIOIL']![0])
    expect(future.type).toBe('future')
    expect(future.expiry).toMatch(ISO)
    expect(new Date(future.expiry).getUTCDay()).toBe(5)
    expect(new Date(future.expiry).getUTCHours()).toBe(8)
  })

  it('shows a halted market as halted, and active again after resume', async () => {
    expect((await api.post('/admin/markets/XAUT-USDC-PERP/halt', {}, ADMIN)).body).toEqual({ marketId: 'XAUT-USDC-PERP', status: 'halted' })
    const halted = await api.get('/perps/markets')
    expect(halted.body.find((m: any) => m.marketId === 'XAUT-USDC-PERP').tradingStatus).toBe('halted')
    await api.post('/admin/markets/XAUT-USDC-PERP/resume', {}, ADMIN)
    const resumed = await api.get('/perps/markets')
    expect(resumed.body.find((m: any) => m.marketId === 'XAUT-USDC-PERP').tradingStatus).toBe('active')
  })
})

describe('order books', () => {
  it.each(['BTC-USDC-SPOT', 'BTC-PERP'])('/perps/orderbook/%s returns the full-depth snapshot shape', async (id) => {
    const res = await api.get(`/perps/orderbook/${id}`)
    expect(res.status).toBe(200)
    expect(Object.keys(res.body).sort()).toEqual(['asks', 'bids', 'marketId', 'sequence', 'timestamp'])
    expect(res.body).toMatchObject({ marketId: id, bids: [], asks: [] })
    expect(Number.isInteger(res.body.sequence)).toBe(true)
    expect(res.body.timestamp).toMatch(ISO)
  })

  it('serves an option book on /orderbook', async () => {
    const id = (await api.get('/markets/board')).body.calls[0].marketId
    const res = await api.get(`/orderbook/${id}`)
    expect(res.status).toBe(200)
    expect(res.body.marketId).toBe(id)
    // An untouched book is as of its listing (engine time), not of the read: every reader sees one snapshot.
    expect((await api.get(`/orderbook/${id}`)).body).toEqual(res.body)
  })

  it.each(['/perps/orderbook/NOPE-PERP', '/orderbook/BTC-1999-01-01-1-C'])('%s is 404 MARKET_NOT_FOUND', async (path) => {
    const res = await api.get(path)
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ error: 'MarketError', code: 'MARKET_NOT_FOUND', message: expect.any(String) })
  })

  it('serves each family only its own books: a market of the other kind is 404 MARKET_NOT_FOUND', async () => {
    const option = (await api.get('/markets/board')).body.calls[0].marketId
    for (const path of [`/perps/orderbook/${option}`, '/orderbook/BTC-PERP', '/orderbook/BTC-USDC-SPOT', `/orderbook/${futures['BTC']![0]}`]) {
      const res = await api.get(path)
      expect(res.status, path).toBe(404)
      expect(res.body, path).toEqual({ error: 'MarketError', code: 'MARKET_NOT_FOUND', message: expect.any(String) })
    }
  })
})

describe('GET /perps/market-stats', () => {
  it('aggregates the last 24 hours and reports funding timing for perpetuals', async () => {
    const now = testClock.now()
    const minute = (msAgo: number) => new Date(Math.floor((now - msAgo) / 60_000) * 60_000)
    await ex.pool.query(
      `INSERT INTO candles ("marketId", start, open, high, low, close, volume, trades) VALUES
       ('BTC-USDC-SPOT', $1, 50, 60, 40, 55, 10, 3), ('BTC-USDC-SPOT', $2, 100, 130, 95, 120, 3, 2),
       ('BTC-USDC-SPOT', $3, 120, 125, 110, 118, 1.5, 1)`,
      [minute(30 * 3_600_000), minute(2 * 3_600_000), minute(3_600_000)],
    )
    const res = await api.get('/perps/market-stats')
    expect(res.status).toBe(200)
    expect(res.body.map((s: any) => s.marketId)).toEqual((await api.get('/perps/markets')).body.map((m: any) => m.marketId))
    const spot = res.body.find((s: any) => s.marketId === 'BTC-USDC-SPOT')
    expect(spot).toEqual({
      marketId: 'BTC-USDC-SPOT', last: '118', high24h: '130', low24h: '95', volume24h: '4.5', openInterest: '0',
      change24h: '18', fundingRate: null, nextFundingAt: null,
    })
    const perp = res.body.find((s: any) => s.marketId === 'BTC-PERP')
    expect(perp).toMatchObject({ last: '0', volume24h: '0', fundingRate: expect.stringMatching(DECIMAL) })
    const next = Date.parse(perp.nextFundingAt)
    expect(next % 300_000).toBe(0)
    expect(next).toBeGreaterThan(now - 1_000)
    expect(next - now).toBeLessThanOrEqual(300_000)
  })
})

describe('GET /perps/ohlc', () => {
  const T = Date.UTC(2026, 10, 10, 10, 0, 0) / 1000
  beforeAll(async () => {
    const at = (s: number) => new Date(s * 1000)
    await ex.pool.query(
      `INSERT INTO candles ("marketId", start, open, high, low, close, volume, trades) VALUES
       ('BTC-PERP', $1, 100, 110, 90, 105, 1, 1), ('BTC-PERP', $2, 105, 120, 100, 115, 2, 1),
       ('BTC-PERP', $3, 115, 116, 80, 90, 0.5, 1)`,
      [at(T), at(T + 60), at(T + 300)],
    )
  })

  it('aggregates one-minute candles into the resolution, timestamps in unix seconds', async () => {
    const res = await api.get(`/perps/ohlc?symbol=BTC-PERP&resolution=5&from=${T}&to=${T + 600}`)
    expect(res.status).toBe(200)
    expect(res.body).toEqual([
      { timestamp: T, open: '100', high: '120', low: '90', close: '115', volume: '3' },
      { timestamp: T + 300, open: '115', high: '116', low: '80', close: '90', volume: '0.5' },
    ])
    const one = await api.get(`/perps/ohlc?symbol=BTC-PERP&resolution=1&from=${T}&to=${T + 600}`)
    expect(one.body.map((c: any) => c.timestamp)).toEqual([T, T + 60, T + 300])
  })

  it.each(['D', '1D'])('resolution %s gives one candle per UTC day', async (resolution) => {
    const res = await api.get(`/perps/ohlc?symbol=BTC-PERP&resolution=${resolution}&from=${T - 36_000}&to=${T + 36_000}`)
    expect(res.body).toEqual([{ timestamp: T - 36_000, open: '100', high: '120', low: '80', close: '90', volume: '3.5' }])
  })

  it('defaults to 15-minute candles', async () => {
    const res = await api.get(`/perps/ohlc?symbol=BTC-PERP&from=${T}&to=${T + 600}`)
    expect(res.body).toEqual([{ timestamp: T, open: '100', high: '120', low: '80', close: '90', volume: '3.5' }])
  })

  it('accepts exactly 90 days and refuses one second more with INVALID_TIME_RANGE', async () => {
    const span = 90 * 86_400
    expect((await api.get(`/perps/ohlc?symbol=BTC-PERP&from=${T - span}&to=${T}`)).status).toBe(200)
    const res = await api.get(`/perps/ohlc?symbol=BTC-PERP&from=${T - span - 1}&to=${T}`)
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ error: 'MarketError', code: 'INVALID_TIME_RANGE' })
  })

  it.each([
    ['from after to', `symbol=BTC-PERP&from=${T + 1}&to=${T}`, 400, 'INVALID_TIME_RANGE'],
    ['no symbol', `from=${T}&to=${T + 1}`, 400, 'INVALID_REQUEST'],
    ['an unknown symbol', `symbol=NOPE&from=${T}&to=${T + 1}`, 404, 'MARKET_NOT_FOUND'],
    ['an unknown resolution', `symbol=BTC-PERP&resolution=7`, 400, 'INVALID_REQUEST'],
    ['a fractional from', `symbol=BTC-PERP&from=1.5`, 400, 'INVALID_REQUEST'],
    ['milliseconds mistaken for seconds', `symbol=BTC-PERP&from=${T * 1000}&to=${T * 1000 + 1}`, 400, 'INVALID_TIME_RANGE'],
  ])('refuses %s', async (_name, query, status, code) => {
    const res = await api.get(`/perps/ohlc?${query}`)
    expect(res.status).toBe(status)
    expect(res.body.code).toBe(code)
  })
})

/**
 * What the board guarantees at any instant, whatever the smile: no static arbitrage between its marks.
 * Marks are rounded to the 0.0001 tick (nearest), which is monotone, so ordering holds exactly; a sum of
 * rounded marks may be off by half a tick per term. Delta, with a smile, need not be monotone in strike.
 */
function expectNoStaticArbitrage(b: any): void {
  const TICK = 0.0001
  const spot = Number(b.spotPrice)
  const t = (expiry: string) => (Date.parse(`${expiry}T08:00:00Z`) - Date.parse(b.timestamp)) / YEAR_MS
  for (const expiry of Object.keys(b.expiryForwards)) {
    const byStrike = (rows: any[]) => rows.filter((r) => r.expiry === expiry).sort((x, y) => Number(x.strikePrice) - Number(y.strikePrice))
    const calls = byStrike(b.calls)
    const puts = byStrike(b.puts)
    expect(calls.map((r) => r.strikePrice)).toEqual(puts.map((r) => r.strikePrice))
    const forward = Number(b.expiryForwards[expiry])
    const df = Math.exp(-0.04 * t(expiry))
    calls.forEach((call, i) => {
      const [k, c, p] = [Number(call.strikePrice), Number(call.markPrice), Number(puts[i].markPrice)]
      const at = `${expiry} ${k}`
      // Put-call parity in units of the underlying: C − P = e^(−rT)·(F − K) / S, within a tick.
      expect(Math.abs(c - p - (df * (forward - k)) / spot), at).toBeLessThanOrEqual(TICK + 1e-9)
      expect(Number(call.delta), at).toBeGreaterThanOrEqual(0)
      expect(Number(call.delta), at).toBeLessThanOrEqual(1)
      expect(Number(puts[i].delta), at).toBeGreaterThanOrEqual(-1)
      expect(Number(puts[i].delta), at).toBeLessThanOrEqual(0)
      if (i === 0) return
      // Calls lose value and puts gain it as the strike rises...
      expect(c, at).toBeLessThanOrEqual(Number(calls[i - 1].markPrice))
      expect(p, at).toBeGreaterThanOrEqual(Number(puts[i - 1].markPrice))
      if (i === 1) return
      // ...and both are convex in the strike: slopes never fall (two rounded marks per slope).
      for (const rows of [calls, puts]) {
        const [k0, k1, k2] = [i - 2, i - 1, i].map((j) => Number(rows[j].strikePrice))
        const [v0, v1, v2] = [i - 2, i - 1, i].map((j) => Number(rows[j].markPrice))
        expect((v2! - v1!) / (k2! - k1!) - (v1! - v0!) / (k1! - k0!), at).toBeGreaterThanOrEqual(-(2 * TICK) / Math.min(k2! - k1!, k1! - k0!) - 1e-12)
      }
    })
  }
}

describe('GET /markets/board', () => {
  it('defaults to BTC: spot, a forward per listed expiry, and a row per strike', async () => {
    const before = testClock.now()
    const res = await api.get('/markets/board')
    expect(res.status).toBe(200)
    const b = res.body
    expect(b.underlying).toBe('BTC')
    expect(b.spotPrice).toBe('95000')
    expect(b.timestamp).toMatch(ISO)
    const expiries = optionExpiries(before)
    expect(Object.keys(b.expiryForwards)).toEqual(expiries.map((e) => isoDate(e.expiryMs)))
    for (const e of expiries) {
      const fwd = Number(b.expiryForwards[isoDate(e.expiryMs)])
      if (e.futureExpiryMs) {
        expect(fwd).toBe(Number(marks[`BTC-USDC-${isoDate(e.futureExpiryMs)}`]))
      } else {
        const t = (e.expiryMs - Date.parse(b.timestamp)) / YEAR_MS
        expect(Math.abs(fwd - 95000 * Math.exp(0.04 * t))).toBeLessThanOrEqual(0.01)
      }
    }
    expect(b.calls.length).toBe(b.puts.length)
    // Every listed expiry has its strike grid (drawn around its own forward).
    expect([...new Set(b.calls.map((r: { expiry: string }) => r.expiry))].sort()).toEqual(expiries.map((e) => isoDate(e.expiryMs)))
    for (const row of [...b.calls, ...b.puts]) {
      for (const k of ['strikePrice', 'openInterest', 'volume24h', 'markPrice']) expect(row[k]).toMatch(DECIMAL)
      // No option order rests or traded here: empty sides and the missing last trade are null, not "0".
      expect({ bid: row.bid, ask: row.ask, lastPrice: row.lastPrice }).toEqual({ bid: null, ask: null, lastPrice: null })
      expect(row.expiry).toMatch(/^\d{4}-\d{2}-\d{2}$/)
      expect(Number(row.strikePrice) % 5000).toBe(0)
      expect(Number(row.markIv)).toBeGreaterThan(0)
    }
    expectNoStaticArbitrage(b)
  })

  it('answers an underlying without options with an empty board', async () => {
    const res = await api.get('/markets/board?underlying=XAUT')
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ underlying: 'XAUT', spotPrice: '4000', expiryForwards: {}, calls: [], puts: [] })
  })

  it('is 404 PRODUCT_NOT_FOUND for an unknown underlying', async () => {
    const res = await api.get('/markets/board?underlying=DOGE')
    expect(res.status).toBe(404)
    expect(res.body.code).toBe('PRODUCT_NOT_FOUND')
  })
})

describe('catalog', () => {
  it('lists instruments with their base price and when it was computed', async () => {
    const res = await api.get('/catalog/instruments')
    expect(res.status).toBe(200)
    const perp = res.body.find((i: any) => i.id === 'BTC-PERP')
    expect(perp).toEqual({ id: 'BTC-PERP', type: 'perpetual', underlying: 'BTC', quote: 'USDC', basePrice: perpIndexAt(perp.computedAt), computedAt: expect.any(Number) })
    const option = res.body.find((i: any) => i.type === 'option')
    expect(option.basePrice).toMatch(DECIMAL)
    for (const i of res.body) expect(Object.keys(i).sort()).toEqual(['basePrice', 'computedAt', 'id', 'quote', 'type', 'underlying'])
  })

  it('returns one instrument, or 404', async () => {
    const one = await api.get('/catalog/instruments/XAUT-USDC-SPOT')
    expect(one.body).toMatchObject({ id: 'XAUT-USDC-SPOT', type: 'spot', underlying: 'XAUT', basePrice: '4000' })
    const missing = await api.get('/catalog/instruments/NOPE')
    expect(missing.status).toBe(404)
    expect(missing.body.code).toBe('MARKET_NOT_FOUND')
  })

  it('groups markets into products with fee schedules and margin group', async () => {
    const res = await api.get('/catalog/products')
    expect(res.status).toBe(200)
    const ids = res.body.map((p: any) => p.productId)
    expect(ids).toEqual([
      'BTC-spot', 'BTC-perpetual', 'BTC-future', 'BTC-option', 'XAUT-spot', 'XAUT-perpetual', 'XAUT-future',
      'WTIOIL-spot', 'WTIOIL-perpetual', 'WTIOIL-future',
    ])
    const options = res.body.find((p: any) => p.productId === 'BTC-option')
    expect(options).toMatchObject({ underlying: 'BTC', type: 'option', assetClass: 'crypto', marginGroup: 'BTC', takerFeeBps: '3', makerFeeBps: '3' })
    expect(options.markets[0]).toMatchObject({ type: 'option', optionType: expect.stringMatching(/^(call|put)$/), strike: expect.stringMatching(DECIMAL) })
    const gold = res.body.find((p: any) => p.productId === 'XAUT-future')
    expect(gold).toMatchObject({ assetClass: 'precious_metals', marginGroup: 'XAUT' })
    expect(gold.markets.map((m: any) => m.marketId)).toEqual(futures['XAUT'])
  })
})

describe('GraphQL', () => {
  it('answers the same markets and books as REST', async () => {
    const gql = await api.graphql(`{ markets(linear: true) { edges { node { marketId type tradingStatus tickSize priceBandLow } } }
      orderbook(marketId: "BTC-PERP") { marketId sequence bids { price size } } }`)
    expect(gql.status).toBe(200)
    expect(gql.body.errors).toBeUndefined()
    const rest = (await api.get('/perps/markets')).body
    expect(gql.body.data.markets.edges.map((e: any) => e.node)).toEqual(
      rest.map((m: any) => ({ marketId: m.marketId, type: m.type.toUpperCase(), tradingStatus: m.tradingStatus.toUpperCase(), tickSize: m.tickSize, priceBandLow: m.priceBandLow })),
    )
    expect(gql.body.data.orderbook).toEqual({ marketId: 'BTC-PERP', sequence: 0, bids: [] })
  })

  it('pages markets as a Relay connection', async () => {
    const first = await api.graphql(`{ markets(first: 2) { edges { cursor node { marketId } } pageInfo { hasNextPage endCursor } } }`)
    const page = first.body.data.markets
    expect(page.edges.map((e: any) => e.node.marketId)).toEqual(['BTC-USDC-SPOT', 'BTC-PERP'])
    expect(page.pageInfo.hasNextPage).toBe(true)
    const next = await api.graphql(`query($after: String) { markets(first: 1, after: $after) { edges { node { marketId } } } }`, { after: page.pageInfo.endCursor })
    expect(next.body.data.markets.edges[0].node.marketId).toBe(futures['BTC']![0])
  })

  it('pages a list held in memory backwards too (last/before) and counts it (totalCount)', async () => {
    const ids = async (args: string, before?: string) => {
      const res = await api.graphql(`query${before ? '($before: String)' : ''} { markets(linear: true, ${args}) { totalCount edges { cursor node { marketId } }
        pageInfo { hasPreviousPage hasNextPage startCursor } } }`, before ? { before } : undefined)
      expect(res.body.errors).toBeUndefined()
      return res.body.data.markets
    }
    const all = await ids('first: 1000')
    const rest = (await api.get('/perps/markets')).body.map((m: any) => m.marketId)
    expect(all.edges.map((e: any) => e.node.marketId)).toEqual(rest)
    expect(all.totalCount).toBe(rest.length)
    const tail = await ids('last: 3')
    expect(tail.edges.map((e: any) => e.node.marketId)).toEqual(rest.slice(-3))
    expect(tail).toMatchObject({ totalCount: rest.length, pageInfo: { hasPreviousPage: true, hasNextPage: false } })
    const before = await ids('last: 2, before: $before', tail.pageInfo.startCursor)
    expect(before.edges.map((e: any) => e.node.marketId)).toEqual(rest.slice(-5, -3))
    // The count is the filtered list's, whatever the page.
    expect((await ids('first: 1')).totalCount).toBe(rest.length)
  })

  it('pages the account histories forward only: they take no last or before', async () => {
    for (const field of ['orders', 'trades', 'deposits', 'withdrawals', 'liquidations']) {
      const res = await api.graphql(`{ me { ${field}(last: 1) { edges { cursor } } } }`)
      expect(res.body.data).toBeUndefined()
      expect(res.body.errors[0]).toMatchObject({ message: `Unknown argument "last" on field "User.${field}".`, extensions: { code: 'INVALID_REQUEST' } })
    }
  })

  it('serves marks with their provenance, DateTime as ISO', async () => {
    const res = await api.graphql(`{ market(id: "BTC-PERP") { mark { price indexPrice source sourceTimestamp } } }`)
    const mark = res.body.data.market.mark
    expect(mark).toMatchObject({ source: 'curve', indexPrice: mark.price })
    expectPerpIndex(mark.price)
    expect(res.body.data.market.mark.sourceTimestamp).toMatch(ISO)
  })

  it('carries the error code, status and correlation id in extensions', async () => {
    const res = await api.graphql(`{ orderbook(marketId: "NOPE") { sequence } }`, undefined, { 'x-correlation-id': 'gql-corr-0001' })
    expect(res.body.errors[0].extensions).toEqual({ code: 'MARKET_NOT_FOUND', status: 404, correlationId: 'gql-corr-0001' })
    expect(res.headers.get('x-correlation-id')).toBe('gql-corr-0001')
  })

  it('refuses a query deeper than the limit, and one costlier than the limit', async () => {
    const deep = await api.graphql(`{ products { edges { node { markets { mark { price } } } } } }`)
    expect(deep.body.errors[0].extensions.code).toBe('INVALID_REQUEST')
    expect(deep.body.errors[0].message).toMatch(/depth/i)
    const aliases = Array.from({ length: 60 }, (_, i) => `m${i}: markets { edges { node { marketId } } }`).join(' ')
    const costly = await api.graphql(`{ ${aliases} }`)
    expect(costly.body.errors[0].extensions.code).toBe('INVALID_REQUEST')
    expect(costly.body.errors[0].message).toMatch(/complexity/i)
  })

  it('refuses a malformed query and an invalid variable with INVALID_REQUEST', async () => {
    const bad = await api.graphql(`{ markets { edges { node { nope } } } }`)
    expect(bad.body.errors[0].extensions.code).toBe('INVALID_REQUEST')
    const variable = await api.graphql(`query($to: SafeInt) { candles(marketId: "BTC-PERP", to: $to) { timestamp } }`, { to: 'soon' })
    expect(variable.body.errors[0].extensions.code).toBe('INVALID_REQUEST')
  })

  it('serves GraphiQL to a browser', async () => {
    const res = await api.get('/graphql', { accept: 'text/html' })
    expect(res.status).toBe(200)
    expect(res.text.toLowerCase()).toContain('graphiql')
  })
})

describe('HTTP conventions', () => {
  it('answers an unknown route with 404 NOT_FOUND and a correlation id', async () => {
    const res = await api.get('/perps/nope')
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ error: 'RequestError', code: 'NOT_FOUND', message: 'No route GET /perps/nope' })
    expect(res.headers.get('x-correlation-id')).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/)
  })

  it('echoes a sane caller correlation id and replaces an insane one', async () => {
    expect((await api.get('/health', { 'x-correlation-id': 'trace-abc-123456' })).headers.get('x-correlation-id')).toBe('trace-abc-123456')
    expect((await api.get('/health', { 'x-correlation-id': 'bad id with spaces' })).headers.get('x-correlation-id')).not.toBe('bad id with spaces')
  })

  it('refuses a body over 64 KiB with 413 PAYLOAD_TOO_LARGE and a malformed one with 400', async () => {
    const big = await api.request('POST', '/graphql', { raw: JSON.stringify({ query: `{ __typename }`, pad: 'x'.repeat(70_000) }), headers: { 'content-type': 'application/json' } })
    expect(big.status).toBe(413)
    expect(big.body).toMatchObject({ error: 'RequestError', code: 'PAYLOAD_TOO_LARGE' })
    const broken = await api.request('POST', '/graphql', { raw: '{"query": ', headers: { 'content-type': 'application/json' } })
    expect(broken.status).toBe(400)
    expect(broken.body).toMatchObject({ code: 'INVALID_REQUEST' })
  })

  it('reports health and readiness', async () => {
    expect((await api.get('/health')).body).toEqual({ status: 'ok' })
    expect((await api.get('/ready')).body).toEqual({ status: 'ready', checks: { postgres: true, redis: true, engine: true, catalog: true } })
  })
})

describe('POST /admin/marks', () => {
  it.each([
    ['no credential', {}, 401, 'MISSING_CREDENTIAL'],
    ['a wrong token', { authorization: 'Bearer not-the-admin-token' }, 401, 'INVALID_TOKEN'],
  ])('refuses %s', async (_n, headers, status, code) => {
    const res = await api.post('/admin/marks', { marketId: 'BTC-USDC-SPOT', price: '1' }, headers)
    expect(res.status).toBe(status)
    expect(res.body.code).toBe(code)
  })

  it.each([
    ['a number price', { marketId: 'BTC-USDC-SPOT', price: 95000 }, 400, 'INVALID_REQUEST'],
    ['a bad price', { marketId: 'BTC-USDC-SPOT', price: '-5' }, 400, 'INVALID_REQUEST'],
    ['an unknown market', { marketId: 'NOPE', price: '5' }, 404, 'MARKET_NOT_FOUND'],
    ['a perpetual', { marketId: 'BTC-PERP', price: '5' }, 400, 'INVALID_REQUEST'],
    ['a misspelt field', { marketId: 'BTC-USDC-SPOT', price: '5', sourceTimeStamp: testClock.now() }, 400, 'INVALID_REQUEST'],
    ['an unknown field beside the list', { marks: [{ marketId: 'BTC-USDC-SPOT', price: '5' }], dryRun: true }, 400, 'INVALID_REQUEST'],
  ])('refuses %s and changes nothing', async (_n, body, status, code) => {
    const res = await api.post('/admin/marks', body, ADMIN)
    expect(res.status).toBe(status)
    expect(res.body.code).toBe(code)
    expect((await api.get('/catalog/instruments/BTC-USDC-SPOT')).body.basePrice).toBe('95000')
  })

  it('takes a pushed mark with its source time, and ignores a later push of an older observation', async () => {
    const sourceTimestamp = new Date(testClock.now()).toISOString()
    const res = await api.post('/admin/marks', { marketId: 'WTIOIL-USDC-SPOT', price: '66.01', sourceTimestamp }, ADMIN)
    expect(res.body).toEqual({ accepted: 1 })
    const late = await api.post('/admin/marks', { marketId: 'WTIOIL-USDC-SPOT', price: '60', sourceTimestamp: Date.parse(sourceTimestamp) - 1 }, ADMIN)
    expect(late.body).toEqual({ accepted: 0 })
    const gql = await api.graphql(`{ market(id: "WTIOIL-USDC-SPOT") { mark { price source sourceTimestamp } } }`)
    expect(gql.body.data.market.mark).toEqual({ price: '66.01', source: 'push', sourceTimestamp })
  })

  it('refuses an observation from the future', async () => {
    const res = await api.post('/admin/marks', { marketId: 'WTIOIL-USDC-SPOT', price: '70', sourceTimestamp: testClock.now() + 60_000 }, ADMIN)
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('INVALID_REQUEST')
  })
})
