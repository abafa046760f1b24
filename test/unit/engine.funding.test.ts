// Perpetual marks and funding inside the engine, driven by the command clock.
import { describe, expect, it } from 'vitest'
import { SYSTEM_USER } from '../../src/domain/buckets.js'
import { Engine } from '../../src/engine/engine.js'
import { D, formatDecimal } from '../../src/domain/decimal.js'
import { FRACTION_SCALE, rateString, type FundingRow } from '../../src/engine/perpetual.js'
import { restoreSnapshot, serializeSnapshot, stateHash } from '../../src/engine/snapshot.js'
import { envelope, T0 } from '../support/engineFixtures.js'
import { PERP, TradingHarness } from '../support/tradingFixtures.js'

const INTERVAL = 300_000

/** alice long 1 BTC-PERP, bob short 1, and mm quoting 96,000 / 96,200 so the mid sits 1,100 above the index. */
function setup(): TradingHarness {
  const h = new TradingHarness()
  for (const u of ['alice', 'bob', 'mm']) h.fund(u, 1_000_000)
  h.placeOk('bob', { side: 'sell', price: '95000', quantity: '1' })
  h.placeOk('alice', { side: 'buy', price: '95000', quantity: '1' })
  h.placeOk('mm', { side: 'buy', price: '96000', quantity: '0.5' })
  h.placeOk('mm', { side: 'sell', price: '96200', quantity: '0.5' })
  return h
}

/** One Tick per second up to `until`. */
function tickTo(h: TradingHarness, until: number): void {
  while (h.now + 1_000 <= until) {
    h.tick(1_000)
    h.ok({ type: 'Tick' })
  }
}

describe('the perpetual mark', () => {
  it('starts at the index and moves toward the book\'s mid premium as an EMA', () => {
    const h = setup()
    const mark = () => Number(h.engine.state.marks.get(PERP)!.price)
    const index = () => Number(h.engine.state.marks.get(PERP)!.indexPrice)
    expect(index()).toBe(95_000)
    tickTo(h, T0 + 30_000)
    const after30 = mark() - index()
    expect(after30).toBeGreaterThan(300)
    expect(after30).toBeLessThan(1_100)
    tickTo(h, T0 + 600_000)
    expect(mark() - index()).toBeGreaterThan(1_090)
    expect(mark() - index()).toBeLessThanOrEqual(1_100)
  })

  it('decays back to the index when the book is one-sided', () => {
    const h = setup()
    tickTo(h, T0 + 200_000)
    h.ok({ type: 'CancelAll', userId: 'mm' })
    tickTo(h, T0 + 800_000)
    expect(Number(h.engine.state.marks.get(PERP)!.price) - 95_000).toBeLessThan(5)
  })
})

describe('funding', () => {
  it('settles at the period end: longs pay shorts at the clamped rate, to the micro-USDC, through clearing', () => {
    const h = setup()
    const before = { alice: h.balance('alice', 'perps'), bob: h.balance('bob', 'perps'), clearing: h.balance(SYSTEM_USER, 'clearing') }
    tickTo(h, T0 + INTERVAL - 1_000)
    h.engine.takeChanges()
    expect(h.balance('alice', 'perps')).toBe(before.alice)
    h.tick(1_000)
    h.ok({ type: 'Tick' })
    const changes = h.engine.takeChanges()
    // A premium above 1% for most of the period: the rate is clamped at 25 bps.
    const market = h.engine.state.markets.get(PERP)!
    expect(changes.funding[0]!.rate).toBe(0.0025 * FRACTION_SCALE)
    const markTicks = changes.funding[0]!.markTicks
    const due = market.notional(markTicks, 1_000) * 25n // × 25 bps
    const alicePays = (due + 9_999n) / 10_000n
    const bobGets = due / 10_000n
    expect(changes.funding.map((f) => [f.userId, f.amount, f.periodEnd])).toEqual([
      ['alice', -alicePays, T0 + INTERVAL],
      ['bob', bobGets, T0 + INTERVAL],
    ])
    expect(h.balance('alice', 'perps')).toBe(before.alice - alicePays)
    expect(h.balance('bob', 'perps')).toBe(before.bob + bobGets)
    expect(h.balance(SYSTEM_USER, 'clearing') - before.clearing).toBe(alicePays - bobGets)
    expect(h.engine.state.accounts.get('alice')!.positions.get(PERP)!.funding).toBe(-alicePays)
    expect(changes.ledger.filter((l) => l.kind === 'funding')).toHaveLength(4)
    expect(changes.events.find((e) => e.eventType === 'FundingSettled')).toMatchObject({ stream: `funding:${PERP}`, payload: { rate: '0.0025' } })
  })

  it('pays exactly once per period, whatever the number of ticks and restarts', () => {
    const h = setup()
    tickTo(h, T0 + INTERVAL)
    const paid = h.balance('alice', 'perps')
    h.ok({ type: 'Tick' })
    h.ok({ type: 'Tick' })
    expect(h.balance('alice', 'perps')).toBe(paid)
    // a restored engine continues the same accumulation: same state as the one that ran on
    const restored = new Engine(restoreSnapshot(JSON.parse(serializeSnapshot(h.engine.state))))
    for (let t = h.now + 1_000; t <= T0 + 2 * INTERVAL; t += 1_000) {
      h.engine.apply(envelope({ type: 'Tick' }, t))
      restored.apply(envelope({ type: 'Tick' }, t))
    }
    expect(stateHash(restored.state)).toBe(stateHash(h.engine.state))
    expect(h.balance('alice', 'perps')).toBeLessThan(paid) // the second period was paid, once
  })

  it('catches up on periods missed while the engine was down: each is settled once', () => {
    const h = setup()
    tickTo(h, T0 + 60_000) // a premium to pay on
    h.engine.takeChanges()
    h.tick(3 * INTERVAL + 1)
    h.ok({ type: 'Tick' })
    // The three periods that ended while it was down, each paid once by alice's long to bob's short.
    const paid = (rows: FundingRow[]) => rows.map((r) => [(r.periodEnd - T0) / INTERVAL, r.userId])
    expect(paid(h.engine.takeChanges().funding)).toEqual([[1, 'alice'], [1, 'bob'], [2, 'alice'], [2, 'bob'], [3, 'alice'], [3, 'bob']])
    expect(h.engine.state.markets.get(PERP)!.perp!.periodEnd).toBe(T0 + 4 * INTERVAL)
    h.ok({ type: 'Tick' })
    expect(h.engine.takeChanges().funding).toEqual([])
  })
})

describe('rateString', () => {
  it('writes a rate in 1e-10 exactly as the decimal division did', () => {
    const rates = [0, -0, 1, -1, 10, 100, 123_456, -123_456, 9_999_999_999, 10_000_000_000, -10_000_000_000, 37_500_000, 2 ** 53 - 1, -(2 ** 53 - 1)]
    for (let i = 0; i < 2_000; i++) rates.push(Math.trunc((Math.random() - 0.5) * 10 ** (1 + (i % 14))))
    for (const rate of rates) expect(rateString(rate), String(rate)).toBe(formatDecimal(D(rate).div(FRACTION_SCALE)))
  })
})
