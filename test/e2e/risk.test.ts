// Risk over real HTTP: fail-closed marks as the feed stops and resumes, preview/placement equivalence,
// funding paid to the micro-USDC, a liquidation driven by pushed marks, a settlement across an expiry.
// Time travel: the engine's clock is the running maximum of command times, so a test moves it forward
// by sending the scheduler's Tick (or a mark) with a later timestamp through the command bus.
import { describe, expect, it } from 'vitest'
import { D } from '../../src/domain/decimal.js'
import { isUlid } from '../../src/domain/ids.js'
import { runListing } from '../../src/roles/scheduler/listingJob.js'
import { expectError, fundPerps, type SignedIn, signIn } from '../support/auth.js'
import { watchEvent } from '../support/events.js'
import { ADMIN, exchangeFor, type TestExchange } from '../support/exchange.js'
import { DECIMAL, ISO, type Http } from '../support/http.js'
import { btcFutures, pushBtcCurve } from '../support/marks.js'
import { testClock } from '../support/clock.js'

const PERP = 'BTC-PERP'

async function user(api: Http, ex: TestExchange, perps: string): Promise<SignedIn> {
  const u = await signIn(api, ex.url!)
  await fundPerps(api, u, perps)
  return u
}

const order = (api: Http, u: SignedIn, body: Record<string, unknown>) => api.post('/perps/orders', { marketId: PERP, ...body }, u.cookie)

describe('fail-closed marks', () => {
  // The threshold is far above the feed's cadence, so a loaded machine never lets a mark go stale on its
  // own; staleness comes from moving the engine's clock past it.
  const STALE_MS = 3_000
  const h = exchangeFor({ MARK_FEED: 'sim', MARK_FEED_INTERVAL_MS: '100', MARK_STALE_MS: String(STALE_MS) })

  it('stops trading when the feed stops and resumes when it resumes', async () => {
    await (await watchEvent(h.ex, `prices:${PERP}`, () => true)).event
    const alice = await user(h.api, h.ex, '50000')
    // 5% under the mark, on the 0.1 tick: inside the price band, which moves with every mark.
    const price = async () => {
      const mark = (await h.api.graphql(`{ market(id: "${PERP}") { mark { price } } }`)).body.data.market.mark.price as string
      return D(mark).mul('0.95').toDecimalPlaces(1).toFixed(1)
    }
    expect((await order(h.api, alice, { side: 'buy', price: await price(), quantity: '0.01' })).status).toBe(200)

    expectError(await h.api.post('/admin/feed', { enabled: false, until: 0 }, ADMIN), 400, 'INVALID_REQUEST')
    expect((await h.api.post('/admin/feed', { enabled: false }, ADMIN)).body).toEqual({ enabled: false })
    // No waiting for the threshold to pass: the engine's clock is moved past it.
    const later = testClock.now() + STALE_MS + 500
    await h.ex.services.commands.execute({ type: 'Tick' }, { ts: later })
    const stale = await order(h.api, alice, { side: 'buy', price: await price(), quantity: '0.01' })
    expectError(stale, 422, 'STALE_MARK_PRICE')
    expect(stale.body.details).toMatchObject({ thresholdMs: STALE_MS })

    const fresh = await watchEvent(h.ex, `prices:${PERP}`, (e) => e.sourceTs! >= later - STALE_MS)
    expect((await h.api.post('/admin/feed', { enabled: true }, ADMIN)).body).toEqual({ enabled: true })
    await fresh.event
    expect((await order(h.api, alice, { side: 'buy', price: await price(), quantity: '0.01' })).status).toBe(200)
  })
})

