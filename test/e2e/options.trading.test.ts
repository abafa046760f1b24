// Options trading over real HTTP, REST and GraphQL, between real signed-in users: every order rule and
// code of SPEC.md's options table, premium and fees to the micro-USDC in both balances, the short
// side's lock, positions and trades, preview equal to placement, quotes (atomic, bulk), the kinds kept
// apart (/orders vs /perps/orders), the order-path rate limit, halted markets and a stale forward.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { familyCatalog, smileFor } from '../../src/config/catalog.js'
import { D, formatDecimal } from '../../src/domain/decimal.js'
import { black76Price } from '../../src/domain/pricing/black76.js'
import { YEAR_MS } from '../../src/domain/pricing/optionTheo.js'
import { smileVol } from '../../src/domain/pricing/volSurface.js'
import { createKey, expectError, signIn, type SignedIn } from '../support/auth.js'
import { testClock } from '../support/clock.js'
import { ADMIN, startTestExchange, type TestExchange } from '../support/exchange.js'
import { DECIMAL, http, type Http, type HttpResult } from '../support/http.js'
import { btcFutures } from '../support/marks.js'
import { pollUntil } from '../support/poll.js'

let ex: TestExchange
let api: Http
let alice: SignedIn
let bob: SignedIn
let carol: SignedIn
let dave: SignedIn
/** When the marks were pushed: the valuation time of the option margin (the newest sourceTs). */
let markTs: number
const SPOT = 'BTC-USDC-SPOT'
const PERP = 'BTC-PERP'
const INDEX = '95000'
const BTC = familyCatalog('BTC')!

interface Option {
  id: string
  strike: number
  isCall: boolean
  expiryMs: number
}
/** Options of the expiry whose forward is a future's mark (95,000, pushed fresh): a few strikes, each used by one describe. */
let atm: Option
let atmPut: Option
let otm: Option
let far: Option
let quoteMarket: Option
let rules: Option
/** An option of a weekly expiry: its forward is synthetic, from spot alone. */
let weekly: Option

async function fundOptions(u: SignedIn, amount: string) {
  expect((await api.post('/wallet/faucet', { amount: '100000' }, u.cookie)).status).toBe(200)
  expect((await api.post('/wallet/transfer', { from: 'wallet', to: 'options', amount }, u.cookie)).status).toBe(200)
}

/** Pushes the BTC spot and both quarterlies at 95,000, stamped `ts`. */
async function pushMarks(ts: number, ids = [SPOT, ...btcFutures()]) {
  const res = await api.post('/admin/marks', { marks: ids.map((marketId) => ({ marketId, price: INDEX, sourceTimestamp: ts })) }, ADMIN)
  expect(res.status, res.text).toBe(200)
}

const order = (u: Record<string, string>, body: Record<string, unknown>) => api.post('/orders', body, u)
const balance = async (u: SignedIn) => (await api.get('/balances/me', u.cookie)).body
const gql = (u: SignedIn, query: string, variables?: Record<string, unknown>) => api.graphql(query, variables, u.cookie)
const lower = (v: string | null) => (v === null ? null : v.toLowerCase())
const gqlOrder = (o: any) => ({
  ...o, side: lower(o.side), type: lower(o.type), timeInForce: lower(o.timeInForce), status: lower(o.status), marginMode: lower(o.marginMode), cancelReason: lower(o.cancelReason),
})

const ORDER_SELECTION = `id userId marketId clientOrderId side type timeInForce price quantity filledQuantity status postOnly reduceOnly
  marginMode stopPrice takeProfitPrice stopLossPrice triggeredAt parentOrderId quoteId cancelReason createdAt updatedAt`
const PLACE = `mutation($input: PlaceOrderInput!) { placeOrder(input: $input) { ${ORDER_SELECTION} } }`
const PREVIEW = `mutation($input: PlaceOrderInput!) { previewOrder(input: $input) { approved reason marginImpact { initialMargin maintenanceMargin } } }`

/** A REST order body as GraphQL's PlaceOrderInput (upper-case enums). */
function input(body: Record<string, unknown>, kind?: 'OPTION' | 'LINEAR') {
  const up = (v: unknown) => (typeof v === 'string' ? v.toUpperCase() : v)
  return { ...body, side: up(body['side']), type: up(body['type']), timeInForce: up(body['timeInForce']), marginMode: up(body['marginMode']), ...(kind ? { kind } : {}) }
}

/** The error code of a REST answer or of a GraphQL answer's first error; null on success. */
const restCode = (r: HttpResult) => (r.status === 200 ? null : r.body.code)
const gqlCode = (r: HttpResult) => r.body.errors?.[0]?.extensions?.code ?? null

/** USDC micro-amounts of a decimal string, and back. */
const micro = (s: string) => BigInt(D(s).mul(1_000_000).toFixed(0))
const usdc = (m: bigint) => formatDecimal(D(m.toString()).div(1_000_000))

/**
 * The options margin of the contract (OPTIONS_CONTRACT.md) for an account holding only a short of
 * `lots` lots (0.01 each) of one option and no open orders: locked = lots × m + IM, where m is the mark
 * value of a lot and IM the worst of the 18 scenarios (underlying moves × vol up and down 30%).
 */
