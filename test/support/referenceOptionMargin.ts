// An independent reference for the options bucket's margin (OPTIONS_CONTRACT.md "The option margin",
// DESIGN.md §6), which the randomized tests compare with src/engine/optionMargin.ts after every batch.
// Slow and plain on purpose: it reads only the engine's state — the options balance, the positions,
// the account's open option orders themselves, the markets' specs and the marks as stored — prices
// every instrument again from Black-76 and the catalog's smile (not the spec's copy the engine reads),
// and evaluates all 18 scenarios of every instrument of every family. Nothing of the engine's pricing
// or margin is called, nor anything it caches (valuations, account.exposure).
//
// Where the contract leaves a rounding or a case open, this follows the engine's choice, as a rule to
// agree on rather than a computation to share: open buys of one instrument reserve their premium and
// their fee each rounded up once over the instrument (not per order); open sells' premium is rounded
// down; a reduce-only buy still reserves what it would pay, a reduce-only sell adds no risk.
import { familyCatalog, smileFor } from '../../src/config/catalog.js'
import { DAY_MS, WEEK_MS } from '../../src/domain/calendar.js'
import { D, type Decimal } from '../../src/domain/decimal.js'
import { black76Price, syntheticForward } from '../../src/domain/pricing/black76.js'
import { YEAR_MS } from '../../src/domain/pricing/optionTheo.js'
import { smileVol } from '../../src/domain/pricing/volSurface.js'
import type { Account } from '../../src/engine/account.js'
import type { MarketRuntime } from '../../src/engine/marketRuntime.js'
import type { EngineState } from '../../src/engine/state.js'
import type { HypotheticalOrder } from './referenceMargin.js'

/** Underlying moves in units of R with their weights: 0, ±1/3, ±2/3, ±1 in full, ±2 at 35%. */
export const MOVES: ReadonlyArray<{ move: number; weight: number }> = [
  ...[-1, -2 / 3, -1 / 3, 0, 1 / 3, 2 / 3, 1].map((move) => ({ move, weight: 1 })),
  { move: -2, weight: 0.35 },
  { move: 2, weight: 0.35 },
]
/** Sticky-strike volatility shifts, relative: each move is taken with the vol down and up 30%. */
export const VOL_SHIFTS: readonly number[] = [0.7, 1.3]

/** One option instrument valued at the marks: its inputs, its mark value and its risk arrays per lot. */
export interface OptionValuation {
  marketId: string
  forward: number
  forwardSource: 'future' | 'synthetic'
  /** The family's spot mark, as stored (USDC per unit of underlying). */
  spot: Decimal
  /** Valuation time: the newest source time of the marks above, unix ms. */
  t: number
  timeYears: number
  vol: number
  /** Black-76 value, USDC per unit of underlying. */
  value: number
  /** Mark value of one lot (one step of underlying), micro-USDC. */
  markPerLot: bigint
  /** P&L per long lot in each of the 18 scenarios (moves × vol shifts), micro-USDC, weight applied. */
  im: bigint[]
  mm: bigint[]
}

export interface ReferenceOptionMargin {
  /** The options balance. */
  cash: bigint
  /** Net option value: Σ signed lots × mark value per lot. */
  nov: bigint
  im: bigint
  mm: bigint
  /** What the open buys would pay: premium at their limits and the taker fee, at the spot index. */
  buyReserve: bigint
  available: bigint
  locked: bigint
  /** cash + nov: what liquidation compares with mm. */
  equity: bigint
  /** Instruments in the grid, and how many of them held open sells: for tests to show what they covered. */
  instruments: number
  withSells: number
  buyOrders: number
}

const storedPrice = (state: EngineState, marketId: string) => state.marks.get(marketId) ?? null

