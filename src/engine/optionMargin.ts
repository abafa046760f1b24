// The options bucket (DESIGN.md §6, docs/decisions.md "Options trading"): cash, the net value of the
// option positions at their marks, and the worst loss of positions and open sells together under the
// 18 scenarios, per family. Long options need their premium (open buys reserve it with the fee); short
// options lock their requirement. available = min(cash, equity − IM) − buy reserve: an option's value is
// not cash, so it never makes more available than the bucket holds, and what open buys will pay comes
// out of the cash whatever the options are worth; locked = cash − available.
import { microToString } from '../domain/decimal.js'
import { DomainError } from '../domain/errors.js'
import type { Account, OptionLeg } from './account.js'
import { insufficient, type WhatIf } from './margin.js'
import type { MarketRuntime } from './marketRuntime.js'
import { maxOptionFee, optionLinks, premiumOfTickLots, valuationOf, type OptionValuation } from './optionPricing.js'
import { tickLots } from './reservations.js'
import type { EngineState } from './state.js'

export interface OptionsBucket {
  cash: bigint
  /** Net option value: Σ signed lots × value per lot. */
  nov: bigint
  equity: bigint
  im: bigint
  mm: bigint
  /** What the open buys would pay: premium at their limits and the fee, at the current index. */
  buyReserve: bigint
  available: bigint
  locked: bigint
}

interface Leg {
  market: MarketRuntime
  v: OptionValuation
  /** The account's leg it was gathered from (its memos), null for a market only `extra` names. */
  source: OptionLeg | null
  held: number
  buyLots: number
  buyTickLots: bigint
  sellLots: number
  sellTickLots: bigint
  /** What its open buys would pay and its open sells would receive (setReserve, setCredit), also as doubles. */
  reserve: bigint
  reserveNum: number
  credit: bigint
  creditNum: number
}

function valued(state: EngineState, market: MarketRuntime): OptionValuation {
  const v = valuationOf(state, market)
  if (!v) throw new DomainError('NO_RISK_ARRAY', `No risk array for ${market.spec.id}`, { marketId: market.spec.id })
  return v
}

/** Legs reused from one bucket to the next (a bucket is gathered synchronously, never two at once):
 * the check runs on every option command and allocated a few objects each time. */
const legPool: Leg[] = []
let legCount = 0

function nextLeg(state: EngineState, market: MarketRuntime, source: OptionLeg | null): Leg {
  const v = valued(state, market)
  let leg = legPool[legCount]
  if (leg) {
    leg.market = market
    leg.v = v
    leg.source = source
    leg.held = leg.buyLots = leg.sellLots = leg.reserveNum = leg.creditNum = 0
    leg.buyTickLots = leg.sellTickLots = leg.reserve = leg.credit = 0n
  } else legPool.push((leg = { market, v, source, held: 0, buyLots: 0, buyTickLots: 0n, sellLots: 0, sellTickLots: 0n, reserve: 0n, reserveNum: 0, credit: 0n, creditNum: 0 }))
  legCount++
  return leg
}

/** Fills legPool[0, legCount) with the account's option legs, what it holds and has open there, plus
 * `extra` orders. */
function gatherLegs(state: EngineState, account: Account, extra: readonly WhatIf[]): void {
  legCount = 0
  for (const source of account.optionLegs.values()) {
    const leg = nextLeg(state, source.market, source)
    leg.held = source.position?.lots ?? 0
    const e = source.exposure
    if (e) {
      leg.buyLots = e.buyLots
      leg.buyTickLots = e.buyTickLots
      leg.sellLots = e.sellLots
      leg.sellTickLots = e.sellTickLots
    }
  }
  for (const w of extra) {
    let leg: Leg | undefined
    for (let i = 0; i < legCount && !leg; i++) if (legPool[i]!.market === w.market) leg = legPool[i]
    leg ??= nextLeg(state, w.market, null)
    if (w.side === 'buy') {
      leg.buyLots += w.lots
      leg.buyTickLots += tickLots(w.lots, w.priceTicks)
    } else {
      leg.sellLots += w.lots
      leg.sellTickLots += tickLots(w.lots, w.priceTicks)
    }
  }
}

/**
 * The bucket's sums: the net option value, what open buys reserve, and the scenario grids of its families
 * with their worst losses. A leg adds its position in every scenario and its open sells where they lose
 * (what they would receive less the value they give away). Every term is an integer (micro-USDC); while
 * their magnitudes add up to less than 2^52, doubles sum them exactly and several times faster than
 * bigints, so the exact bigint sums run only past that.
 */