function shortLock(o: Option, lots: number, forward = 95_000): bigint {
  const T = Math.max(0, o.expiryMs - markTs) / YEAR_MS
  const sigma = smileVol(smileFor(BTC.options!, (o.expiryMs - markTs) / 86_400_000), forward, o.strike, T)
  const V = (f: number, s: number) => black76Price({ forward: f, strike: o.strike, timeYears: T, vol: s, rate: BTC.rate, isCall: o.isCall })
  const m = Math.round(0.01 * V(forward, sigma) * 1e6)
  const R = Number(BTC.riskImPct) / 100
  const scenarios = [
    ...[-1, -2 / 3, -1 / 3, 0, 1 / 3, 2 / 3, 1].map((move) => ({ move, weight: 1 })),
    { move: -2, weight: 0.35 },
    { move: 2, weight: 0.35 },
  ]
  let im = 0
  for (const { move, weight } of scenarios) {
    for (const shift of [0.7, 1.3]) {
      const a = Math.round(weight * 0.01 * (V(forward * (1 + move * R), sigma * shift) - V(forward, sigma)) * 1e6)
      im = Math.max(im, lots * a)
    }
  }
  return BigInt(lots * m + im)
}

async function optionOf(id: string): Promise<Option> {
  const m = (await api.graphql(`{ market(id: "${id}") { strike optionType expiry } }`)).body.data.market
  return { id, strike: Number(m.strike), isCall: m.optionType === 'CALL', expiryMs: Date.parse(m.expiry) }
}

beforeAll(async () => {
  // Marks stay fresh for an hour of the test clock; the last describe makes them stale on purpose.
  // The order-rate limiter's clock stands still, so its counts are exact however slow the machine (no
  // user here comes near its 120 calls).
  const limiterNow = testClock.now()
  ex = await startTestExchange({ ROLES: 'api,engine,scheduler', MARK_STALE_MS: '3600000', FAUCET_DAILY_CAP: '1000000' }, { rateLimitClock: () => limiterNow })
  api = http(ex.url!)
  markTs = testClock.now()
  await pushMarks(markTs)
  alice = await signIn(api, ex.url!)
  bob = await signIn(api, ex.url!)
  carol = await signIn(api, ex.url!)
  dave = await signIn(api, ex.url!)
  for (const u of [alice, bob, carol, dave]) await fundOptions(u, '20000')

  const board = (await api.get('/markets/board')).body
  const expiry = Object.keys(board.expiryForwards).find((e) => board.expiryForwards[e] === INDEX)!
  const weeklyExpiry = Object.keys(board.expiryForwards).find((e) => board.expiryForwards[e] !== INDEX)!
  const byDistance = (rows: any[], target: number, of = expiry) => rows.filter((r) => r.expiry === of).sort((a, b) => Math.abs(a.strikePrice - target) - Math.abs(b.strikePrice - target))
  const calls = byDistance(board.calls, 95_000)
  atm = await optionOf(calls[0].marketId)
  rules = await optionOf(calls[1].marketId)
  quoteMarket = await optionOf(calls[2].marketId)
  atmPut = await optionOf(byDistance(board.puts, 95_000)[0].marketId)
  otm = await optionOf(byDistance(board.calls, 110_000)[0].marketId)
  far = await optionOf(byDistance(board.calls, 1e9)[0].marketId)
  // Its highest strike: worth next to nothing, so one tick is inside its band.
  weekly = await optionOf(byDistance(board.calls.filter((r: any) => r.expiry === weeklyExpiry), 1e9, weeklyExpiry)[0].marketId)
})
afterAll(() => ex?.close())

