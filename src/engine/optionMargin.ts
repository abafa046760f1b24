// The options bucket (DESIGN.md §6, docs/decisions.md "Options trading"): cash, the net value of the
// option positions at their marks, and the worst loss of positions and open sells together under the
// 18 scenarios, per family. Long options need their premium (open buys reserve it with the fee); short
// options lock their requirement. available = min(cash, equity − IM) − buy reserve: an option's value is
// not cash, so it never makes more available than the bucket holds, and what open buys will pay comes
// out of the cash whatever the options are worth; locked = cash − available.
// The placement check and the locked part run on every option command: without the MM grid and with
// what-if orders on at most one market they read the sums kept per account (optionSums.ts); anything
// else, or sums past what doubles hold exactly, adds the legs up here.
import { microToString } from '../domain/decimal.js'
import { DomainError } from '../domain/errors.js'
import type { Account } from './account.js'
import { insufficient, type WhatIf } from './margin.js'
import type { MarketRuntime } from './marketRuntime.js'
import type { OptionValuation } from './optionPricing.js'
import { addLegInDoubles, buyReserve, EXACT_IN_DOUBLES, keptFigures, sellCredit, valued, worstLossInDoubles, type LegInputs, type OneMarketWhatIf } from './optionSums.js'
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

/** The bucket's rule, available = min(cash + nov − IM, cash) − buy reserve: in bigints, or in doubles where
 * they are exact (the operators are the same; TypeScript only types them one kind at a time). */
function availableFrom<T extends bigint | number>(cash: T, nov: T, im: T, reserve: T): T {
  const c = cash as unknown as number
  const afterIm = c + (nov as unknown as number) - (im as unknown as number)
  return ((afterIm < c ? afterIm : c) - (reserve as unknown as number)) as unknown as T
}

function bucketOf(cash: bigint, nov: bigint, im: bigint, mm: bigint, reserve: bigint): OptionsBucket {
  const available = availableFrom(cash, nov, im, reserve)
  return { cash, nov, equity: cash + nov, im, mm, buyReserve: reserve, available, locked: cash - available }
}

/** The options bucket of an account, with `extra` orders as if resting; `withMm` false skips the MM grid. */
export function optionsBucket(state: EngineState, account: Account, extra: readonly WhatIf[] = [], withMm = true): OptionsBucket {
  const cash = account.balance('options')
  if (!withMm) {
    const one = oneMarket(extra)
    const kept = one === undefined ? null : keptFigures(state, account, one)
    if (kept) return bucketOf(cash, BigInt(kept.nov), BigInt(kept.im), 0n, BigInt(kept.reserve))
  }
  gatherLegs(state, account, extra)
  for (let i = 0; i < legCount; i++) {
    const leg = legPool[i]!
    if (leg.buyLots > 0) leg.reserve = buyReserve(state, leg.market, leg.v, leg.buyLots, leg.buyTickLots)
    if (leg.sellLots > 0) leg.credit = sellCredit(state, leg.market, leg.v, leg.sellLots, leg.sellTickLots)
  }
  const { nov, reserve, im, mm } = sums(withMm)
  return bucketOf(cash, nov, im, mm, reserve)
}

/** What-if orders on at most one market, as the kept sums take them; undefined when on several. */
function oneMarket(extra: readonly WhatIf[]): OneMarketWhatIf | null | undefined {
  if (extra.length === 0) return null
  const w: OneMarketWhatIf = { market: extra[0]!.market, buyLots: 0, buyTickLots: 0n, sellLots: 0, sellTickLots: 0n }
  for (const o of extra) {
    if (o.market !== w.market) return undefined
    addOrder(w, o)
  }
  return w
}

/** Adds a what-if order to what is open on its market. */
function addOrder(open: Omit<LegInputs, 'held'>, o: WhatIf): void {
  if (o.side === 'buy') {
    open.buyLots += o.lots
    open.buyTickLots += tickLots(o.lots, o.priceTicks)
  } else {
    open.sellLots += o.lots
    open.sellTickLots += tickLots(o.lots, o.priceTicks)
  }
}

interface Leg {
  market: MarketRuntime
  v: OptionValuation
  held: number
  buyLots: number
  buyTickLots: bigint
  sellLots: number
  sellTickLots: bigint
  /** What its open buys would pay, and what its open sells would receive less the value they give away. */
  reserve: bigint
  credit: bigint
}

/** Legs reused from one bucket to the next (a bucket is gathered synchronously, never two at once). */
const legPool: Leg[] = []
let legCount = 0

function legFor(state: EngineState, market: MarketRuntime): Leg {
  for (let i = 0; i < legCount; i++) if (legPool[i]!.market === market) return legPool[i]!
  const v = valued(state, market)
  let leg = legPool[legCount]
  if (leg) {
    leg.market = market
    leg.v = v
    leg.held = leg.buyLots = leg.sellLots = 0
    leg.buyTickLots = leg.sellTickLots = leg.reserve = leg.credit = 0n
  } else legPool.push((leg = { market, v, held: 0, buyLots: 0, buyTickLots: 0n, sellLots: 0, sellTickLots: 0n, reserve: 0n, credit: 0n }))
  legCount++
  return leg
}

