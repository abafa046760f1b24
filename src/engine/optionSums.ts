// Owns the options bucket's sums kept per account: the fast path of optionMargin.ts for what runs on
// every option command (the placement check and the locked part of balance events). Each leg's part —
// its net value, what its open buys reserve, its losses under the IM scenarios — is kept on the leg
// with the inputs it came from, and the account's sums are the parts' sums, updated leg by leg: a leg
// whose position or orders changed is priced again alone, a new mark or market (valuationEpoch) prices
// them all again. Every term is an integer (micro-USDC) and the sums are in doubles, exact while the
// parts' magnitudes add up to less than 2^52; past that (null), the caller takes the full path.
import { DomainError } from '../domain/errors.js'
import type { Account, OptionLeg, OrderExposure } from './account.js'
import type { MarketRuntime } from './marketRuntime.js'
import { maxOptionFee, maxOptionFeeNum, optionLinks, premiumOfTickLots, premiumOfTickLotsNum, valuationOf, type OptionValuation } from './optionPricing.js'
import type { EngineState } from './state.js'

export const EXACT_IN_DOUBLES = 2 ** 52

/** A leg's holdings: its position and what its open orders add. */
export interface LegInputs {
  held: number
  buyLots: number
  buyTickLots: bigint
  sellLots: number
  sellTickLots: bigint
}

/** What one leg adds to its account's sums, and the inputs it came from (priced again in place). */
export interface LegPart extends LegInputs {
  v: OptionValuation | null
  /** The exposure it was priced from, and its change count then. */
  exposure: OrderExposure | null
  exposureChanges: number
  family: string
  nov: number
  reserve: number
  credit: number
  /** Σ of its terms' magnitudes. */
  bound: number
  /** Its losses under the IM scenarios (negative: a loss). */
  im: Float64Array
}

const emptyPart = (): LegPart => ({
  v: null, exposure: null, exposureChanges: 0, family: '', held: 0, buyLots: 0, buyTickLots: 0n, sellLots: 0, sellTickLots: 0n, nov: 0, reserve: 0, credit: 0, bound: 0, im: new Float64Array(0),
})

export interface KeptSums {
  /** The EngineState.valuationEpoch the parts were priced at. */
  epoch: number
  nov: number
  reserve: number
  bound: number
  /** The IM scenario grid of each family. */
  readonly grids: FamilyGrid[]
}

interface FamilyGrid {
  readonly family: string
  readonly grid: Float64Array
}

export function valued(state: EngineState, market: MarketRuntime): OptionValuation {
  const v = valuationOf(state, market)
  if (!v) throw new DomainError('NO_RISK_ARRAY', `No risk array for ${market.spec.id}`, { marketId: market.spec.id })
  return v
}

/** What open buys of `lots` (`tickLots` at their limits) would pay: premium and the larger fee, rounded up. */
export function buyReserve(state: EngineState, market: MarketRuntime, v: OptionValuation, lots: number, tickLots: bigint): bigint {
  const spot = optionLinks(state, market).spot
  return premiumOfTickLots(market, spot, tickLots, v.spotTicks, true) + maxOptionFee(market, spot, lots, v.spotTicks)
}

/** What open sells of `lots` would receive (rounded down) less the value they give away. */
export function sellCredit(state: EngineState, market: MarketRuntime, v: OptionValuation, lots: number, tickLots: bigint): bigint {
  return premiumOfTickLots(market, optionLinks(state, market).spot, tickLots, v.spotTicks, false) - BigInt(lots) * v.lotValue
}

/** buyReserve as a double, with no bigint made while its products stay below 2^52 (the kept sums hold
 * nothing larger), else converted from the exact count. */
function buyReserveNum(state: EngineState, market: MarketRuntime, v: OptionValuation, lots: number, tickLots: bigint): number {
  const spot = optionLinks(state, market).spot
  const premium = premiumOfTickLotsNum(market, spot, Number(tickLots), v.spotTicks, true)
  const fee = maxOptionFeeNum(market, spot, lots, v.spotTicks)
  return premium !== null && fee !== null ? premium + fee : Number(buyReserve(state, market, v, lots, tickLots))
}

/** sellCredit as a double, as buyReserveNum. */
function sellCreditNum(state: EngineState, market: MarketRuntime, v: OptionValuation, lots: number, tickLots: bigint): number {
  const premium = premiumOfTickLotsNum(market, optionLinks(state, market).spot, Number(tickLots), v.spotTicks, false)
  const given = lots * v.lotValueNum
  return premium !== null && Math.abs(given) < EXACT_IN_DOUBLES ? premium - given : Number(sellCredit(state, market, v, lots, tickLots))
}