describe('with pushed marks', () => {
  const h = exchangeFor({ MARK_STALE_MS: '3600000' })
  let alice: SignedIn
  let bob: SignedIn
  let mm: SignedIn

  it('refuses with MISSING_MARK_PRICE before any mark', async () => {
    alice = await user(h.api, h.ex, '10000')
    expectError(await order(h.api, alice, { side: 'buy', price: '95000', quantity: '0.01' }), 422, 'MISSING_MARK_PRICE')
    expect((await pushBtcCurve(h.api, '95000')).status).toBe(200)
    bob = await user(h.api, h.ex, '60000')
    mm = await user(h.api, h.ex, '90000')
  })

  it('preview agrees with placement, approval and code, request by request', async () => {
    const cases = [
      { side: 'buy', price: '94000', quantity: '0.01' },
      { side: 'buy', price: '95000', quantity: '5' }, // too much for 10,000
      { side: 'sell', price: '80000', quantity: '0.01' }, // outside the band
      { side: 'sell', price: '96000', quantity: '0.01', reduceOnly: true },
      { side: 'buy', type: 'market', quantity: '0.01', stopPrice: '96000' },
      { side: 'buy', price: '94000', quantity: '0.01', takeProfitPrice: '93000' },
    ]
    for (const body of cases) {
      const preview = await h.api.post('/perps/orders/preview', { marketId: PERP, ...body }, alice.cookie)
      expect(preview.status).toBe(200)
      expect(Object.keys(preview.body).sort()).toEqual(['approved', 'estimatedFee', 'liquidationPrice', 'marginImpact', 'reason'])
      const placed = await order(h.api, alice, body)
      expect([preview.body.approved, preview.body.reason], JSON.stringify(body)).toEqual([placed.status === 200, placed.status === 200 ? null : placed.body.code])
    }
    const p = await h.api.post('/perps/orders/preview', { marketId: PERP, side: 'buy', price: '95000', quantity: '0.05' }, alice.cookie)
    expect(p.body).toMatchObject({ approved: true, marginImpact: { initialMargin: '475', maintenanceMargin: '237.5' }, estimatedFee: expect.stringMatching(DECIMAL) })
    await h.api.post('/perps/orders/cancel-all', {}, alice.cookie)
  })

  it('pays funding at the period end to the micro-USDC, in the ledger, the position and trade history', async () => {
    await order(h.api, bob, { side: 'sell', price: '95000', quantity: '0.05' })
    expect((await order(h.api, alice, { side: 'buy', price: '95000', quantity: '0.05' })).body.status).toBe('filled')
    // The book's mid sits above the index: the perpetual trades at a premium and longs pay.
    await order(h.api, mm, { side: 'buy', price: '96000', quantity: '0.1' })
    await order(h.api, mm, { side: 'sell', price: '96400', quantity: '0.1' })
    const stats = (await h.api.get('/perps/market-stats')).body.find((s: any) => s.marketId === PERP)
    // Through the current (partial) period and one whole period after it, a tick a second.
    const periodEnd = Date.parse(stats.nextFundingAt) + 300_000
    for (let t = testClock.now() + 1_000; t < periodEnd - 300_000; t += 1_000) await h.ex.services.commands.execute({ type: 'Tick' }, { ts: t })
    await h.ex.services.commands.execute({ type: 'Tick' }, { ts: periodEnd - 300_000 })
    const before = (await h.api.get('/wallet/balance', alice.cookie)).body.perpsBalance
    for (let t = periodEnd - 299_000; t <= periodEnd; t += 1_000) await h.ex.services.commands.execute({ type: 'Tick' }, { ts: t })

    const history = (await h.api.get('/perps/trades', alice.cookie)).body
    const funding = history.find((t: any) => t.type === 'funding')
    expect(funding).toMatchObject({ marketId: PERP, side: 'buy', quantity: '0.05', fee: '0', orderId: null, fundingRate: '0.0025' })
    // 0.05 × mark × 25 bps, rounded up against the payer, exactly to the micro-USDC
    const due = D(funding.price).mul('0.05').mul('0.0025').toDecimalPlaces(6, D.ROUND_UP)
    expect(D(funding.amount).eq(due.neg())).toBe(true)
    const after = (await h.api.get('/wallet/balance', alice.cookie)).body.perpsBalance
    expect(D(after).minus(before).eq(funding.amount)).toBe(true)
    const total = history.filter((t: any) => t.type === 'funding').reduce((sum: D, t: any) => sum.plus(t.amount), D(0))
    expect(D((await h.api.get('/perps/positions', alice.cookie)).body.find((p: any) => p.marketId === PERP).fundingPayment).eq(total)).toBe(true)
    const bobFunding = (await h.api.get('/perps/trades', bob.cookie)).body.find((t: any) => t.type === 'funding')
    expect(D(bobFunding.amount).gt(0)).toBe(true)
    expect(D(bobFunding.amount).lte(due)).toBe(true) // receivers are rounded down
    const next = (await h.api.get('/perps/market-stats')).body.find((s: any) => s.marketId === PERP)
    expect(Date.parse(next.nextFundingAt)).toBe(periodEnd + 300_000)
    expect(next.fundingRate).toMatch(DECIMAL)
  })
})