describe('order entry rules: the spec\'s codes, the same over REST and GraphQL', () => {
  // The last column: whether the engine judges it (preview answers not approved, with the code as its
  // reason) or the request is malformed (preview is refused as placement is).
  const cases: Array<[string, () => Record<string, unknown>, number, string, ('engine' | 'request')?]> = [
    ['a linear market on /orders', () => ({ marketId: PERP, side: 'buy', price: '90000', quantity: '0.01' }), 400, 'INVALID_MARKET_ID'],
    ['an unknown market', () => ({ marketId: 'BTC-2099-01-01-1-C', side: 'buy', price: '0.05', quantity: '0.1' }), 400, 'INVALID_MARKET_ID'],
    ['a price off the 0.0001 tick', () => ({ marketId: rules.id, side: 'buy', price: '0.05005', quantity: '0.1' }), 400, 'INVALID_PRICE'],
    ['a limit order without a price', () => ({ marketId: rules.id, side: 'buy', quantity: '0.1' }), 400, 'INVALID_PRICE'],
    ['a price above the band', () => ({ marketId: rules.id, side: 'buy', price: '2', quantity: '0.1' }), 400, 'INVALID_PRICE', 'engine'],
    ['a quantity off the 0.01 step', () => ({ marketId: rules.id, side: 'buy', price: '0.05', quantity: '0.015' }), 400, 'INVALID_QUANTITY'],
    ['a quantity below the minimum', () => ({ marketId: rules.id, side: 'buy', price: '0.05', quantity: '0.001' }), 400, 'INVALID_QUANTITY'],
    ['a zero quantity', () => ({ marketId: rules.id, side: 'buy', price: '0.05', quantity: '0' }), 400, 'INVALID_QUANTITY'],
    ['an unknown time in force', () => ({ marketId: rules.id, side: 'buy', price: '0.05', quantity: '0.1', timeInForce: 'day' }), 400, 'INVALID_TIME_IN_FORCE'],
    ['a stopPrice', () => ({ marketId: rules.id, side: 'buy', price: '0.05', quantity: '0.1', stopPrice: '0.06' }), 400, 'INVALID_REQUEST'],
    ['a takeProfitPrice', () => ({ marketId: rules.id, side: 'buy', price: '0.05', quantity: '0.1', takeProfitPrice: '0.08' }), 400, 'INVALID_REQUEST'],
    ['a stopLossPrice', () => ({ marketId: rules.id, side: 'buy', price: '0.05', quantity: '0.1', stopLossPrice: '0.03' }), 400, 'INVALID_REQUEST'],
    ['marginMode isolated', () => ({ marketId: rules.id, side: 'buy', price: '0.05', quantity: '0.1', marginMode: 'isolated' }), 400, 'INVALID_REQUEST'],
    ['postOnly with ioc', () => ({ marketId: rules.id, side: 'buy', price: '0.05', quantity: '0.1', postOnly: true, timeInForce: 'ioc' }), 400, 'INVALID_REQUEST'],
    ['a reduce-only buy without a short', () => ({ marketId: rules.id, side: 'buy', price: '0.05', quantity: '0.1', reduceOnly: true }), 422, 'REDUCE_ONLY_VIOLATION', 'engine'],
  ]

  it.each(cases)('refuses %s with the same code on REST and GraphQL, and preview agrees', async (_n, body, status, code, by = 'request') => {
    expectError(await order(alice.cookie, body()), status, code)
    // GraphQL's TimeInForce is an enum: an unknown value fails coercion, which is INVALID_REQUEST there.
    expect(gqlCode(await gql(alice, PLACE, { input: input(body(), 'OPTION') }))).toBe(code === 'INVALID_TIME_IN_FORCE' ? 'INVALID_REQUEST' : code)
    // What the engine judges is the preview's reason; a malformed request is refused by preview as by placement.
    const preview = await api.post('/orders/preview', body(), alice.cookie)
    if (by === 'engine') expect(preview.body).toMatchObject({ approved: false, reason: code })
    else expectError(preview, status, code)
  })

  it('refuses an option market on /perps/orders and over GraphQL with kind LINEAR', async () => {
    const body = { marketId: rules.id, side: 'buy', price: '0.05', quantity: '0.1' }
    expectError(await api.post('/perps/orders', body, alice.cookie), 400, 'INVALID_MARKET_ID')
    expect(gqlCode(await gql(alice, PLACE, { input: input(body, 'LINEAR') }))).toBe('INVALID_MARKET_ID')
    expectError(await api.post('/perps/quotes', { marketId: rules.id, bid: { price: '0.05', quantity: '0.1' } }, alice.cookie), 400, 'INVALID_MARKET_ID')
    expectError(await api.post('/quotes', { marketId: PERP, bid: { price: '90000', quantity: '0.01' } }, alice.cookie), 400, 'INVALID_MARKET_ID')
  })

  it('needs scope trade to place and any credential to read', async () => {
    const read = await createKey(api, alice.cookie, { scope: 'read' })
    expectError(await order(read.auth, { marketId: rules.id, side: 'buy', price: '0.05', quantity: '0.1' }), 403, 'SCOPE_INSUFFICIENT')
    for (const path of ['/orders/me', '/balances/me', '/positions/me', '/trades/me']) {
      expect((await api.get(path, read.auth)).status).toBe(200)
      expectError(await api.get(path), 401, 'MISSING_CREDENTIAL')
    }
  })
})