interface Sums {
  nov: bigint
  buyReserve: bigint
  im: bigint
  mm: bigint
}
interface FamilyGrids {
  family: string
  im: Float64Array
  mm: Float64Array
}
const gridPool: FamilyGrids[] = []
const EXACT_IN_DOUBLES = 2 ** 52

function sums(withMm: boolean): Sums {
  let bound = 0
  for (let i = 0; i < legCount; i++) {
    const { v, held, sellLots, creditNum, reserveNum } = legPool[i]!
    bound += (Math.abs(held) + sellLots) * v.maxAbsPerLot + Math.abs(held * v.lotValueNum) + Math.abs(creditNum) + reserveNum
  }
  return bound < EXACT_IN_DOUBLES ? sumsInDoubles(withMm) : sumsInBigints(withMm)
}

function sumsInDoubles(withMm: boolean): Sums {
  let nov = 0
  let buyReserve = 0
  let families = 0
  for (let i = 0; i < legCount; i++) {
    const { market, v, held, sellLots, creditNum, reserveNum } = legPool[i]!
    nov += held * v.lotValueNum
    buyReserve += reserveNum
    let g: FamilyGrids | undefined
    for (let f = 0; f < families && g === undefined; f++) if (gridPool[f]!.family === market.spec.family) g = gridPool[f]
    if (!g) {
      g = gridPool[families] ??= { family: '', im: new Float64Array(v.imPerLot.length), mm: new Float64Array(v.mmPerLot.length) }
      g.family = market.spec.family
      g.im.fill(0)
      if (withMm) g.mm.fill(0)
      families++
    }
    addLegInDoubles(g.im, v.imPerLot, held, sellLots, creditNum)
    if (withMm) addLegInDoubles(g.mm, v.mmPerLot, held, sellLots, creditNum)
  }
  let im = 0
  let mm = 0
  for (let f = 0; f < families; f++) {
    im += worstLossInDoubles(gridPool[f]!.im)
    if (withMm) mm += worstLossInDoubles(gridPool[f]!.mm)
  }
  return { nov: BigInt(nov), buyReserve: BigInt(buyReserve), im: BigInt(im), mm: BigInt(mm) }
}

function addLegInDoubles(grid: Float64Array, perLot: Float64Array, held: number, sold: number, credit: number): void {
  const n = grid.length
  if (sold === 0) {
    for (let s = 0; s < n; s++) grid[s]! += held * perLot[s]!
    return
  }
  for (let s = 0; s < n; s++) {
    const sells = credit - sold * perLot[s]!
    grid[s]! += held * perLot[s]! + (sells < 0 ? sells : 0)
  }
}

const worstLossInDoubles = (grid: Float64Array): number => {
  let min = 0
  for (let s = 0; s < grid.length; s++) if (grid[s]! < min) min = grid[s]!
  return -min
}

function sumsInBigints(withMm: boolean): Sums {
  let nov = 0n
  let buyReserve = 0n
  const grids = new Map<string, { im: bigint[]; mm: bigint[] }>()
  for (let i = 0; i < legCount; i++) {
    const { market, v, held, sellLots, credit, reserve } = legPool[i]!
    nov += BigInt(held) * v.lotValue
    buyReserve += reserve
    let g = grids.get(market.spec.family)
    if (!g) grids.set(market.spec.family, (g = { im: v.im.map(() => 0n), mm: v.mm.map(() => 0n) }))
    addLegInBigints(g.im, v.im, BigInt(held), BigInt(sellLots), credit)
    if (withMm) addLegInBigints(g.mm, v.mm, BigInt(held), BigInt(sellLots), credit)
  }
  let im = 0n
  let mm = 0n
  for (const g of grids.values()) {
    im += worstLossInBigints(g.im)
    if (withMm) mm += worstLossInBigints(g.mm)
  }
  return { nov, buyReserve, im, mm }
}

function addLegInBigints(grid: bigint[], array: readonly bigint[], held: bigint, sold: bigint, credit: bigint): void {
  for (let s = 0; s < grid.length; s++) {
    grid[s]! += held * array[s]!
    if (sold > 0n) {
      const sells = credit - sold * array[s]!
      if (sells < 0n) grid[s]! += sells
    }
  }
}

const worstLossInBigints = (grid: readonly bigint[]): bigint => {
  let min = 0n
  for (const x of grid) if (x < min) min = x
  return -min
}