/** Fills legPool[0, legCount) with the account's option legs, what it holds and has open there, plus
 * `extra` orders. */
function gatherLegs(state: EngineState, account: Account, extra: readonly WhatIf[]): void {
  legCount = 0
  for (const source of account.optionLegList) {
    const leg = legFor(state, source.market)
    leg.held = source.position?.lots ?? 0
    const e = source.exposure
    if (e) {
      leg.buyLots = e.buyLots
      leg.buyTickLots = e.buyTickLots
      leg.sellLots = e.sellLots
      leg.sellTickLots = e.sellTickLots
    }
  }
  for (const w of extra) addOrder(legFor(state, w.market), w)
}

/**
 * The bucket's sums: the net option value, what open buys reserve, and the scenario grids of its families
 * with their worst losses. Every term is an integer (micro-USDC); while their magnitudes add up to less
 * than 2^52, doubles sum them exactly and several times faster than bigints, so the exact bigint sums run
 * only past that.
 */
interface Sums {
  nov: bigint
  reserve: bigint
  im: bigint
  mm: bigint
}
interface FamilyGrids {
  family: string
  im: Float64Array
  mm: Float64Array
}
const gridPool: FamilyGrids[] = []

function sums(withMm: boolean): Sums {
  let bound = 0
  for (let i = 0; i < legCount; i++) {
    const { v, held, sellLots, credit, reserve } = legPool[i]!
    bound += (Math.abs(held) + sellLots) * v.maxAbsPerLot + Math.abs(held * v.lotValueNum) + Math.abs(Number(credit)) + Number(reserve)
  }
  return bound < EXACT_IN_DOUBLES ? sumsInDoubles(withMm) : sumsInBigints(withMm)
}

function sumsInDoubles(withMm: boolean): Sums {
  let nov = 0
  let reserve = 0
  let families = 0
  for (let i = 0; i < legCount; i++) {
    const { market, v, held, sellLots } = legPool[i]!
    const credit = Number(legPool[i]!.credit)
    nov += held * v.lotValueNum
    reserve += Number(legPool[i]!.reserve)
    let g: FamilyGrids | undefined
    for (let f = 0; f < families && g === undefined; f++) if (gridPool[f]!.family === market.spec.family) g = gridPool[f]
    if (!g) {
      g = gridPool[families] ??= { family: '', im: new Float64Array(v.imPerLot.length), mm: new Float64Array(v.mmPerLot.length) }
      g.family = market.spec.family
      g.im.fill(0)
      if (withMm) g.mm.fill(0)
      families++
    }
    addLegInDoubles(g.im, v.imPerLot, held, sellLots, credit)
    if (withMm) addLegInDoubles(g.mm, v.mmPerLot, held, sellLots, credit)
  }
  let im = 0
  let mm = 0
  for (let f = 0; f < families; f++) {
    im += worstLossInDoubles(gridPool[f]!.im)
    if (withMm) mm += worstLossInDoubles(gridPool[f]!.mm)
  }
  return { nov: BigInt(nov), reserve: BigInt(reserve), im: BigInt(im), mm: BigInt(mm) }
}

function sumsInBigints(withMm: boolean): Sums {
  let nov = 0n
  let reserve = 0n
  const grids = new Map<string, { im: bigint[]; mm: bigint[] }>()
  for (let i = 0; i < legCount; i++) {
    const { market, v, held, sellLots, credit } = legPool[i]!
    nov += BigInt(held) * v.lotValue
    reserve += legPool[i]!.reserve
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
  return { nov, reserve, im, mm }
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
  const after = availableOf(state, account, orders)
  if (after >= 0) return
  const before = availableOf(state, account, [])
  if (after >= before) return
  const need = BigInt(before) - BigInt(after)
  if (orders.every((o) => o.side === 'buy')) {
    throw new DomainError('INSUFFICIENT_BALANCE', 'The options bucket lacks the premium and fee for this order', {
      required: microToString(need),
      available: microToString(before > 0 ? BigInt(before) : 0n),
    })
  }
  throw insufficient(need, BigInt(before))
}

/** |cash| below this, with the kept sums' terms below 2^52, keeps available exact in doubles. */
const CASH_EXACT = BigInt(EXACT_IN_DOUBLES)

/**
 * The bucket's available (no MM grid) with `extra` as if resting: from the kept sums in doubles, no bigint
 * made, when that is exact (the sums' terms below 2^52, the cash too, so every step stays below 2^53);
 * else the full count's. An integer either way; compare it as it is.
 */
function availableOf(state: EngineState, account: Account, extra: readonly WhatIf[]): number | bigint {
  const cash = account.balance('options')
  const one = oneMarket(extra)
  const kept = one === undefined || cash >= CASH_EXACT || cash <= -CASH_EXACT ? null : keptFigures(state, account, one)
  if (!kept) return optionsBucket(state, account, extra, false).available
  return availableFrom(Number(cash), kept.nov, kept.im, kept.reserve)
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
    return account.balance('options') - BigInt(availableOf(state, account, []))
  } catch (err) {
    if (err instanceof DomainError && err.code === 'NO_RISK_ARRAY') return account.balance('options')
    throw err
  }
}
