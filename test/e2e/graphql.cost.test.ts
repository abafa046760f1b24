// The GraphQL cost model over real HTTP, at the default limits (depth 12, complexity 5,000): fields that
// do real work are charged for it, per alias, so a request the limits admit cannot hold the node for long
// (a fuzz run once held it 15 s with 2,200 aliases of optionsBoard, each a database read and Black-76),
// while the screens of a trading front-end (every field they show), the REST routes' own operations sent
// by a client, and ordinary queries still fit. Alias counts stay well inside the parser's token limit, so
// the refusals asserted on cost are the cost model's.
import { createClient } from 'graphql-ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { isoDate, nextQuarterlyExpiries } from '../../src/domain/calendar.js'
import { marketRoutes } from '../../src/rest/marketRoutes.js'
import { fundPerps, signIn, type SignedIn } from '../support/auth.js'
import { ADMIN, startTestExchange, type TestExchange } from '../support/exchange.js'
import { http, type Http, type HttpResult } from '../support/http.js'
import { testClock } from '../support/clock.js'
import { SCREEN_QUERIES } from '../support/screenQueries.js'
import { wsUrl } from '../support/streams.js'

let ex: TestExchange
let api: Http
let alice: SignedIn
/** A listed BTC option. */
let option = ''

beforeAll(async () => {
  ex = await startTestExchange({ ROLES: 'api,engine,scheduler' })
  api = http(ex.url!)
  const marks: Record<string, string> = { 'BTC-USDC-SPOT': '95000', 'XAUT-USDC-SPOT': '4000', 'WTIOIL-USDC-SPOT': '65' }
  for (const [family, price] of [['BTC', '95500'], ['XAUT', '4010'], ['WTIOIL', '65.2']] as const) {
    for (const e of nextQuarterlyExpiries(testClock.now(), 2)) marks[`${family}-USDC-${isoDate(e)}`] = price
  }
  const pushed = await api.post('/admin/marks', { marks: Object.entries(marks).map(([marketId, price]) => ({ marketId, price })) }, ADMIN)
  expect(pushed.status).toBe(200)
  option = (await api.get('/markets/board')).body.calls[0].marketId
  // A trader with a position, open orders and fills, so the account screens have rows to list.
  alice = await signIn(api, ex.url!)
  const bob = await signIn(api, ex.url!)
  for (const u of [alice, bob]) await fundPerps(api, u)
  const order = (u: SignedIn, side: string, price: string, timeInForce = 'gtc') =>
    api.post('/perps/orders', { marketId: 'BTC-PERP', side, type: 'limit', price, quantity: '0.01', timeInForce }, u.cookie)
  for (let i = 1; i <= 5; i++) expect((await order(alice, 'buy', String(95_000 - 10 * i))).status).toBe(200)
  expect((await order(bob, 'sell', '94990', 'ioc')).status).toBe(200)
})
afterAll(() => ex?.close())

/** `{ a0: <selection> a1: <selection> … }` */
const aliases = (n: number, selection: string) => `{${Array.from({ length: n }, (_, i) => `b${i}:${selection}`).join(' ')}}`

/** Refused before any resolver ran: one 400 INVALID_REQUEST error and no data, however many root fields. */
function expectRefused(res: HttpResult, why?: RegExp): void {
  expect(res.body.errors?.length, res.text.slice(0, 300)).toBe(1)
  expect(res.status).toBe(400)
  expect(res.body.errors[0].extensions).toMatchObject({ code: 'INVALID_REQUEST', status: 400 })
  if (why) expect(res.body.errors[0].message).toMatch(why)
  expect(res.body.data).toBeUndefined()
}

/** Every result graphql-ws sends for one operation, or the error it ends with. */
async function overWebSocket(query: string): Promise<any[]> {
  const client = createClient({ url: wsUrl(ex.url!, '/graphql'), webSocketImpl: WebSocket, retryAttempts: 0, lazy: true })
  try {
    const results: any[] = []
    await new Promise<void>((resolve, reject) => client.subscribe({ query }, { next: (r) => results.push(r), error: reject, complete: resolve }))
    return results
  } finally {
    await client.dispose()
  }
}

describe('a refusal is one error, before anything runs', () => {
  it('answers an over-limit operation over graphql-ws with one INVALID_REQUEST error and no data', async () => {
    const [refused, ...more] = await overWebSocket(aliases(40, 'optionsBoard{spotPrice}'))
    expect(more).toEqual([])
    expect(refused.data).toBeUndefined()
    expect(refused.errors).toHaveLength(1)
    expect(refused.errors[0].extensions).toMatchObject({ code: 'INVALID_REQUEST', status: 400 })
    expect(refused.errors[0].message).toMatch(/complexity/)
    const [ok] = await overWebSocket(aliases(2, 'optionsBoard{spotPrice}'))
    expect(ok).toEqual({ data: { b0: { spotPrice: '95000' }, b1: { spotPrice: '95000' } } })
  })
})