describe('liquidation and settlement', () => {
  const h = exchangeFor({ MARK_STALE_MS: '3600000' }, (api) => pushBtcCurve(api, '95000'))

  it('liquidates an account whose equity falls below maintenance as pushed marks fall', async () => {
    const carol = await user(h.api, h.ex, '10000')
    const mm = await user(h.api, h.ex, '90000')
    await order(h.api, mm, { side: 'sell', price: '95000', quantity: '1' })
    await order(h.api, carol, { side: 'buy', price: '95000', quantity: '1' })
    await order(h.api, mm, { side: 'buy', price: '89000', quantity: '2' })
    expect((await pushBtcCurve(h.api, '90500')).status).toBe(200)
    expect((await h.api.get('/perps/positions', carol.cookie)).body).toHaveLength(1)
    await pushBtcCurve(h.api, '89100')
    expect((await h.api.get('/perps/positions', carol.cookie)).body).toEqual([])
    const steps = (await h.api.get('/perps/liquidations', carol.cookie)).body
    expect(steps).toEqual([
      expect.objectContaining({ marketId: PERP, marginMode: 'cross', quantity: '1', closedQuantity: '1', price: '89000', realizedPnl: '-6000', fee: '445', insurance: '0' }),
    ])
    expect((await h.api.get('/perps/trades', carol.cookie)).body[0]).toMatchObject({ type: 'liquidation', side: 'sell', price: '89000', quantity: '1' })
    const gql = await h.api.graphql(`{ me { liquidations { edges { node { fee closedQuantity } } } } }`, undefined, carol.cookie)
    expect(gql.body.data.me.liquidations.edges[0].node).toEqual({ fee: '445', closedQuantity: '1' })
  })

  it('settles a future at its expiry at the spot TWAP, closes positions, lists the next quarter', async () => {
    // The front quarterly, unless its last hour has begun: the test moves the engine's clock forward
    // through the settlement window, never back into it.
    const [f1] = btcFutures().filter((id) => Date.parse(`${id.slice(-10)}T08:00:00Z`) > testClock.now() + 60 * 60_000)
    const dave = await user(h.api, h.ex, '50000')
    const mm = await user(h.api, h.ex, '50000')
    await pushBtcCurve(h.api, '95000')
    await h.api.post('/perps/orders', { marketId: f1, side: 'sell', price: '95000', quantity: '0.1' }, mm.cookie)
    await h.api.post('/perps/orders', { marketId: f1, side: 'buy', price: '95000', quantity: '0.1' }, dave.cookie)
    const expiry = Date.parse((await h.api.get('/perps/markets')).body.find((m: any) => m.marketId === f1).expiry)
    // Spot at 97,000 through the last half hour (pushed with the engine's clock moved there).
    const spotAt = (t: number, price: string) =>
      h.ex.services.commands.execute({ type: 'UpdateMarks', marks: [{ marketId: 'BTC-USDC-SPOT', price, source: 'push', sourceTs: t }] }, { ts: t })
    await spotAt(expiry - 45 * 60_000, '97000')
    await spotAt(expiry - 5 * 60_000, '97000')
    // The listing job, run at the expiry, lists the next quarter and expires the front future.
    const result = await runListing(h.ex.services.marketData, h.ex.services.commands, 5_000, expiry)
    expect(result.expired).toBeGreaterThanOrEqual(1)
    const markets = await h.api.graphql(`{ markets(includeSettled: true, type: FUTURE, family: "BTC") { edges { node { marketId tradingStatus settlementPrice } } } }`)
    const nodes = markets.body.data.markets.edges.map((e: any) => e.node)
    expect(nodes.find((m: any) => m.marketId === f1)).toEqual({ marketId: f1, tradingStatus: 'SETTLED', settlementPrice: '97000' })
    expect(nodes.filter((m: any) => m.tradingStatus === 'ACTIVE')).toHaveLength(2) // the next quarter joined
    expect((await h.api.get('/perps/positions', dave.cookie)).body.find((p: any) => p.marketId === f1)).toBeUndefined()
    const settlement = (await h.api.get('/perps/trades', dave.cookie)).body.find((t: any) => t.type === 'settlement')
    expect(settlement).toMatchObject({ marketId: f1, side: 'sell', price: '97000', quantity: '0.1', amount: '200' })
    expect((await h.api.get('/perps/markets')).body.some((m: any) => m.marketId === f1)).toBe(false)
  })
})