describe('a trade between two users', () => {
  let ask: any
  let buy: any
  // 0.05 BTC a contract on 0.1 contracts at an index of 95,000: a premium of 475 USDC-T.
  const PREMIUM = 475_000_000n
  // 3 bps of 0.1 × 95,000, well under 12.5% of the premium.
  const FEE = 2_850_000n

  beforeAll(async () => {
    ask = (await order(bob.cookie, { marketId: atm.id, side: 'sell', price: '0.05', quantity: '0.1', clientOrderId: 'bob-ask-1' })).body
    const preview = await api.post('/orders/preview', { marketId: atm.id, side: 'buy', price: '0.05', quantity: '0.1' }, alice.cookie)
    expect(preview.body).toMatchObject({ approved: true, reason: null })
    buy = (await order(alice.cookie, { marketId: atm.id, side: 'buy', price: '0.05', quantity: '0.1' })).body
  })

  it('rests the ask as an option order (no margin mode) and fills the buy against it', async () => {
    expect(ask).toMatchObject({ marketId: atm.id, side: 'sell', type: 'limit', timeInForce: 'gtc', price: '0.05', quantity: '0.1', filledQuantity: '0', status: 'open', marginMode: null, clientOrderId: 'bob-ask-1' })
    expect(buy).toMatchObject({ marketId: atm.id, side: 'buy', price: '0.05', quantity: '0.1', filledQuantity: '0.1', status: 'filled', marginMode: null })
    const listed = (await api.get('/orders/me', bob.cookie)).body.find((o: any) => o.id === ask.id)
    expect(listed).toMatchObject({ status: 'filled', filledQuantity: '0.1' })
  })

  it('records the fills with premium, index and the 3 bps fee', async () => {
    const [a] = (await api.get('/trades/me', alice.cookie)).body
    const [b] = (await api.get('/trades/me', bob.cookie)).body
    const common = { marketId: atm.id, price: '0.05', quantity: '0.1', premium: '475', indexPrice: INDEX, fee: '2.85', feeBps: '3', type: 'trade' }
    expect(a).toEqual({ ...common, tradeId: expect.any(String), orderId: buy.id, side: 'buy', createdAt: expect.any(String) })
    expect(b).toEqual({ ...common, tradeId: expect.any(String), orderId: ask.id, side: 'sell', createdAt: expect.any(String) })
    // GraphQL's trade history of the same kind is the same rows.
    const g = (await gql(alice, `{ me { trades(kind: OPTION) { edges { node { tradeId marketId orderId side price quantity fee feeBps premium indexPrice type createdAt } } } } }`)).body
    expect(g.data.me.trades.edges.map((e: any) => ({ ...e.node, side: lower(e.node.side), type: lower(e.node.type) }))).toEqual((await api.get('/trades/me', alice.cookie)).body)
  })

  it('moves the premium from buyer to seller and charges each side its fee, to the micro-USDC', async () => {
    const funded = 20_000_000_000n
    const a = await balance(alice)
    const b = await balance(bob)
    expect(a).toEqual({ total: usdc(funded - PREMIUM - FEE), locked: '0', available: usdc(funded - PREMIUM - FEE) })
    expect(micro(b.total)).toBe(funded + PREMIUM - FEE)
    // The wallet view agrees with the options bucket.
    expect((await api.get('/wallet/balance', bob.cookie)).body.optionsBalance).toBe(b.total)
  })

  it('locks the short side\'s margin: its mark value plus the worst scenario loss', async () => {
    const b = await balance(bob)
    expect(micro(b.locked)).toBe(shortLock(atm, 10))
    expect(micro(b.available) + micro(b.locked)).toBe(micro(b.total))
    // A transfer out of the bucket cannot take locked funds.
    const over = formatDecimal(D(b.available).add('0.000001'))
    expectError(await api.post('/wallet/transfer', { from: 'options', to: 'wallet', amount: over }, bob.cookie), 422, 'INSUFFICIENT_MARGIN')
    expect(await balance(bob)).toEqual(b)
  })

  it('shows signed positions at the theoretical mark, over REST and GraphQL with greeks', async () => {
    // One instant for every read: the mark and the greeks move with time.
    testClock.freeze()
    try {
      await positionsAtOneInstant()
    } finally {
      testClock.resume()
    }
  })

  async function positionsAtOneInstant() {
    const mark = (await api.get('/markets/board')).body.calls.find((r: any) => r.marketId === atm.id).markPrice
    const worth = D(mark).mul('0.1').mul(INDEX)
    const [a] = (await api.get('/positions/me', alice.cookie)).body
    const [b] = (await api.get('/positions/me', bob.cookie)).body
    const pnl = (d: InstanceType<typeof D>) => formatDecimal(d.toDecimalPlaces(6, D.ROUND_DOWN))
    expect(a).toEqual({ marketId: atm.id, quantity: '0.1', avgPrice: '0.05', realizedPnl: '0', unrealizedPnl: pnl(worth.sub('475')) })
    expect(b).toEqual({ marketId: atm.id, quantity: '-0.1', avgPrice: '0.05', realizedPnl: '0', unrealizedPnl: pnl(D('475').sub(worth)) })
    // Linear reads do not show options.
    expect((await api.get('/perps/positions', alice.cookie)).body).toEqual([])
    expect((await api.get('/perps/trades', alice.cookie)).body).toEqual([])

    const q = `{ me { optionPositions { totals { delta gamma vega theta }
      edges { node { marketId quantity avgPrice markPrice realizedPnl unrealizedPnl greeks { delta gamma vega theta } } } } } }`
    const ga = (await gql(alice, q)).body.data.me.optionPositions
    const gb = (await gql(bob, q)).body.data.me.optionPositions
    const node = ga.edges[0].node
    const { markPrice, greeks, ...spec } = node
    expect(spec).toEqual(a)
    expect(markPrice).toBe(mark)
    for (const k of ['delta', 'gamma', 'vega', 'theta']) expect(greeks[k]).toMatch(DECIMAL)
    // A long call: delta and gamma and vega positive, theta negative; the short is its mirror.
    expect(Number(greeks.delta)).toBeGreaterThan(0)
    expect(Number(greeks.delta)).toBeLessThan(0.1)
    expect(Number(greeks.gamma)).toBeGreaterThan(0)
    expect(Number(greeks.vega)).toBeGreaterThan(0)
    expect(Number(greeks.theta)).toBeLessThan(0)
    expect(gb.edges[0].node.greeks).toEqual(Object.fromEntries(Object.entries(greeks).map(([k, v]) => [k, formatDecimal(D(v as string).neg())])))
    expect(ga.totals).toEqual(greeks)
  }

  it('answers the options balance the same over GraphQL', async () => {
    const g = (await gql(bob, `{ me { optionsBalance { available locked total } } }`)).body.data.me.optionsBalance
    expect(g).toEqual(await balance(bob))
  })
})

