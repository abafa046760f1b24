// Order retention against real batches: the pure engine trades on a clock the test moves, every batch
// is committed to PostgreSQL as the runner commits it, and the retention job, given its own "now",
// removes exactly the final never-filled orders past the age. What it leaves is all a rebuild needs:
// PostgreSQL still rebuilds the very engine that ran (same stateHash), clientOrderIds stay taken.
import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/engine/engine.js'
import { stateHash } from '../../src/engine/snapshot.js'
import { loadState } from '../../src/store/engineRebuild.js'
import { pruneUnfilledOrders } from '../../src/store/orderRetention.js'
import { envelope } from '../support/engineFixtures.js'
import { PERP, TradingHarness } from '../support/tradingFixtures.js'
import { batchDatabase } from '../support/batchDatabase.js'

const HOUR = 3_600_000
const RETENTION = 24 * HOUR

const store = batchDatabase('retention-test')

const commit = (h: TradingHarness) => store.commit(h)

const count = async (table: string) => (await store.pool.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n as number
const orderIds = async () => new Set((await store.pool.query<{ id: string }>('SELECT id FROM orders')).rows.map((r) => r.id))

describe('pruning orders that ended without a fill', () => {
  it('removes exactly the final unfilled orders past the age, in bounded chunks, and leaves what a rebuild needs', async () => {
    const h = new TradingHarness()
    for (const u of ['alice', 'bob', 'carol']) h.fund(u)
    const place = (u: string, req: Parameters<TradingHarness['placeOk']>[1]) => h.placeOk(u, req).id as string
    const cancel = (u: string, id: string) => h.ok({ type: 'CancelOrder', userId: u, orderId: id })
    const quote = (prices: string[], cancelFirst: boolean) =>
      (h.ok({ type: 'PlaceQuotes', userId: 'bob', marketId: PERP, quoteId: 'mm', cancelFirst, orders: prices.map((price, i) => h.spec({ side: i % 2 === 0 ? 'buy' : 'sell', price, quantity: '0.1', postOnly: true }, 'mm')) })
        .results as Array<{ response: { id: string } }>).map((l) => l.response.id)

    // Two days ago.
    const canceled = place('bob', { side: 'buy', price: '94000', quantity: '0.1' })
    cancel('bob', canceled)
    const tagged = place('bob', { side: 'buy', price: '94000', quantity: '0.1', clientOrderId: 'keep-me' })
    cancel('bob', tagged)
    const partly = place('alice', { side: 'sell', price: '95100', quantity: '0.1' })
    const taker = place('bob', { side: 'buy', price: '95100', quantity: '0.05' })
    cancel('alice', partly)
    const fok = place('carol', { side: 'buy', price: '95000', quantity: '0.1', timeInForce: 'fok' })
    const resting = place('carol', { side: 'buy', price: '93000', quantity: '0.1' })
    const replaced = quote(['94500', '95500'], true)
    const requoted = quote(['94600', '95400'], true)
    const liquidationStep = place('alice', { side: 'buy', price: '94000', quantity: '0.1' })
    cancel('alice', liquidationStep)
    await commit(h)
    // A liquidation step names its order: that order stays with the step (a row as the engine writes it).
    await store.pool.query(
      `INSERT INTO position_events (id, kind, "userId", "marketId", "orderId", "marginMode", quantity, "closedQuantity", "realizedPnl", fee, insurance, "createdAt")
       VALUES ($1, 'liquidation', 'alice', $2, $1, 'cross', 0, 0, 0, 0, 0, now())`,
      [liquidationStep, PERP],
    )

    // An hour ago: young enough to stay, whatever it is.
    h.tick(2 * 24 * HOUR - HOUR)
    h.marks({ BTC: '95000' })
    const young = place('carol', { side: 'buy', price: '94000', quantity: '0.1' })
    cancel('carol', young)
    await commit(h)
    h.tick(HOUR)

    const expected = [canceled, fok, ...replaced]
    const kept = [tagged, partly, taker, resting, ...requoted, liquidationStep, young]
    const before = await orderIds()
    expect(before).toEqual(new Set([...expected, ...kept]))
    const tables = ['fills', 'ledger_entries', 'positions', 'balances', 'position_events', 'candles']
    const rows = Object.fromEntries(await Promise.all(tables.map(async (t) => [t, await count(t)] as const)))
    expect(rows['fills']).toBe(2)

    // Chunks of three: a run capped at one chunk says more are left; the next takes the last one.
    expect(await pruneUnfilledOrders(store.pool, { retentionMs: RETENTION, now: h.now, chunkRows: 3, maxChunks: 1 })).toEqual({ deleted: 3, more: true })
    expect(await pruneUnfilledOrders(store.pool, { retentionMs: RETENTION, now: h.now, chunkRows: 3 })).toEqual({ deleted: 1, more: false })
    expect(await orderIds()).toEqual(new Set(kept))
    for (const t of tables) expect(await count(t), t).toBe(rows[t])
    // Nothing more until the young one is old enough.
    expect(await pruneUnfilledOrders(store.pool, { retentionMs: RETENTION, now: h.now, chunkRows: 2 })).toEqual({ deleted: 0, more: false })
    expect(await pruneUnfilledOrders(store.pool, { retentionMs: RETENTION, now: h.now + RETENTION, chunkRows: 2 })).toEqual({ deleted: 1, more: false })
    expect((await orderIds()).has(young)).toBe(false)

    // PostgreSQL still rebuilds the engine that ran, and a pruned order's clientOrderId is not one: the
    // ones that were given stay taken after the rebuild.
    const rebuilt = new Engine(await loadState(store.pool))
    expect(stateHash(rebuilt.state)).toBe(stateHash(h.engine.state))
    const again = rebuilt.apply(envelope({ type: 'PlaceOrder', userId: 'bob', order: h.spec({ side: 'buy', price: '94000', quantity: '0.1', clientOrderId: 'keep-me' }) }, h.now, { replyTo: 't' }))
    expect(again).toMatchObject({ ok: false, code: 'DUPLICATE_CLIENT_ORDER_ID', details: { existingOrderId: tagged } })
  })
})