/** Adds a leg to a scenario grid: its position in every scenario, its open sells where they lose. */
export function addLegInDoubles(grid: Float64Array, perLot: Float64Array, held: number, sold: number, credit: number): void {
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

export const worstLossInDoubles = (grid: Float64Array): number => {
  let min = 0
  for (let s = 0; s < grid.length; s++) if (grid[s]! < min) min = grid[s]!
  return -min
}

const sameInputs = (p: LegPart, h: LegInputs): boolean =>
  p.held === h.held && p.buyLots === h.buyLots && p.sellLots === h.sellLots && p.buyTickLots === h.buyTickLots && p.sellTickLots === h.sellTickLots

/** Copies a priced part (the same holdings at the same valuation price the same). */
function copyPart(from: LegPart, to: LegPart): void {
  to.v = from.v
  to.family = from.family
  to.held = from.held
  to.buyLots = from.buyLots
  to.buyTickLots = from.buyTickLots
  to.sellLots = from.sellLots
  to.sellTickLots = from.sellTickLots
  to.nov = from.nov
  to.reserve = from.reserve
  to.credit = from.credit
  to.bound = from.bound
  if (to.im.length !== from.im.length) to.im = new Float64Array(from.im.length)
  to.im.set(from.im)
}

/**
 * Prices `p` again for the holdings `h` at `v`; its buy reserve and sell credit only when theirs changed.
 * An order that rests as checked leaves its leg holding what the check's what-if priced: that part is
 * copied rather than priced twice.
 */
function price(state: EngineState, market: MarketRuntime, v: OptionValuation, h: LegInputs, p: LegPart): void {
  if (p !== whatIfPart && whatIfPriced && whatIfPart.v === v && sameInputs(whatIfPart, h)) return copyPart(whatIfPart, p)
  const sameV = p.v === v
  if (!sameV || p.buyLots !== h.buyLots || p.buyTickLots !== h.buyTickLots) {
    p.reserve = h.buyLots > 0 ? buyReserveNum(state, market, v, h.buyLots, h.buyTickLots) : 0
  }
  if (!sameV || p.sellLots !== h.sellLots || p.sellTickLots !== h.sellTickLots) {
    p.credit = h.sellLots > 0 ? sellCreditNum(state, market, v, h.sellLots, h.sellTickLots) : 0
  }
  p.v = v
  p.family = market.spec.family
  p.held = h.held
  p.buyLots = h.buyLots
  p.buyTickLots = h.buyTickLots
  p.sellLots = h.sellLots
  p.sellTickLots = h.sellTickLots
  p.nov = h.held * v.lotValueNum
  if (p.im.length !== v.imPerLot.length) p.im = new Float64Array(v.imPerLot.length)
  else p.im.fill(0)
  addLegInDoubles(p.im, v.imPerLot, h.held, h.sellLots, p.credit)
  p.bound = (Math.abs(h.held) + h.sellLots) * v.maxAbsPerLot + Math.abs(p.nov) + Math.abs(p.credit) + p.reserve
}

/** The leg's holdings now. */
function inputsOf(leg: OptionLeg): LegInputs {
  const e = leg.exposure
  return {
    held: leg.position?.lots ?? 0,
    buyLots: e?.buyLots ?? 0,
    buyTickLots: e?.buyTickLots ?? 0n,
    sellLots: e?.sellLots ?? 0,
    sellTickLots: e?.sellTickLots ?? 0n,
  }
}

const unchanged = (p: LegPart, leg: OptionLeg): boolean =>
  p.held === (leg.position?.lots ?? 0) && p.exposure === leg.exposure && (p.exposure === null || p.exposureChanges === p.exposure.changes)

/** Notes which exposure, at which change, the part was priced from. */
function stamp(p: LegPart, leg: OptionLeg): void {
  p.exposure = leg.exposure
  p.exposureChanges = leg.exposure?.changes ?? 0
}

function add(sums: KeptSums, p: LegPart, sign: 1 | -1): void {
  sums.nov += sign * p.nov
  sums.reserve += sign * p.reserve
  sums.bound += sign * p.bound
  const grid = gridOf(sums, p.family, p.im.length)
  for (let s = 0; s < grid.length; s++) grid[s]! += sign * p.im[s]!
}

function gridOf(sums: KeptSums, family: string, length: number): Float64Array {
  for (const g of sums.grids) if (g.family === family) return g.grid
  const grid = new Float64Array(length)
  sums.grids.push({ family, grid })
  return grid
}

/** The account's sums with every leg up to date. */
function keptSums(state: EngineState, account: Account): KeptSums {
  let sums = account.optionSums
  if (!sums || sums.epoch !== state.valuationEpoch) {
    sums = { epoch: state.valuationEpoch, nov: 0, reserve: 0, bound: 0, grids: [] }
    for (const leg of account.optionLegList) {
      const part = (leg.part ??= emptyPart())
      price(state, leg.market, valued(state, leg.market), inputsOf(leg), part)
      stamp(part, leg)
      add(sums, part, 1)
    }
    account.optionSums = sums
  } else {
    const legs = account.optionLegList
    for (let i = 0; i < legs.length; i++) {
      const leg = legs[i]!
      const part = leg.part
      if (part?.v && unchanged(part, leg)) continue
      const v = valued(state, leg.market)
      if (!part) {
        leg.part = emptyPart()
      } else if (part.v) {
        add(sums, part, -1)
        // Out of the sums until priced again: a leg that cannot be priced (valued throws) stays out.
        part.v = null
      }
      price(state, leg.market, v, inputsOf(leg), leg.part!)
      stamp(leg.part!, leg)
      add(sums, leg.part!, 1)
    }
  }
  // Sums past what doubles hold exactly are not kept: the next call adds the parts up again.
  if (sums.bound >= EXACT_IN_DOUBLES) account.optionSums = null
  return sums
}

/** A what-if order on one market, on top of what the account holds. */
export interface OneMarketWhatIf {
  market: MarketRuntime
  buyLots: number
  buyTickLots: bigint
  sellLots: number
  sellTickLots: bigint
}

/**
 * The sums' nov, buy reserve and IM, with `extra` (orders on one market) as if resting; null when they
 * would not be exact in doubles.
 */
export function keptFigures(state: EngineState, account: Account, extra: OneMarketWhatIf | null): { nov: number; reserve: number; im: number } | null {
  const sums = keptSums(state, account)
  let { nov, reserve, bound } = sums
  let family: string | null = null
  let grid: Float64Array | null = null
  if (extra) {
    const { market } = extra
    const leg = account.optionLegs.get(market.spec.id)
    const old = leg?.part ?? null
    const h = leg ? inputsOf(leg) : { held: 0, buyLots: 0, buyTickLots: 0n, sellLots: 0, sellTickLots: 0n }
    h.buyLots += extra.buyLots
    h.buyTickLots += extra.buyTickLots
    h.sellLots += extra.sellLots
    h.sellTickLots += extra.sellTickLots
    // The leg's own prices are reused where the order leaves them as they were; not its grid.
    const part = whatIfPart
    whatIfPriced = false
    part.v = old?.v ?? null
    if (old) {
      part.buyLots = old.buyLots
      part.buyTickLots = old.buyTickLots
      part.reserve = old.reserve
      part.sellLots = old.sellLots
      part.sellTickLots = old.sellTickLots
      part.credit = old.credit
    }
    price(state, market, valued(state, market), h, part)
    whatIfPriced = true
    nov += part.nov - (old?.nov ?? 0)
    reserve += part.reserve - (old?.reserve ?? 0)
    bound += part.bound
    family = part.family
    grid = scratchGrid(sums.grids.find((g) => g.family === family)?.grid, part.im.length)
    for (let s = 0; s < grid.length; s++) grid[s]! += part.im[s]! - (old ? old.im[s]! : 0)
  }
  if (bound >= EXACT_IN_DOUBLES) return null
  let im = grid ? worstLossInDoubles(grid) : 0
  for (const g of sums.grids) if (g.family !== family) im += worstLossInDoubles(g.grid)
  return { nov, reserve, im }
}

/** The part of the leg a what-if order changes, priced without touching the leg's own; whatIfPriced
 * while it holds a whole pricing of its inputs (not when valued() threw part way). */
const whatIfPart = emptyPart()
let whatIfPriced = false
let scratch = new Float64Array(0)
function scratchGrid(from: Float64Array | undefined, length: number): Float64Array {
  if (scratch.length !== length) scratch = new Float64Array(length)
  if (from) scratch.set(from)
  else scratch.fill(0)
  return scratch
}