describe('the fee cap, over GraphQL', () => {
  it('charges at most 12.5% of the premium on a one-tick option', async () => {
    const before = { carol: micro((await balance(carol)).total), dave: micro((await balance(dave)).total) }
    const sell = await gql(dave, PLACE, { input: { marketId: far.id, side: 'SELL', price: '0.0001', quantity: '1' } })
    expect(sell.body.data.placeOrder, sell.text).toMatchObject({ status: 'OPEN', marginMode: null })
    const buy = await gql(carol, PLACE, { input: { marketId: far.id, side: 'BUY', price: '0.0001', quantity: '1' } })
    expect(buy.body.data.placeOrder).toMatchObject({ status: 'FILLED', filledQuantity: '1' })
    // Premium 0.0001 × 1 × 95,000 = 9.5; 3 bps of 95,000 is 28.5, capped at 12.5% of 9.5 = 1.1875.
    const trades = async (u: SignedIn) => (await gql(u, `{ me { trades(kind: OPTION, first: 1) { edges { node { premium fee feeBps indexPrice } } } } }`)).body.data.me.trades.edges[0].node
    expect(await trades(carol)).toEqual({ premium: '9.5', fee: '1.1875', feeBps: '3', indexPrice: INDEX })
    expect(await trades(dave)).toEqual({ premium: '9.5', fee: '1.1875', feeBps: '3', indexPrice: INDEX })
    expect(micro((await balance(carol)).total)).toBe(before.carol - 9_500_000n - 1_187_500n)
    expect(micro((await balance(dave)).total)).toBe(before.dave + 9_500_000n - 1_187_500n)
  })
})

describe('funds', () => {
  let poor: SignedIn
  beforeAll(async () => {
    poor = await signIn(api, ex.url!)
    await fundOptions(poor, '100')
  })

  it('refuses a buy whose premium and fee exceed the available balance, as preview says', async () => {
    const body = { marketId: otm.id, side: 'buy', price: '0.02', quantity: '0.1' } // 190 USDC-T of premium
    const preview = (await api.post('/orders/preview', body, poor.cookie)).body
    expect(preview).toMatchObject({ approved: false, reason: 'INSUFFICIENT_BALANCE' })
    expectError(await order(poor.cookie, body), 422, 'INSUFFICIENT_BALANCE')
    // What fits is approved and accepted, and its reservation is locked.
    const fits = { ...body, quantity: '0.05' }
    expect((await api.post('/orders/preview', fits, poor.cookie)).body).toMatchObject({ approved: true, reason: null })
    const placed = await order(poor.cookie, fits)
    expect(placed.body).toMatchObject({ status: 'open' })
    // A resting buy reserves its premium at the limit and the index (95) and its taker fee uncapped (1.425).
    expect(await balance(poor)).toEqual({ available: '3.575', locked: '96.425', total: '100' })
    expect((await api.post(`/orders/${placed.body.id}/cancel`, {}, poor.cookie)).status).toBe(200)
    expect(await balance(poor)).toEqual({ available: '100', locked: '0', total: '100' })
  })

  it('refuses a sell whose margin exceeds the available balance with requiredIm and availableIm', async () => {
    const body = { marketId: atmPut.id, side: 'sell', price: '0.05', quantity: '1' }
    expect((await api.post('/orders/preview', body, poor.cookie)).body).toMatchObject({ approved: false, reason: 'INSUFFICIENT_MARGIN' })
    const res = await order(poor.cookie, body)
    expectError(res, 422, 'INSUFFICIENT_MARGIN')
    expect(res.body.details).toEqual({ requiredIm: expect.stringMatching(DECIMAL), availableIm: expect.stringMatching(DECIMAL) })
    expect(Number(res.body.details.requiredIm)).toBeGreaterThan(Number(res.body.details.availableIm))
    const g = await gql(poor, PLACE, { input: input(body) })
    expect(g.body.errors[0].extensions).toMatchObject({ code: 'INSUFFICIENT_MARGIN', details: res.body.details })
  })
})

