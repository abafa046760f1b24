// The options bucket (DESIGN.md §6, docs/decisions.md "Options trading"): cash, the net value of the
// option positions at their marks, and the worst loss of positions and open sells together under the
// 18 scenarios, per family. Long options need their premium (open buys reserve it with the fee); short
// options lock their requirement. available = min(cash, equity − IM) − buy reserve: an option's value is
// not cash, so it never makes more available than the bucket holds, and what open buys will pay comes
// out of the cash whatever the options are worth; locked = cash − available.
import { microToString } from '../domain/decimal.js'
import { DomainError } from '../domain/errors.js'
import type { Account } from './account.js'
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
  held: number
  buyLots: number
  buyTickLots: bigint
  sellLots: number
  sellTickLots: bigint
}

function valued(state: EngineState, market: MarketRuntime): OptionValuation {
  const v = valuationOf(state, market)
  if (!v) throw new DomainError('NO_RISK_ARRAY', `No risk array for ${market.spec.id}`, { marketId: market.spec.id })
  return v
}

/** The account's option markets with what it holds and has open there, plus `extra` orders. */
function legsOf(state: EngineState, account: Account, extra: readonly WhatIf[]): Leg[] {
  const legs: Leg[] = []
  const legFor = (market: MarketRuntime): Leg => {
    for (const l of legs) if (l.market === market) return l
    const leg = { market, v: valued(state, market), held: 0, buyLots: 0, buyTickLots: 0n, sellLots: 0, sellTickLots: 0n }
    legs.push(leg)
    return leg
  }
  if (account.optionPositions > 0) for (const p of account.positions.values()) if (p.lots !== 0 && p.market.spec.type === 'option') legFor(p.market).held = p.lots
  for (const e of account.exposure.values()) {
    if (e.market.spec.type !== 'option') continue
    const leg = legFor(e.market)
    leg.buyLots += e.buyLots
    leg.buyTickLots += e.buyTickLots
    leg.sellLots += e.sellLots
    leg.sellTickLots += e.sellTickLots
  }
  for (const w of extra) {
    const leg = legFor(w.market)
    if (w.side === 'buy') {
      leg.buyLots += w.lots
      leg.buyTickLots += tickLots(w.lots, w.priceTicks)
    } else {
      leg.sellLots += w.lots
      leg.sellTickLots += tickLots(w.lots, w.priceTicks)
    }
  }
  return legs
}

/** Worst loss of a family's grid (≥ 0). */
const worstLoss = (grid: readonly bigint[]): bigint => {
  let min = 0n
  for (const x of grid) if (x < min) min = x
  return -min
}

/** Adds one leg to a family's grid: the position in every scenario, and its open sells where they lose. */
function addLeg(grid: bigint[], array: readonly bigint[], held: bigint, sold: bigint, credit: bigint): void {
  for (let s = 0; s < grid.length; s++) {
    grid[s]! += held * array[s]!
    if (sold > 0n) {
      const sells = credit - sold * array[s]!
      if (sells < 0n) grid[s]! += sells
    }
  }
}

/** One family's scenario grids while a bucket is gathered (a list: an account spans few families). */
interface Grids {
  family: string
  im: bigint[]
  mm: bigint[] | null
}

/** The options bucket of an account, with `extra` orders as if resting; `withMm` false skips the MM grid. */
export function optionsBucket(state: EngineState, account: Account, extra: readonly WhatIf[] = [], withMm = true): OptionsBucket {
  const cash = account.balance('options')
  const legs = legsOf(state, account, extra)
  let nov = 0n
  let buyReserve = 0n
  const grids: Grids[] = []
  for (const leg of legs) {
    const { market, v } = leg
    const family = market.spec.family
    let g: Grids | undefined
    for (let i = 0; i < grids.length && g === undefined; i++) if (grids[i]!.family === family) g = grids[i]
    if (!g) grids.push((g = { family, im: new Array<bigint>(v.im.length).fill(0n), mm: withMm ? new Array<bigint>(v.mm.length).fill(0n) : null }))
    const held = BigInt(leg.held)
    nov += held * v.lotValue
    const spot = optionLinks(state, market).spot
    if (leg.buyLots > 0) buyReserve += premiumOfTickLots(market, spot, leg.buyTickLots, v.spotTicks, true) + maxOptionFee(market, spot, leg.buyLots, v.spotTicks)
    // Open sells count where they lose: what they would receive less the value they give away.
    const sold = BigInt(leg.sellLots)
    const credit = leg.sellLots > 0 ? premiumOfTickLots(market, spot, leg.sellTickLots, v.spotTicks, false) - sold * v.lotValue : 0n
    addLeg(g.im, v.im, held, sold, credit)
    if (g.mm) addLeg(g.mm, v.mm, held, sold, credit)
  }
  let im = 0n
  let mm = 0n
  for (const g of grids) {
    im += worstLoss(g.im)
    if (g.mm) mm += worstLoss(g.mm)
  }
  const equity = cash + nov
  const available = (equity - im < cash ? equity - im : cash) - buyReserve
  return { cash, nov, equity, im, mm, buyReserve, available, locked: cash - available }
}

/** Whether the account has anything in the options bucket's margin (positions or open orders). */
export function hasOptionExposure(account: Account): boolean {
  for (const p of account.positions.values()) if (p.lots !== 0 && p.market.spec.type === 'option') return true
  for (const e of account.exposure.values()) if (e.market.spec.type === 'option') return true
  return false
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