describe('conditional orders', () => {
  const h = exchangeFor({ MARK_STALE_MS: '3600000' }, (api) => pushBtcCurve(api, '95000'))

  const listed = async (u: SignedIn, id: string) => (await h.api.get('/perps/orders', u.cookie)).body.find((o: any) => o.id === id)

  it('lists a stop with its trigger state, cancels one, and fires another when the mark crosses it', async () => {
    const alice = await user(h.api, h.ex, '20000')
    const mm = await user(h.api, h.ex, '90000')
    const stop = await order(h.api, alice, { side: 'buy', type: 'market', quantity: '0.01', stopPrice: '96000' })
    expect(stop.body).toMatchObject({ status: 'open', stopPrice: '96000', triggeredAt: null, filledQuantity: '0' })
    expect((await h.api.get('/perps/orders/open', alice.cookie)).body.map((o: any) => o.id)).toContain(stop.body.id)
    // Waiting outside the book: nothing rests at any price.
    expect((await h.api.get(`/perps/orderbook/${PERP}`)).body.bids).toEqual([])

    const spare = await order(h.api, alice, { side: 'buy', type: 'market', quantity: '0.01', stopPrice: '97000' })
    expect((await h.api.post(`/perps/orders/${spare.body.id}/cancel`, {}, alice.cookie)).status).toBe(200)
    expect(await listed(alice, spare.body.id)).toMatchObject({ status: 'canceled', triggeredAt: null })

    await order(h.api, mm, { side: 'sell', price: '96100', quantity: '0.01' })
    await pushBtcCurve(h.api, '96100')
    expect(await listed(alice, stop.body.id)).toMatchObject({ status: 'filled', filledQuantity: '0.01', triggeredAt: expect.stringMatching(ISO) })
    expect((await h.api.get('/perps/positions', alice.cookie)).body[0]).toMatchObject({ marketId: PERP, side: 'long', quantity: '0.01' })
  })

  it('ends a stop refused when it triggers as rejected, its reason the error code on REST and GraphQL alike', async () => {
    const carol = await user(h.api, h.ex, '20000')
    // Reduce-only with no position to reduce: accepted while it waits, refused once it triggers.
    const stop = await order(h.api, carol, { side: 'sell', type: 'market', quantity: '0.01', stopPrice: '93000', reduceOnly: true })
    expect(stop.body).toMatchObject({ status: 'open', cancelReason: null })
    await pushBtcCurve(h.api, '92900')
    expect(await listed(carol, stop.body.id)).toMatchObject({ status: 'rejected', cancelReason: 'REDUCE_ONLY_VIOLATION', triggeredAt: expect.stringMatching(ISO) })
    const gql = await h.api.graphql(`{ me { orders(first: 10) { edges { node { id status cancelReason } } } } }`, undefined, carol.cookie)
    expect(gql.body.data.me.orders.edges.map((e: any) => e.node)).toContainEqual({ id: stop.body.id, status: 'REJECTED', cancelReason: 'REDUCE_ONLY_VIOLATION' })
    await pushBtcCurve(h.api, '96100') // where the previous test left the mark
  })

  it('arms a take-profit/stop-loss pair on the fill, lists both, and the one that fires cancels the other', async () => {
    const bob = await user(h.api, h.ex, '20000')
    const mm = await user(h.api, h.ex, '90000')
    await order(h.api, mm, { side: 'sell', price: '96100', quantity: '0.02' })
    const parent = await order(h.api, bob, { side: 'buy', price: '96100', quantity: '0.02', takeProfitPrice: '97000', stopLossPrice: '95000' })
    expect(parent.body).toMatchObject({ status: 'filled', takeProfitPrice: '97000', stopLossPrice: '95000', parentOrderId: null })
    const open = (await h.api.get('/perps/orders/open', bob.cookie)).body
    // Each child has a ULID of its own (SPEC.md: order ids are ULIDs); parentOrderId links it to its order.
    const tp = open.find((o: any) => o.parentOrderId === parent.body.id && o.takeProfitPrice !== null)
    const sl = open.find((o: any) => o.parentOrderId === parent.body.id && o.stopLossPrice !== null)
    expect(tp).toMatchObject({ side: 'sell', quantity: '0.02', reduceOnly: true, status: 'open', triggeredAt: null, takeProfitPrice: '97000' })
    expect(sl).toMatchObject({ side: 'sell', quantity: '0.02', reduceOnly: true, status: 'open', triggeredAt: null, stopLossPrice: '95000' })
    expect([tp.id, sl.id].every(isUlid)).toBe(true)
    expect(tp.id).not.toBe(sl.id)
    const gql = await h.api.graphql('{ me { orders(first: 10, status: OPEN) { edges { node { id parentOrderId } } } } }', undefined, bob.cookie)
    expect(gql.body.data.me.orders.edges.map((e: any) => e.node)).toEqual(
      expect.arrayContaining([{ id: tp.id, parentOrderId: parent.body.id }, { id: sl.id, parentOrderId: parent.body.id }]),
    )

    await order(h.api, mm, { side: 'buy', price: '94900', quantity: '0.02' })
    await pushBtcCurve(h.api, '94900')
    expect(await listed(bob, sl.id)).toMatchObject({ status: 'filled', triggeredAt: expect.stringMatching(ISO), parentOrderId: parent.body.id })
    expect(await listed(bob, tp.id)).toMatchObject({ status: 'canceled', cancelReason: 'oco', parentOrderId: parent.body.id })
    expect((await h.api.get('/perps/positions', bob.cookie)).body).toEqual([])
  })
})