describe('the order lifecycle', () => {
  let resting: any
  let linear: any
  beforeAll(async () => {
    expect((await api.post('/wallet/transfer', { from: 'wallet', to: 'perps', amount: '20000' }, carol.cookie)).status).toBe(200)
    resting = (await order(carol.cookie, { marketId: rules.id, side: 'buy', price: '0.01', quantity: '0.2', clientOrderId: 'carol-opt-1' })).body
    linear = (await api.post('/perps/orders', { marketId: PERP, side: 'buy', price: '90000', quantity: '0.01', clientOrderId: 'carol-lin-1' }, carol.cookie)).body
    expect(resting.status).toBe('open')
    expect(linear.status).toBe('open')
  })

  it('shares the clientOrderId namespace with linear orders: 409 with the existing order', async () => {
    const dup = await order(carol.cookie, { marketId: rules.id, side: 'buy', price: '0.01', quantity: '0.1', clientOrderId: 'carol-lin-1' })
    expectError(dup, 409, 'DUPLICATE_CLIENT_ORDER_ID')
    expect(dup.body.details.existingOrder).toEqual(linear)
    const again = await order(carol.cookie, { marketId: rules.id, side: 'buy', price: '0.01', quantity: '0.1', clientOrderId: 'carol-opt-1' })
    expect(again.body.details.existingOrder).toEqual(resting)
  })

  it('keeps the kinds apart: lists, cancels and modifies of the other family do not see an order', async () => {
    const options = (await api.get('/orders/me', carol.cookie)).body
    expect(options.map((o: any) => o.id)).toContain(resting.id)
    expect(options.map((o: any) => o.id)).not.toContain(linear.id)
    const perps = (await api.get('/perps/orders', carol.cookie)).body
    expect(perps.map((o: any) => o.id)).toEqual([linear.id])
    expectError(await api.post(`/orders/${linear.id}/cancel`, {}, carol.cookie), 404, 'ORDER_NOT_FOUND')
    expectError(await api.post(`/perps/orders/${resting.id}/cancel`, {}, carol.cookie), 404, 'ORDER_NOT_FOUND')
    expectError(await api.post(`/orders/${linear.id}/modify`, { price: '91000' }, carol.cookie), 404, 'ORDER_NOT_FOUND')
    expectError(await api.post(`/perps/orders/${resting.id}/modify`, { price: '0.02' }, carol.cookie), 404, 'ORDER_NOT_FOUND')
    expect(gqlCode(await gql(carol, `mutation { cancelOrder(id: "${resting.id}", kind: LINEAR) { id } }`))).toBe('ORDER_NOT_FOUND')
    // Cancel-all on one family leaves the other's orders; a market of the other kind is unknown there.
    expectError(await api.post('/orders/cancel-all', { marketId: PERP }, carol.cookie), 400, 'INVALID_MARKET_ID')
    expect((await api.get('/orders/me', carol.cookie)).body.find((o: any) => o.id === resting.id).status).toBe('open')
    expect((await api.get('/perps/orders/open', carol.cookie)).body.map((o: any) => o.id)).toEqual([linear.id])
  })

  it('modifies price and quantity, then cancels; a second cancel is 409, another user\'s 404', async () => {
    const modified = await api.post(`/orders/${resting.id}/modify`, { price: '0.012', quantity: '0.3' }, carol.cookie)
    expect(modified.body).toMatchObject({ id: resting.id, price: '0.012', quantity: '0.3', status: 'open' })
    expectError(await api.post(`/orders/${resting.id}/modify`, { price: '0.01205' }, carol.cookie), 400, 'INVALID_PRICE')
    expectError(await api.post(`/orders/${resting.id}/cancel`, {}, dave.cookie), 404, 'ORDER_NOT_FOUND')
    const canceled = await api.post(`/orders/${resting.id}/cancel`, {}, carol.cookie)
    expect(canceled.body).toMatchObject({ id: resting.id, status: 'canceled', cancelReason: 'user' })
    expectError(await api.post(`/orders/${resting.id}/cancel`, {}, carol.cookie), 409, 'ORDER_NOT_CANCELABLE')
    expectError(await api.post('/orders/01ARZ3NDEKTSV4RRFFQ69G5FAV/cancel', {}, carol.cookie), 404, 'ORDER_NOT_FOUND')
  })

  it('cancels all option orders, or those of one quoteId, and leaves linear ones', async () => {
    const ids = []
    for (const price of ['0.001', '0.002', '0.003']) ids.push((await order(carol.cookie, { marketId: rules.id, side: 'buy', price, quantity: '0.1' })).body.id)
    const q = await api.post('/quotes', { marketId: rules.id, quoteId: 'carol-q', bid: { price: '0.004', quantity: '0.1' } }, carol.cookie)
    const byQuote = await api.post('/orders/cancel-all', { quoteId: 'carol-q' }, carol.cookie)
    expect(byQuote.body).toEqual({ canceled: 1, ids: [q.body.results[0].response.id] })
    const all = await api.post('/orders/cancel-all', {}, carol.cookie)
    expect(all.body.canceled).toBe(3)
    expect([...all.body.ids].sort()).toEqual([...ids].sort())
    expect((await api.get('/perps/orders/open', carol.cookie)).body.map((o: any) => o.id)).toEqual([linear.id])
  })

  it('pages /orders/me with limit and X-Next-Cursor, option orders only', async () => {
    const all = (await api.get('/orders/me?limit=200', carol.cookie)).body
    expect(all.length).toBeGreaterThanOrEqual(5)
    const first = await api.get('/orders/me?limit=2', carol.cookie)
    expect(first.body.map((o: any) => o.id)).toEqual(all.slice(0, 2).map((o: any) => o.id))
    const cursor = first.headers.get('x-next-cursor')!
    expect(cursor).toBe(all[1].id)
    const second = await api.get(`/orders/me?limit=2&cursor=${cursor}`, carol.cookie)
    expect(second.body.map((o: any) => o.id)).toEqual(all.slice(2, 4).map((o: any) => o.id))
    const last = await api.get(`/orders/me?limit=200`, carol.cookie)
    expect(last.headers.get('x-next-cursor')).toBeNull()
    // GraphQL's connection is the same list.
    const g = (await gql(carol, `{ me { orders(kind: OPTION, first: 200) { edges { node { ${ORDER_SELECTION} } } } } }`)).body.data.me.orders
    expect(g.edges.map((e: any) => gqlOrder(e.node))).toEqual(all)
  })
})

describe('the dead man\'s switch', () => {
  it('cancels option orders too when it fires', async () => {
    const placed = (await order(carol.cookie, { marketId: rules.id, side: 'buy', price: '0.001', quantity: '0.1' })).body
    expect(placed.status).toBe('open')
    const armed = await api.post('/orders/cancel-all-after', { timeoutMs: 1000 }, carol.cookie)
    expect(armed.status, armed.text).toBe(200)
    // The scheduler's heartbeat fires it once the clock has passed the deadline.
    testClock.advance(1_500)
    const ended = await pollUntil(async () => {
      const o = (await api.get('/orders/me', carol.cookie)).body.find((x: any) => x.id === placed.id)
      return o.status === 'canceled' ? o : null
    }, { what: 'the dead man\'s switch to cancel the option order' })
    expect(ended.cancelReason).toBe('dead_man_switch')
  })
})

