// The option margin reference (test/support/referenceOptionMargin.ts) on portfolios whose answers are
// known without it: the forward each expiry uses, a buy's reserve to the micro-USDC, where a short call
// and a short put lose most, a long that can lose no more than it is worth, a spread whose loss is
// bounded by its width, open sells that would or would not add risk. The randomized engine test
// trusts it as the yardstick of the engine's option margin; this is why.
import { describe, expect, it } from 'vitest'
import { familyCatalog } from '../../src/config/catalog.js'
import { WEEK_MS } from '../../src/domain/calendar.js'
import { D } from '../../src/domain/decimal.js'
import { optionTheo, YEAR_MS } from '../../src/domain/pricing/optionTheo.js'
import type { Account, Position } from '../../src/engine/account.js'
import { Engine } from '../../src/engine/engine.js'
import type { EngineState } from '../../src/engine/state.js'
import { catalogAt, envelope, T0 } from '../support/engineFixtures.js'
import type { HypotheticalOrder } from '../support/referenceMargin.js'
import { MOVES, referenceOptionMargin, referenceOptionValuation, VOL_SHIFTS } from '../support/referenceOptionMargin.js'

const BTC = familyCatalog('BTC')!
const USDC = 1_000_000n
/** Options of the March expiry (forward: the March future) and of the first weekly (synthetic). */
const MARCH = '2027-03-19'
const WEEKLY = '2026-11-27'
const id = (expiry: string, strike: number, type: 'C' | 'P') => `BTC-${expiry}-${strike}-${type}`

/** The catalog listed, spot at 95,000 (stamped T0 − 100) and the futures at 96,000 (stamped T0). */
function market(): { state: EngineState; account: Account } {
  const engine = new Engine()
  const markets = catalogAt()
  const apply = (cmd: Parameters<Engine['apply']>[0]['cmd']) => {
    const r = engine.apply(envelope(cmd, T0))
    if (!r.ok) throw new Error(`${cmd.type}: ${r.code} ${r.message}`)
  }
  apply({ type: 'ListMarkets', markets })
  const btc = markets.filter((m) => m.family === 'BTC' && (m.type === 'spot' || m.type === 'future'))
  apply({ type: 'UpdateMarks', marks: btc.map((m) => ({ marketId: m.id, price: m.type === 'spot' ? '95000' : '96000', source: 'test', sourceTs: m.type === 'spot' ? T0 - 100 : T0 })) })
  const account = engine.state.account('alice')
  account.balances.set('options', 50_000n * USDC)
  return { state: engine.state, account }
}

/** Sets a position directly: the reference reads only its market and signed lots. */
function hold(state: EngineState, account: Account, marketId: string, lots: number): void {
  account.positions.set(marketId, { userId: account.userId, marketId, market: state.markets.get(marketId)!, lots } as Position)
}

const lossIn = (array: readonly bigint[], lots: number) => array.map((a) => -BigInt(lots) * a)
const worstOf = (losses: bigint[]) => losses.indexOf(losses.reduce((a, b) => (b > a ? b : a)))
const scenario = (i: number) => ({ move: MOVES[Math.floor(i / VOL_SHIFTS.length)]!.move, vol: VOL_SHIFTS[i % VOL_SHIFTS.length]! })