/**
 * What a leg's open buys would pay (premium at their limits and the fee, at the index), and what its
 * open sells would receive less the value they give away, each also as a double. Each is kept on the
 * account's leg with its inputs: most legs of a touched account did not change, and a mark moves far
 * less often than orders.
 */
function setReserve(state: EngineState, leg: Leg): void {
  const { market, v, buyLots, buyTickLots } = leg
  let memo = leg.source?.reserve
  if (!memo || memo.spotTicks !== v.spotTicks || memo.lots !== buyLots || memo.tickLots !== buyTickLots) {
    const spot = optionLinks(state, market).spot
    const value = premiumOfTickLots(market, spot, buyTickLots, v.spotTicks, true) + maxOptionFee(market, spot, buyLots, v.spotTicks)
    memo = { spotTicks: v.spotTicks, lots: buyLots, tickLots: buyTickLots, value, valueNum: Number(value) }
    if (leg.source) leg.source.reserve = memo
  }
  leg.reserve = memo.value
  leg.reserveNum = memo.valueNum
}

function setCredit(state: EngineState, leg: Leg): void {
  const { market, v, sellLots, sellTickLots } = leg
  let memo = leg.source?.credit
  if (!memo || memo.spotTicks !== v.spotTicks || memo.lotValue !== v.lotValue || memo.lots !== sellLots || memo.tickLots !== sellTickLots) {
    const value = premiumOfTickLots(market, optionLinks(state, market).spot, sellTickLots, v.spotTicks, false) - BigInt(sellLots) * v.lotValue
    memo = { spotTicks: v.spotTicks, lotValue: v.lotValue, lots: sellLots, tickLots: sellTickLots, value, valueNum: Number(value) }
    if (leg.source) leg.source.credit = memo
  }
  leg.credit = memo.value
  leg.creditNum = memo.valueNum
}

/** The options bucket of an account, with `extra` orders as if resting; `withMm` false skips the MM grid. */
export function optionsBucket(state: EngineState, account: Account, extra: readonly WhatIf[] = [], withMm = true): OptionsBucket {
  const cash = account.balance('options')
  gatherLegs(state, account, extra)
  for (let i = 0; i < legCount; i++) {
    const leg = legPool[i]!
    if (leg.buyLots > 0) setReserve(state, leg)
    if (leg.sellLots > 0) setCredit(state, leg)
  }
  const { nov, buyReserve, im, mm } = sums(withMm)
  const equity = cash + nov
  const available = (equity - im < cash ? equity - im : cash) - buyReserve
  return { cash, nov, equity, im, mm, buyReserve, available, locked: cash - available }
}

/** Whether the account has anything in the options bucket's margin (positions or open orders). */
export function hasOptionExposure(account: Account): boolean {
  return account.optionLegs.size > 0
}

/**
 * Refuses option orders that would leave the bucket's available below zero and below what it was: a
 * buy lacks its premium and fee (INSUFFICIENT_BALANCE), a sell its initial margin (INSUFFICIENT_MARGIN).
 * Orders that lower the requirement always fit.
 */
export function checkOptionOrders(state: EngineState, account: Account, orders: readonly WhatIf[]): void {
  const after = optionsBucket(state, account, orders, false)
  if (after.available >= 0n) return
  const before = optionsBucket(state, account, [], false)
  if (after.available >= before.available) return
  const need = before.available - after.available
  if (orders.every((o) => o.side === 'buy')) {
    throw new DomainError('INSUFFICIENT_BALANCE', 'The options bucket lacks the premium and fee for this order', {
      required: microToString(need),
      available: microToString(before.available > 0n ? before.available : 0n),
    })
  }
  throw insufficient(need, before.available)
}

/** The options bucket's locked part for balance events and rows: 0 without option exposure, and the
 * whole bucket when a mark it needs is missing (nothing can be shown free that cannot be priced).
 * Cached on the account until something it depends on changes (Account.optionsStale): a balance event
 * of a perpetual fill does not price the account's options again. */
export function optionsLocked(state: EngineState, account: Account): bigint {
  if (!account.optionsStale) return account.optionsLocked
  account.optionsStale = false
  return (account.optionsLocked = lockedNow(state, account))
}

function lockedNow(state: EngineState, account: Account): bigint {
  if (!hasOptionExposure(account)) return 0n
  try {
    return optionsBucket(state, account, [], false).locked
  } catch (err) {
    if (err instanceof DomainError && err.code === 'NO_RISK_ARRAY') return account.balance('options')
    throw err
  }
}
