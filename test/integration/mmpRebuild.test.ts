// Market-maker protection through PostgreSQL: the pure engine configures, counts, trips and resets
// protection, every batch is committed as the runner commits it, and a rebuild from the tables alone
// is the very engine that ran (same stateHash): configurations, windows, freezes and protected orders.
import { describe, expect, it } from 'vitest'
import type { Command } from '../../src/engine/commands.js'
import { stateHash } from '../../src/engine/snapshot.js'
import { loadState } from '../../src/store/engineRebuild.js'
import { TradingHarness } from '../support/tradingFixtures.js'
import { batchDatabase } from '../support/batchDatabase.js'

const CALL = 'BTC-2026-12-18-95000-C'
const PUT = 'BTC-2026-12-18-90000-P'
const UNIT = 1_000_000
const store = batchDatabase('mmp-test')

describe('market-maker protection in PostgreSQL', () => {
  it('rebuilds the same engine after configuring, counting, tripping, resetting and turning off', async () => {
    const h = new TradingHarness()
    const commit = () => store.commit(h)
    const rebuilt = async () => stateHash(await loadState(store.pool))
    for (const u of ['mm', 'mm2', 'taker']) {
      h.fund(u)
      h.ok({ type: 'Faucet', userId: u, amountMicro: String(100_000n * 1_000_000n), dailyCapMicro: '1000000000000000' })
      h.ok({ type: 'Transfer', userId: u, from: 'wallet', to: 'options', amountMicro: String(100_000n * 1_000_000n) })
    }
    const config = (userId: string, c: Partial<Extract<Command, { type: 'SetMmpConfig' }>>) =>
      h.ok({ type: 'SetMmpConfig', userId, underlying: 'BTC', intervalMs: 60_000, frozenMs: 0, quantityLimit: 0, deltaLimit: 0, ...c })
    const quote = (userId: string, marketId: string, price: string) =>
      h.ok({ type: 'PlaceQuotes', userId, marketId, quoteId: 'q', cancelFirst: true, amend: true, kind: 'option', orders: [h.spec({ marketId, side: 'sell', price, quantity: '1', postOnly: true }, 'q')] })
    const take = (marketId: string, price: string) =>
      h.ok({ type: 'PlaceOrder', userId: 'taker', order: h.spec({ marketId, side: 'buy', price, quantity: '1', timeInForce: 'ioc' }), kind: 'option' })

    config('mm', { quantityLimit: 1.5 * UNIT })
    config('mm2', { deltaLimit: 10 * UNIT, frozenMs: 5_000 })
    quote('mm', CALL, '0.0500')
    quote('mm', PUT, '0.0300')
    quote('mm2', PUT, '0.0310')
    h.ok({ type: 'PlaceOrder', userId: 'mm2', order: h.spec({ marketId: CALL, side: 'sell', price: '0.0600', quantity: '1' }), kind: 'option', mmp: true })
    await commit()
    expect(await rebuilt()).toBe(stateHash(h.engine.state))

    take(CALL, '0.0500') // mm's window: 1 of 1.5
    take(PUT, '0.0310') // mm's put first (0.03): 2 > 1.5, tripped until reset
    await commit()
    expect(h.engine.state.mmp.get('mm|BTC')!.trippedAt).toBe(h.now)
    expect(await rebuilt()).toBe(stateHash(h.engine.state))

    h.tick(1_000)
    h.marks({ BTC: '95000' })
    h.ok({ type: 'ResetMmp', userId: 'mm', underlying: 'BTC' })
    config('mm2', { intervalMs: 0 })
    await commit()
    expect(h.engine.state.mmp.has('mm2|BTC')).toBe(false)
    expect((await store.pool.query('SELECT "userId" FROM mmp_states')).rows).toEqual([{ userId: 'mm' }])
    expect(await rebuilt()).toBe(stateHash(h.engine.state))
  })
})