/** The option's valuation at the stored marks, or null when a mark it needs is missing. */
export function referenceOptionValuation(state: EngineState, market: MarketRuntime): OptionValuation | null {
  const spec = market.spec
  const fam = familyCatalog(spec.family)
  if (spec.type !== 'option' || !fam?.options) throw new Error(`reference option margin: ${spec.id} is not an option of a family with options`)
  const spotMark = storedPrice(state, fam.spotId)
  if (!spotMark) return null
  const expiry = spec.expiryMs!
  // The matching future expires exactly a week after the option; without one the forward is synthetic.
  let future: MarketRuntime | undefined
  for (const m of state.markets.values()) if (m.spec.family === spec.family && m.spec.type === 'future' && m.spec.expiryMs === expiry + WEEK_MS) future = m
  const futureMark = future ? storedPrice(state, future.spec.id) : null
  if (future && !futureMark) return null
  const t = Math.max(spotMark.sourceTs, futureMark?.sourceTs ?? 0)
  const timeYears = Math.max(0, expiry - t) / YEAR_MS
  const forward = futureMark ? Number(futureMark.price) : syntheticForward(Number(spotMark.price), fam.rate, timeYears)
  const strike = Number(spec.strike)
  const isCall = spec.optionType === 'call'
  const vol = smileVol(smileFor(fam.options, (expiry - t) / DAY_MS), forward, strike, timeYears)
  const price = (f: number, v: number) => black76Price({ forward: f, strike, timeYears, vol: v, rate: fam.rate, isCall })
  const value = price(forward, vol)
  const lot = Number(spec.stepSize)
  const arrays = (rangePct: string): bigint[] => {
    const r = Number(rangePct) / 100
    const out: bigint[] = []
    for (const { move, weight } of MOVES) {
      for (const shift of VOL_SHIFTS) out.push(BigInt(Math.round(weight * lot * (price(forward * (1 + move * r), vol * shift) - value) * 1e6)))
    }
    return out
  }
  return {
    marketId: spec.id,
    forward,
    forwardSource: futureMark ? 'future' : 'synthetic',
    spot: D(spotMark.price),
    t,
    timeYears,
    vol,
    value,
    markPerLot: BigInt(Math.round(lot * value * 1e6)),
    im: arrays(spec.initialMarginPct),
    mm: arrays(spec.maintenanceMarginPct),
  }
}

/** Micro-USDC of `lots` at `priceTicks` (underlying units) at the spot `spot`, exact (not yet rounded). */
function premium(m: MarketRuntime, priceTicks: number, lots: number, spot: Decimal): Decimal {
  return D(priceTicks).mul(m.spec.tickSize).mul(lots).mul(m.spec.stepSize).mul(spot).mul(1_000_000)
}

/** The taker fee of `lots` on the underlying notional at `spot`, uncapped, exact. */
function takerFee(m: MarketRuntime, lots: number, spot: Decimal): Decimal {
  return D(lots).mul(m.spec.stepSize).mul(spot).mul(m.spec.takerFeeBps).div(10_000).mul(1_000_000)
}

const ceil = (d: Decimal) => BigInt(d.ceil().toFixed(0))
const floor = (d: Decimal) => BigInt(d.floor().toFixed(0))

/** One instrument of the portfolio: the position and the open orders that could add to it. */
interface Leg {
  market: MarketRuntime
  lots: number
  buyLots: number
  sellLots: number
  /** Σ limit price × remaining lots of the open buys and sells, tick·lots. */
  buyTickLots: number
  sellTickLots: number
}

/**
 * The account's option margin from first principles, with `extra` orders resting as well (limit orders
 * only: an order the margin prices needs a price). Throws when an instrument it must value has no marks.
 */