describe('expensive fields are charged per call', () => {
  it('refuses the fuzz run\'s 2,200 aliases of optionsBoard at once', async () => {
    const query = aliases(2_200, 'optionsBoard{spotPrice}')
    expect(JSON.stringify({ query }).length).toBeGreaterThan(60_000)
    const res = await api.graphql(query)
    expectRefused(res)
  })

  it('refuses 90 aliases of optionsBoard (cost 180 when each was charged 2) on cost', async () => {
    const res = await api.graphql(aliases(90, 'optionsBoard{spotPrice}'))
    expectRefused(res, /complexity/i)
  })

  it('admits a few boards', async () => {
    const ok = await api.graphql(aliases(6, 'optionsBoard{spotPrice}'))
    expect(ok.body.errors, ok.text.slice(0, 300)).toBeUndefined()
    expect(new Set(Object.values(ok.body.data).map((b: any) => b.spotPrice))).toEqual(new Set(['95000']))
    expectRefused(await api.graphql(aliases(7, 'optionsBoard{spotPrice}')), /complexity/i)
  })

  it('charges a board without options next to nothing', async () => {
    const res = await api.graphql(aliases(50, 'optionsBoard(underlying:"XAUT"){spotPrice}'))
    expect(res.body.errors).toBeUndefined()
    expect(res.body.data.b49.spotPrice).toBe('4000')
  })

  it('refuses 227 aliases of marketStats, and 45 (cost 990 when each was charged 22) on cost', async () => {
    expectRefused(await api.graphql(aliases(227, 'marketStats{edges{node{marketId}}}')))
    const res = await api.graphql(aliases(45, 'marketStats{edges{node{marketId}}}'))
    expectRefused(res, /complexity/i)
    const few = await api.graphql(aliases(10, 'marketStats{edges{node{marketId last}}}'))
    expect(few.body.errors).toBeUndefined()
    expect(few.body.data.b9.edges.map((e: any) => e.node.marketId)).toContain('BTC-PERP')
  })

  it('charges instruments for the boards it prices', async () => {
    expectRefused(await api.graphql(aliases(20, 'instruments{edges{node{id}}}')), /complexity/i)
    expectRefused(await api.graphql(aliases(20, 'instrument(symbol:"BTC-PERP"){id}')), /complexity/i)
  })
})

describe('lists are charged per item they can return', () => {
  it('charges every listed market, not a flat ten', async () => {
    expectRefused(await api.graphql(aliases(40, 'markets{edges{node{marketId}}}')), /complexity/i)
    const one = await api.graphql('{ markets { edges { node { marketId } } } }')
    expect(one.body.errors).toBeUndefined()
    expect(one.body.data.markets.edges.length).toBeGreaterThan(100)
    // A page costs what it holds.
    const pages = await api.graphql(aliases(30, 'markets(first:2){edges{node{marketId}}}'))
    expect(pages.body.errors).toBeUndefined()
  })

  it('charges candles per bucket the span holds', async () => {
    const to = Math.floor(testClock.now() / 1000)
    const wide = await api.graphql(`{ candles(marketId: "BTC-PERP", resolution: "1", from: ${to - 90 * 86_400}, to: ${to}) { timestamp close } }`)
    expectRefused(wide, /complexity/i)
    const narrow = await api.graphql(`{ candles(marketId: "BTC-PERP", resolution: "60", from: ${to - 7 * 86_400}, to: ${to}) { timestamp close } }`)
    expect(narrow.body.errors).toBeUndefined()
    expect(narrow.body.data.candles.map((c: any) => c.close)).toEqual(['94990']) // the one fill of beforeAll
  })

  it('charges full-depth books per level', async () => {
    expectRefused(await api.graphql(aliases(150, 'orderbook(marketId:"BTC-PERP"){sequence bids{price size} asks{price size}}')), /complexity/i)
    const sequences = await api.graphql(aliases(150, 'orderbook(marketId:"BTC-PERP"){sequence}'))
    expect(sequences.body.errors).toBeUndefined()
    const few = await api.graphql(aliases(10, 'orderbook(marketId:"BTC-PERP"){sequence bids{price size}}'))
    expect(few.body.errors).toBeUndefined()
  })

  it('charges the account reads for their database queries and the page asked for', async () => {
    // A full page is a legitimate read; fifteen of them in one request are not.
    const page = 'me{orders(first:200){edges{node{id status}}}}'
    const one = await api.graphql(aliases(3, page), {}, alice.cookie)
    expect(one.body.errors).toBeUndefined()
    expect(one.body.data.b2.orders.edges.length).toBeGreaterThan(0)
    expectRefused(await api.graphql(aliases(15, page), {}, alice.cookie), /complexity/i)
    expectRefused(await api.graphql(aliases(101, 'me{id}'), {}, alice.cookie), /complexity/i)
    expectRefused(await api.graphql(aliases(40, 'me{balance{walletBalance}}'), {}, alice.cookie), /complexity/i)
    expectRefused(await api.graphql(aliases(50, 'me{positions{edges{node{marketId}}}}'), {}, alice.cookie), /complexity/i)
  })

  it('refuses the largest page of every market, settled ones included, with every field', async () => {
    const all = SCREEN_QUERIES['the market list']!.query.match(/node \{([^}]*\{[^}]*\})/)![1]
    expectRefused(await api.graphql(`{ markets(includeSettled: true, first: 1000) { edges { node { ${all} } } } }`), /complexity/i)
    const res = await api.graphql(`{ markets(includeSettled: true, first: 200) { edges { node { ${all} } } } }`)
    expect(res.body.errors).toBeUndefined()
  })

  it('charges scalars a tenth each: an alias bomb of them inside a list is refused', async () => {
    const scalars = (n: number) => Array.from({ length: n }, (_, i) => `s${i}:tickSize`).join(' ')
    expectRefused(await api.graphql(`{ markets { edges { node { ${scalars(300)} } } } }`), /complexity/i)
    const fine = await api.graphql(`{ markets { edges { node { ${scalars(20)} } } } }`)
    expect(fine.body.errors).toBeUndefined()
  })
})

