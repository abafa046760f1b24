// The order-retention job as it runs: a scheduler job of the leading instance, over the orders real
// users placed through the API. Past the age, an order cancelled without a fill is no longer listed by
// GET /perps/orders; filled ones and their trades are listed as before. Ages are made by moving the
// rows' timestamps back, as the job reads them (the engine never reads them back).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fundPerps, signIn, type SignedIn } from '../support/auth.js'
import { startTestExchange, type TestExchange } from '../support/exchange.js'
import { http, type Http } from '../support/http.js'
import { pushBtcCurve } from '../support/marks.js'

const PERP = 'BTC-PERP'
let ex: TestExchange
let api: Http
let alice: SignedIn
let bob: SignedIn

beforeAll(async () => {
  ex = await startTestExchange({ ROLES: 'api,engine,scheduler', MARK_STALE_MS: '3600000' })
  api = http(ex.url!)
  expect((await pushBtcCurve(api, '95000')).status).toBe(200)
  alice = await signIn(api, ex.url!)
  bob = await signIn(api, ex.url!)
  await fundPerps(api, alice)
  await fundPerps(api, bob)
})
afterAll(() => ex?.close())

const place = async (u: SignedIn, body: Record<string, unknown>) => {
  const res = await api.post('/perps/orders', { marketId: PERP, type: 'limit', quantity: '0.01', ...body }, u.cookie)
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.id as string
}
const listed = async (u: SignedIn) => ((await api.get('/perps/orders?limit=100', u.cookie)).body as Array<{ id: string }>).map((o) => o.id)

describe('order retention', () => {
  it('drops orders that ended without a fill from the history once past the age; filled ones and trades stay', async () => {
    const unfilled = await place(alice, { side: 'buy', price: '94000' })
    expect((await api.post(`/perps/orders/${unfilled}/cancel`, {}, alice.cookie)).status).toBe(200)
    const maker = await place(alice, { side: 'sell', price: '95000' })
    const taker = await place(bob, { side: 'buy', price: '95000' })
    const resting = await place(alice, { side: 'buy', price: '93000' })
    expect(new Set(await listed(alice))).toEqual(new Set([unfilled, maker, resting]))
    const trades = (await api.get('/perps/trades', alice.cookie)).body

    await ex.pool.query(`UPDATE orders SET "createdAt" = "createdAt" - interval '2 days', "updatedAt" = "updatedAt" - interval '2 days'`)
    await ex.scheduler!.runNow('orderRetention')

    expect(new Set(await listed(alice))).toEqual(new Set([maker, resting]))
    expect(await listed(bob)).toEqual([taker])
    expect((await api.get('/perps/trades', alice.cookie)).body).toEqual(trades)
    expect(ex.logs.some((l) => l.includes('pruned orders that ended without a fill') && l.includes('"deleted":1'))).toBe(true)
  })
})