export function referenceOptionMargin(state: EngineState, account: Account, extra: readonly HypotheticalOrder[] = []): ReferenceOptionMargin {
  const cash = account.balance('options')
  const legs = new Map<string, Leg>()
  const leg = (m: MarketRuntime): Leg => {
    let l = legs.get(m.spec.id)
    if (l === undefined) legs.set(m.spec.id, (l = { market: m, lots: 0, buyLots: 0, sellLots: 0, buyTickLots: 0, sellTickLots: 0 }))
    return l
  }
  let buyOrders = 0
  const addOrder = (m: MarketRuntime, side: 'buy' | 'sell', lots: number, priceTicks: number): void => {
    const l = leg(m)
    if (side === 'buy') {
      l.buyLots += lots
      l.buyTickLots += priceTicks * lots
      buyOrders++
    } else {
      l.sellLots += lots
      l.sellTickLots += priceTicks * lots
    }
  }
  const valuations = new Map<string, OptionValuation>()
  const valued = (m: MarketRuntime): OptionValuation => {
    let v = valuations.get(m.spec.id)
    if (v === undefined) {
      const got = referenceOptionValuation(state, m)
      if (got === null) throw new Error(`reference option margin: no marks to value ${m.spec.id}`)
      valuations.set(m.spec.id, (v = got))
    }
    return v
  }

  for (const p of account.positions.values()) {
    const m = state.markets.get(p.marketId)!
    if (p.lots === 0 || m.spec.type !== 'option') continue
    leg(m).lots = p.lots
  }
  for (const o of state.orders.values()) {
    if (o.userId !== account.userId || o.status !== 'open' || o.priceTicks === null) continue
    const m = state.markets.get(o.marketId)!
    if (m.spec.type !== 'option' || (o.reduceOnly && o.side === 'sell')) continue
    addOrder(m, o.side, o.lots - o.filledLots, o.priceTicks)
  }
  for (const w of extra) addOrder(state.markets.get(w.marketId)!, w.side, w.lots, w.priceTicks)

  // Each family's grid: its instruments' positions and open sells, scenario by scenario.
  let nov = 0n
  let buyReserve = 0n
  let withSells = 0
  const grids = new Map<string, { im: bigint[]; mm: bigint[] }>()
  for (const l of legs.values()) {
    const v = valued(l.market)
    const lots = BigInt(l.lots)
    nov += lots * v.markPerLot
    // What the open buys would pay: the premium at their limits and the taker fee, at the spot index.
    if (l.buyLots > 0) buyReserve += ceil(premium(l.market, 1, l.buyTickLots, v.spot)) + ceil(takerFee(l.market, l.buyLots, v.spot))
    const family = l.market.spec.family
    let g = grids.get(family)
    if (g === undefined) grids.set(family, (g = { im: new Array<bigint>(v.im.length).fill(0n), mm: new Array<bigint>(v.mm.length).fill(0n) }))
    // Filling every open sell at once receives its premium at the spot and leaves n more lots short:
    // counted where that loses, never as a gain.
    const n = BigInt(l.sellLots)
    const received = l.sellLots > 0 ? floor(premium(l.market, 1, l.sellTickLots, v.spot)) : 0n
    if (l.sellLots > 0) withSells++
    for (let s = 0; s < g.im.length; s++) {
      g.im[s]! += lots * v.im[s]!
      g.mm[s]! += lots * v.mm[s]!
      if (l.sellLots > 0) {
        const im = received - n * v.markPerLot - n * v.im[s]!
        const mm = received - n * v.markPerLot - n * v.mm[s]!
        if (im < 0n) g.im[s]! += im
        if (mm < 0n) g.mm[s]! += mm
      }
    }
  }
  // A family's requirement is its worst scenario's loss (nothing when none loses); families add up.
  const worst = (grid: bigint[]) => -grid.reduce((a, b) => (b < a ? b : a), 0n)
  let im = 0n
  let mm = 0n
  for (const g of grids.values()) {
    im += worst(g.im)
    mm += worst(g.mm)
  }
  // Premiums are paid in cash: what open buys will pay comes out of it, whatever the options are worth.
  const equity = cash + nov
  const free = equity - im - buyReserve
  const cashLeft = cash - buyReserve
  const available = free < cashLeft ? free : cashLeft
  return { cash, nov, im, mm, buyReserve, available, locked: cash - available, equity, instruments: legs.size, withSells, buyOrders }
}