describe('the screens of a trading front-end fit the default limits', () => {
  it.each(Object.keys(SCREEN_QUERIES))('answers %s in full', async (name) => {
    const screen = SCREEN_QUERIES[name]!
    const res = await api.graphql(screen.query, screen.variables?.(option) ?? {}, screen.signedIn ? alice.cookie : {})
    expect(res.status).toBe(200)
    expect(res.body.errors, res.text.slice(0, 300)).toBeUndefined()
    for (const [field, value] of Object.entries(res.body.data)) expect(value, field).not.toBeNull()
  })

  it('lists every field of every market', async () => {
    const res = await api.graphql(SCREEN_QUERIES['the market list']!.query)
    expect(res.body.data.markets.edges.length).toBeGreaterThan(100)
    expect(res.body.data.markets.edges.find((e: any) => e.node.marketId === 'BTC-PERP').node.mark.price).toBe('95500')
  })

  it('lists the caller\'s rows on the trading screen', async () => {
    const screen = SCREEN_QUERIES['a trading screen']!
    const me = (await api.graphql(screen.query, screen.variables!(option), alice.cookie)).body.data.me
    expect(me.positions.edges.map((e: any) => e.node.marketId)).toEqual(['BTC-PERP'])
    expect(me.openOrders.edges).toHaveLength(4)
    expect(me.trades.edges).toHaveLength(1)
  })
})

describe('legitimate queries still fit', () => {
  // A client may send what the REST routes run in-process (where no limit applies): each must fit.
  const variables: Record<string, Record<string, unknown>> = {
    RestPerpsOrderbook: { marketId: 'BTC-PERP' },
    RestOhlc: { marketId: 'BTC-PERP', resolution: '15' },
    RestBoard: { underlying: 'BTC' },
    RestInstrument: { symbol: 'BTC-PERP' },
  }
  beforeAll(() => {
    variables['RestOptionsOrderbook'] = { marketId: option }
  })
  const operations = [...new Map(marketRoutes.map((r) => [r.operation.match(/query (\w+)/)![1]!, r.operation])).entries()]

  it.each(operations)('runs the REST operation %s over /graphql within the limits', async (name, operation) => {
    const res = await api.graphql(operation, variables[name])
    expect(res.body.errors, res.text.slice(0, 300)).toBeUndefined()
  })

  it('answers every public REST market route', async () => {
    for (const path of ['/perps/markets', '/perps/orderbook/BTC-PERP', `/orderbook/${option}`, '/perps/market-stats', '/perps/ohlc?symbol=BTC-PERP',
      '/markets/board', '/markets/board?underlying=XAUT', '/catalog/instruments', '/catalog/instruments/BTC-PERP', '/catalog/products']) {
      const res = await api.get(path)
      expect(res.status, `${path}: ${res.text.slice(0, 200)}`).toBe(200)
    }
  })

  it('answers the README\'s market query and a dashboard of several fields at once', async () => {
    const readme = await api.graphql('{ market(id: "BTC-PERP") { marketId tickSize mark { price indexPrice } } }')
    expect(readme.body.errors).toBeUndefined()
    expect(readme.body.data.market.mark.price).toBe('95500')
    const dashboard = await api.graphql(`{
      markets(linear: true) { edges { node { marketId tickSize priceBandLow priceBandHigh mark { price } } } }
      marketStats { edges { node { marketId last change24h volume24h } } }
      orderbook(marketId: "BTC-PERP") { sequence bids { price size } asks { price size } }
      optionsBoard { spotPrice expiryForwards { expiry forward } calls { marketId markPrice } puts { marketId markPrice } }
    }`)
    expect(dashboard.body.errors, dashboard.text.slice(0, 300)).toBeUndefined()
    expect(dashboard.body.data.optionsBoard.calls.length).toBeGreaterThan(0)
  })
})