describe('time in force, post-only, reduce-only and market orders', () => {
  beforeAll(async () => {
    // Dave rests two asks on the OTM call.
    for (const price of ['0.02', '0.021']) {
      const ask = await order(dave.cookie, { marketId: otm.id, side: 'sell', price, quantity: '0.1' })
      expect(ask.body.status, ask.text).toBe('open')
    }
  })

  it('refuses a post-only order that would cross, whole', async () => {
    const body = { marketId: otm.id, side: 'buy', price: '0.02', quantity: '0.1', postOnly: true }
    expect((await api.post('/orders/preview', body, alice.cookie)).body).toMatchObject({ approved: false, reason: 'POST_ONLY_WOULD_CROSS' })
    expectError(await order(alice.cookie, body), 422, 'POST_ONLY_WOULD_CROSS')
  })

  it('fok that cannot fill completely is canceled with nothing filled; ioc fills what it can', async () => {
    const fok = await order(alice.cookie, { marketId: otm.id, side: 'buy', price: '0.02', quantity: '0.2', timeInForce: 'fok' })
    expect(fok.body).toMatchObject({ status: 'canceled', filledQuantity: '0', cancelReason: 'fok_unfilled' })
    const ioc = await order(alice.cookie, { marketId: otm.id, side: 'buy', price: '0.02', quantity: '0.15', timeInForce: 'ioc' })
    expect(ioc.body).toMatchObject({ status: 'canceled', filledQuantity: '0.1' })
  })

  it('a market order takes the book; reduce-only may close but not grow a position', async () => {
    const mkt = await order(alice.cookie, { marketId: otm.id, side: 'buy', type: 'market', quantity: '0.05' })
    expect(mkt.body).toMatchObject({ type: 'market', status: 'filled', filledQuantity: '0.05' })
    const [fill] = (await api.get(`/trades/me?marketId=${otm.id}`, alice.cookie)).body
    expect(fill).toMatchObject({ orderId: mkt.body.id, price: '0.021', quantity: '0.05' })
    expectError(await order(alice.cookie, { marketId: otm.id, side: 'buy', price: '0.021', quantity: '0.01', reduceOnly: true }), 422, 'REDUCE_ONLY_VIOLATION')
    const close = await order(alice.cookie, { marketId: otm.id, side: 'sell', price: '0.0001', quantity: '0.15', reduceOnly: true, timeInForce: 'ioc' })
    expect(close.status, close.text).toBe(200)
    const position = (await api.get('/positions/me', alice.cookie)).body.find((p: any) => p.marketId === otm.id)
    // Nobody bids: the ioc closes nothing, and opens nothing either.
    expect(close.body).toMatchObject({ status: 'canceled', filledQuantity: '0' })
    expect(position.quantity).toBe('0.15')
  })
})

describe('quotes', () => {
  it('rests both sides of a two-sided quote, and REST and GraphQL answer alike', async () => {
    const rest = await api.post('/quotes', { marketId: quoteMarket.id, quoteId: 'mm-1', bid: { price: '0.01', quantity: '0.1' }, ask: { price: '0.09', quantity: '0.1' } }, dave.cookie)
    expect(rest.status, rest.text).toBe(200)
    expect(rest.body).toMatchObject({ marketId: quoteMarket.id, quoteId: 'mm-1', results: [
      { side: 'buy', response: { side: 'buy', price: '0.01', status: 'open', postOnly: true, quoteId: 'mm-1', marginMode: null } },
      { side: 'sell', response: { side: 'sell', price: '0.09', status: 'open', postOnly: true, quoteId: 'mm-1', marginMode: null } },
    ] })
    const g = await gql(dave, `mutation($input: PlaceQuoteInput!) { placeQuote(input: $input) { marketId quoteId results { side response { ${ORDER_SELECTION} } } } }`, {
      input: { marketId: quoteMarket.id, quoteId: 'mm-2', bid: { price: '0.011', quantity: '0.1' }, ask: { price: '0.089', quantity: '0.1' } },
    })
    // The same answer but for what differs by construction: ids, times, prices and the quoteId.
    const same = (r: any) => {
      const { id: _i, createdAt: _c, updatedAt: _u, price: _p, quoteId: _q, ...rest } = r.response
      return { side: r.side, response: rest }
    }
    const gq = g.body.data.placeQuote
    expect(gq.results.map((r: any) => same({ side: lower(r.side), response: gqlOrder(r.response) }))).toEqual(rest.body.results.map(same))
    expect(gq.results.map((r: any) => [r.response.price, r.response.quoteId])).toEqual([['0.011', 'mm-2'], ['0.089', 'mm-2']])
    const book = (await api.get(`/orderbook/${quoteMarket.id}`)).body
    expect({ bids: book.bids, asks: book.asks }).toEqual({ bids: [['0.011', '0.1'], ['0.01', '0.1']], asks: [['0.089', '0.1'], ['0.09', '0.1']] })
  })

  it('is atomic: a side that would cross refuses the quote whole, and neither side rests', async () => {
    const before = (await api.get(`/orderbook/${quoteMarket.id}`)).body
    const crossing = await api.post('/quotes', { marketId: quoteMarket.id, quoteId: 'mm-x', bid: { price: '0.005', quantity: '0.1' }, ask: { price: '0.011', quantity: '0.1' } }, carol.cookie)
    expectError(crossing, 422, 'POST_ONLY_WOULD_CROSS')
    const after = (await api.get(`/orderbook/${quoteMarket.id}`)).body
    expect({ bids: after.bids, asks: after.asks }).toEqual({ bids: before.bids, asks: before.asks })
    // A side the account cannot carry refuses the other side too.
    const poor = await signIn(api, ex.url!)
    await fundOptions(poor, '50')
    const short = await api.post('/quotes', { marketId: quoteMarket.id, bid: { price: '0.001', quantity: '0.01' }, ask: { price: '0.095', quantity: '5' } }, poor.cookie)
    expectError(short, 422, 'INSUFFICIENT_MARGIN')
    expect((await api.get('/orders/me', poor.cookie)).body).toEqual([])
  })

  it('a bulk quote with cancelAll cancels the caller\'s orders on the market first, then posts the batch', async () => {
    const bulk = await api.post('/quotes/bulk', {
      marketId: quoteMarket.id, quoteId: 'mm-3', cancelAll: true,
      quotes: [{ side: 'buy', price: '0.012', quantity: '0.2' }, { side: 'sell', price: '0.088', quantity: '0.2' }, { side: 'sell', price: '0.095', quantity: '0.1' }],
    }, dave.cookie)
    expect(bulk.status, bulk.text).toBe(200)
    expect(bulk.body.canceled).toBe(4)
    expect(bulk.body.results.map((r: any) => [r.side, r.response.price, r.response.status])).toEqual([['buy', '0.012', 'open'], ['sell', '0.088', 'open'], ['sell', '0.095', 'open']])
    const book = (await api.get(`/orderbook/${quoteMarket.id}`)).body
    expect({ bids: book.bids, asks: book.asks }).toEqual({ bids: [['0.012', '0.2']], asks: [['0.088', '0.2'], ['0.095', '0.1']] })
  })
})