describe('option margin reference', () => {
  it('values an option on its expiry forward: the matching future, else spot·e^(rT); at the newest mark time', () => {
    const { state } = market()
    const march = referenceOptionValuation(state, state.markets.get(id(MARCH, 95_000, 'C'))!)!
    expect(march).toMatchObject({ forward: 96_000, forwardSource: 'future', t: T0 })
    const weekly = referenceOptionValuation(state, state.markets.get(id(WEEKLY, 95_000, 'C'))!)!
    const t = (Date.parse(`${WEEKLY}T08:00:00Z`) - (T0 - 100)) / YEAR_MS
    expect(weekly).toMatchObject({ forwardSource: 'synthetic', t: T0 - 100 })
    expect(weekly.forward).toBeCloseTo(95_000 * Math.exp(BTC.rate * t), 9)
    // The mark value agrees with the board's theoretical price (in underlying units on the tick) to half a tick.
    for (const v of [march, weekly]) {
      const m = state.markets.get(v.marketId)!.spec
      const theo = optionTheo({
        nowMs: v.t, expiryMs: m.expiryMs!, strike: Number(m.strike), isCall: true, forward: v.forward, indexSpot: 95_000,
        rate: BTC.rate, smile: smileOf(v.t, m.expiryMs!), tick: D(m.tickSize),
      })
      expect(Math.abs(Number(v.markPerLot) / 1e6 / 0.01 / 95_000 - theo.price.toNumber())).toBeLessThanOrEqual(0.0000501)
    }
    // Without the future's mark there is no valuation.
    state.marks.delete(state.markets.get(`BTC-USDC-2027-03-26`)!.spec.id)
    expect(referenceOptionValuation(state, state.markets.get(id(MARCH, 95_000, 'C'))!)).toBeNull()
    expect(state.markets.get(`BTC-USDC-2027-03-26`)!.spec.expiryMs).toBe(Date.parse(`${MARCH}T08:00:00Z`) + WEEK_MS)
  })

  it('reserves a buy\'s premium at its limit and the uncapped taker fee, both at the spot index', () => {
    const { state, account } = market()
    // 1.00 at 0.0500 with spot 95,000: premium 4,750, fee 3 bps of 95,000 = 28.5.
    const buy: HypotheticalOrder = { marketId: id(MARCH, 95_000, 'C'), side: 'buy', lots: 100, priceTicks: 500 }
    const r = referenceOptionMargin(state, account, [buy])
    expect(r).toMatchObject({ cash: 50_000n * USDC, nov: 0n, im: 0n, mm: 0n, buyReserve: 4_778_500_000n, available: 50_000n * USDC - 4_778_500_000n })
    expect(r.locked).toBe(4_778_500_000n)
    // 0.01 at 0.0001: 0.095 of premium and 0.285 of fee (the fee on the notional, not the premium).
    const tiny: HypotheticalOrder = { ...buy, lots: 1, priceTicks: 1 }
    expect(referenceOptionMargin(state, account, [tiny, tiny]).buyReserve).toBe(2n * 380_000n)
  })

  it('margins a short call on the up moves and a short put on the down moves, the vol up; IM above MM', () => {
    const { state, account } = market()
    for (const [type, sign] of [['C', 1], ['P', -1]] as const) {
      account.positions.clear()
      const marketId = id(MARCH, 95_000, type)
      hold(state, account, marketId, -100)
      const v = referenceOptionValuation(state, state.markets.get(marketId)!)!
      const r = referenceOptionMargin(state, account)
      const losses = lossIn(v.im, -100)
      expect(r.im).toBe(losses[worstOf(losses)])
      expect(Math.sign(scenario(worstOf(losses)).move)).toBe(sign)
      expect(scenario(worstOf(losses)).vol).toBe(1.3)
      expect(r.nov).toBe(-100n * v.markPerLot)
      expect(r.im).toBeGreaterThan(r.mm)
      expect(r.mm).toBeGreaterThan(0n)
      // A 10% move of a 96,000 forward on 1 BTC of a near-the-money option: a few thousand USDC.
      expect(r.im).toBeGreaterThan(2_000n * USDC)
      expect(r.im).toBeLessThan(19_200n * USDC)
      expect(r.available).toBe(r.cash + r.nov - r.im)
    }
  })

  it('a long option never locks cash: it cannot lose more than it is worth', () => {
    const { state, account } = market()
    hold(state, account, id(MARCH, 110_000, 'C'), 300)
    hold(state, account, id(WEEKLY, 90_000, 'P'), 200)
    const r = referenceOptionMargin(state, account)
    expect(r.im).toBeGreaterThan(0n)
    expect(r.im).toBeLessThanOrEqual(r.nov)
    expect([r.available, r.locked]).toEqual([r.cash, 0n])
    // Their value is no cash, though: an open buy's premium comes out of the cash all the same.
    const buy: HypotheticalOrder = { marketId: id(MARCH, 95_000, 'C'), side: 'buy', lots: 100, priceTicks: 500 }
    const buying = referenceOptionMargin(state, account, [buy])
    expect([buying.available, buying.locked]).toEqual([r.cash - 4_778_500_000n, 4_778_500_000n])
  })

  it('a call spread loses at most its width, however far the underlying moves', () => {
    const { state, account } = market()
    // Short the 95,000 call, long the 100,000 call, 1 BTC each: at worst 5,000 less the value between them.
    hold(state, account, id(MARCH, 95_000, 'C'), -100)
    hold(state, account, id(MARCH, 100_000, 'C'), 100)
    const r = referenceOptionMargin(state, account)
    expect(r.im).toBeGreaterThan(0n)
    // The short spread's value may rise to its discounted width: the loss from here is at most 5,000 + NOV (NOV < 0).
    expect(r.nov).toBeLessThan(0n)
    expect(r.im).toBeLessThanOrEqual(5_000n * USDC + r.nov + 200n)
  })

  it('counts open sells at their premium: one far above the value adds nothing, one at a tick adds a short', () => {
    const { state, account } = market()
    const marketId = id(MARCH, 95_000, 'C')
    const high: HypotheticalOrder = { marketId, side: 'sell', lots: 100, priceTicks: 9_000 }
    expect(referenceOptionMargin(state, account, [high])).toMatchObject({ im: 0n, mm: 0n, buyReserve: 0n, available: 50_000n * USDC, withSells: 1 })
    const low: HypotheticalOrder = { ...high, priceTicks: 1 }
    const r = referenceOptionMargin(state, account, [low])
    hold(state, account, marketId, -100)
    const short = referenceOptionMargin(state, account)
    // Filled at one tick it receives 9.5 and is short at the mark: the short's loss plus what it sold under the mark.
    expect(r.im).toBe(short.im - short.nov - 9_500_000n)
  })
})

/** The catalog's smile for an expiry seen from `t` (what the reference and the board both read). */
function smileOf(t: number, expiryMs: number) {
  const days = (expiryMs - t) / 86_400_000
  return BTC.options!.volSurface.find((s) => days <= s.tenorDays) ?? BTC.options!.volSurface.at(-1)!
}