describe('the order-path rate limit', () => {
  it('counts order, cancel, modify, cancel-all, quote and bulk calls one unit each; preview and reads none', async () => {
    const remaining = (r: HttpResult) => Number(r.headers.get('x-ratelimit-remaining'))
    const placed = await order(alice.cookie, { marketId: rules.id, side: 'buy', price: '0.001', quantity: '0.1' })
    let last = remaining(placed)
    const step = async (r: Promise<HttpResult>, counted: boolean) => {
      const res = await r
      if (counted) {
        expect(remaining(res), res.text).toBe(last - 1)
        last = remaining(res)
      } else expect(res.headers.get('x-ratelimit-remaining')).toBeNull()
    }
    await step(api.post('/orders/preview', { marketId: rules.id, side: 'buy', price: '0.001', quantity: '0.1' }, alice.cookie), false)
    await step(api.get('/orders/me', alice.cookie), false)
    await step(api.post(`/orders/${placed.body.id}/modify`, { price: '0.002' }, alice.cookie), true)
    await step(api.post(`/orders/${placed.body.id}/cancel`, {}, alice.cookie), true)
    await step(api.post('/quotes', { marketId: rules.id, bid: { price: '0.001', quantity: '0.1' } }, alice.cookie), true)
    await step(api.post('/quotes/bulk', { marketId: rules.id, quoteId: 'rl', cancelAll: true, quotes: [{ side: 'buy', price: '0.001', quantity: '0.1' }, { side: 'buy', price: '0.002', quantity: '0.1' }] }, alice.cookie), true)
    await step(api.post('/orders/cancel-all', {}, alice.cookie), true)
  })
})

describe('halted markets and a stale forward (fail closed)', () => {
  it('refuses orders on a halted option market with MARKET_HALTED, and takes them again once resumed', async () => {
    expect((await api.post(`/admin/markets/${rules.id}/halt`, {}, ADMIN)).status).toBe(200)
    const body = { marketId: rules.id, side: 'buy', price: '0.001', quantity: '0.1' }
    expectError(await order(alice.cookie, body), 409, 'MARKET_HALTED')
    expect((await api.post('/orders/preview', body, alice.cookie)).body).toMatchObject({ approved: false, reason: 'MARKET_HALTED' })
    expect((await api.post(`/admin/markets/${rules.id}/resume`, {}, ADMIN)).status).toBe(200)
    const ok = await order(alice.cookie, body)
    expect(ok.body.status).toBe('open')
    await api.post(`/orders/${ok.body.id}/cancel`, {}, alice.cookie)
  })

  it('refuses an option whose future is stale while a weekly on a fresh spot still trades', async () => {
    // Past the staleness threshold; only spot is refreshed, so the future-priced option's forward is stale.
    testClock.advance(3_600_001)
    await pushMarks(testClock.now(), [SPOT])
    const stale = { marketId: atm.id, side: 'buy', price: '0.001', quantity: '0.1' }
    expectError(await order(alice.cookie, stale), 422, 'STALE_MARK_PRICE')
    expect((await api.post('/orders/preview', stale, alice.cookie)).body).toMatchObject({ approved: false, reason: 'STALE_MARK_PRICE' })
    expect(gqlCode(await gql(alice, PLACE, { input: input(stale) }))).toBe('STALE_MARK_PRICE')
    const fresh = await order(alice.cookie, { marketId: weekly.id, side: 'buy', price: '0.0001', quantity: '0.1' })
    expect(fresh.body.status, fresh.text).toBe('open')
    // Cancels still work on a stale market.
    await pushMarks(testClock.now())
    expect((await api.post('/orders/cancel-all', {}, alice.cookie)).status).toBe(200)
  })
})
