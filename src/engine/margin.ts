// The engine's margin: the governing mark of an order, the risk arrays cached per instrument, and the
// perps bucket's cross margin — equity (balance + unrealized PnL of cross positions, less what isolated
// positions and orders hold) against the portfolio requirement of cross positions and open orders.
import { CORRELATION_CREDIT } from '../domain/correlation.js'
import { DomainError } from '../domain/errors.js'
import { microToString } from '../domain/decimal.js'
import { FamilyRiskSum, linearRiskArray, portfolioRequirement, upMove, type FamilyRisk } from '../domain/risk.js'
import type { Account, OrderExposure, Position } from './account.js'
import type { Ctx } from './context.js'
import { applyRate, type MarketRuntime } from './marketRuntime.js'
import { tickLots } from './reservations.js'
import type { Mark, MarkTicks } from './state.js'

/** The mark an order is judged against; refused when missing or older than the market's threshold. */
export function governingMark(ctx: Ctx, market: MarketRuntime): { mark: Mark; ticks: MarkTicks } {
  const mark = ctx.state.marks.get(market.spec.id)
  const ticks = ctx.state.markTicks.get(market.spec.id)
  if (!mark || !ticks) throw new DomainError('MISSING_MARK_PRICE', `No mark price for ${market.spec.id}`)
  const age = ctx.now - mark.sourceTs
  if (age > market.spec.staleMarkMs) {
    throw new DomainError('STALE_MARK_PRICE', `Mark price for ${market.spec.id} is ${age} ms old`, {
      sourceTimestamp: mark.sourceTs,
      ageMs: age,
      thresholdMs: market.spec.staleMarkMs,
    })
  }
  return { mark, ticks }
}

export interface RiskArrays {
  im: bigint[]
  mm: bigint[]
  /** upMove() of each: all the linear portfolio margin reads of them. */
  imMove: bigint
  mmMove: bigint
  /** The mark in ticks the arrays were built at: open orders are priced against it. */
  markTicks: number
}

/** Rebuilds a linear instrument's risk arrays at its new mark. */
export function riskArrays(market: MarketRuntime, markTicks: number): RiskArrays {
  const value = market.notional(markTicks, 1)
  const im = linearRiskArray(value, market.initialMargin)
  const mm = linearRiskArray(value, market.maintenanceMargin)
  return { im, mm, imMove: upMove(im), mmMove: upMove(mm), markTicks }
}

/** Unrealized PnL of a linear position at a price in ticks. */
export function unrealized(market: MarketRuntime, p: Position, priceTicks: number): bigint {
  if (p.lots === 0) return 0n
  const value = market.notional(priceTicks, Math.abs(p.lots))
  return p.lots > 0 ? value - p.cost : p.cost - value
}

/** An order the margin should price as if it were already resting. */
export interface WhatIf {
  market: MarketRuntime
  side: 'buy' | 'sell'
  lots: number
  priceTicks: number
}

export interface CrossMargin {
  equity: bigint
  im: bigint
  mm: bigint
  /** Equity not committed as initial margin. */
  available: bigint
}

/** What filling `lots` of open orders worth `worth` tick·lots (Σ price × lots) would lose at once against
 * the mark, micro-USDC: buys above it (`sign` 1), sells below it (−1); 0 when they would gain. */
function lossAtMark(market: MarketRuntime, arrays: RiskArrays, lots: number, worth: bigint, sign: 1 | -1): bigint {
  if (lots === 0) return 0n
  const atMark = tickLots(lots, arrays.markTicks)
  const loss = sign === 1 ? worth - atMark : atMark - worth
  return loss > 0n ? loss * market.microPerTickLot : 0n
}

/** One family's worst-scenario sums while a portfolio is gathered. */
interface Family {
  readonly name: string
  readonly assetClass: string
  readonly im: FamilyRiskSum
  /** Null when the maintenance range is not asked for. */
  readonly mm: FamilyRiskSum | null
}

interface FamilyRisks {
  readonly name: string
  readonly assetClass: string
  readonly im: FamilyRisk
  readonly mm: FamilyRisk | null
}

interface Portfolio {
  equity: bigint
  /** A list, not a map: an account spans at most a few families. */
  families: FamilyRisks[]
}

/** Whether the account holds a cross position in a linear derivative market (the portfolio's positions). */
function holdsCross(account: Account, market: MarketRuntime): boolean {
  const p = account.positions.get(market.spec.id)
  if (p === undefined || p.lots === 0 || p.marginMode === 'isolated') return false
  return market.linear && market.spec.type !== 'spot'
}

/** Adds one market's exposure (held lots, its open orders `open` and any extra orders) to its family. */
function addExposure(extra: readonly WhatIf[], families: Family[], withMm: boolean, only: ReadonlySet<string> | undefined, market: MarketRuntime, held: number, open: OrderExposure | undefined): void {
  const name = market.spec.family
  if (only !== undefined && !only.has(name)) return
  const arrays = market.risk
  if (!arrays) throw new DomainError('NO_RISK_ARRAY', `No risk array for ${market.spec.id}`, { marketId: market.spec.id })
  let buyLots = 0
  let sellLots = 0
  let buyTickLots = 0n
  let sellTickLots = 0n
  if (open !== undefined) ({ buyLots, sellLots, buyTickLots, sellTickLots } = open)
  for (let i = 0; i < extra.length; i++) {
    const w = extra[i]!
    if (w.market !== market) continue
    const more = tickLots(w.lots, w.priceTicks)
    if (w.side === 'buy') {
      buyLots += w.lots
      buyTickLots += more
    } else {
      sellLots += w.lots
      sellTickLots += more
    }
  }
  let family: Family | undefined
  for (let i = 0; i < families.length && family === undefined; i++) if (families[i]!.name === name) family = families[i]
  if (family === undefined) families.push((family = { name, assetClass: market.spec.assetClass, im: new FamilyRiskSum(), mm: withMm ? new FamilyRiskSum() : null }))
  // What the orders lose against the mark is the same on both ranges; only the moves differ.
  const buyCost = lossAtMark(market, arrays, buyLots, buyTickLots, 1)
  const sellCost = lossAtMark(market, arrays, sellLots, sellTickLots, -1)
  family.im.add(arrays.imMove, held, buyLots, sellLots, buyCost, sellCost)
  family.mm?.add(arrays.mmMove, held, buyLots, sellLots, buyCost, sellCost)
}

/**
 * Equity and per-family risk of the perps bucket, with `extra` orders resting: every market with a
 * cross position, open orders or an extra order. With `only`, just those families' risks are computed
 * (an order changes its own family alone); `withMm` false skips the maintenance range (order checks).
 * This runs on every order: positions and exposures link their markets, so it looks up little.
 */
function portfolio(account: Account, extra: readonly WhatIf[], withMm: boolean, only?: ReadonlySet<string>): Portfolio {
  let equity = account.balance('perps') - account.isolatedOrderMargin
  const families: Family[] = []
  const positions = account.linearPositions
  for (let i = 0; i < positions.length; i++) {
    const p = positions[i]!
    if (p.lots === 0) continue
    const market = p.market
    if (p.marginMode === 'isolated') {
      equity -= p.isolatedMargin
      continue
    }
    if (market.risk) equity += unrealized(market, p, market.risk.markTicks)
    addExposure(extra, families, withMm, only, market, p.lots, account.exposure.get(market.spec.id))
  }
  for (const e of account.exposure.values()) if (!holdsCross(account, e.market)) addExposure(extra, families, withMm, only, e.market, 0, e)
  for (let i = 0; i < extra.length; i++) {
    const market = extra[i]!.market
    if (holdsCross(account, market) || account.exposure.has(market.spec.id)) continue
    let first = true
    for (let j = 0; j < i; j++) if (extra[j]!.market === market) first = false
    if (first) addExposure(extra, families, withMm, only, market, 0, undefined)
  }
  const risks: FamilyRisks[] = new Array<FamilyRisks>(families.length)
  for (let i = 0; i < families.length; i++) {
    const f = families[i]!
    risks[i] = { name: f.name, assetClass: f.assetClass, im: f.im.result(), mm: f.mm && f.mm.result() }
  }
  return { equity, families: risks }
}

/** The portfolio requirement of one range; a single family earns no credit. */
function requirement(families: readonly FamilyRisks[], range: 'im' | 'mm'): bigint {
  if (families.length === 0) return 0n
  if (families.length === 1) return families[0]![range]!.requirement
  return portfolioRequirement(families.map((f) => ({ ...f[range]!, assetClass: f.assetClass })), CORRELATION_CREDIT)
}

function requirements(p: Portfolio): CrossMargin {
  const im = requirement(p.families, 'im')
  let withMm = true
  for (const f of p.families) if (f.mm === null) withMm = false
  return { equity: p.equity, im, mm: withMm ? requirement(p.families, 'mm') : 0n, available: p.equity - im }
}

/** The cross margin of an account's perps bucket, optionally with more orders resting. */
export function crossMargin(account: Account, extra: readonly WhatIf[] = []): CrossMargin {
  return requirements(portfolio(account, extra, true))
}

/** Initial margin one lot-quantity of an isolated position (or order) needs on its own. */
export function isolatedIm(market: MarketRuntime, priceTicks: number, lots: number): bigint {
  return applyRate(market.notional(priceTicks, lots), market.initialMargin)
}

export function isolatedMm(market: MarketRuntime, priceTicks: number, lots: number): bigint {
  return applyRate(market.notional(priceTicks, lots), market.maintenanceMargin)
}

export function insufficient(required: bigint, available: bigint): DomainError {
  return new DomainError('INSUFFICIENT_MARGIN', 'Initial margin too low', {
    requiredIm: microToString(required),
    availableIm: microToString(available > 0n ? available : 0n),
  })
}

export interface MarginImpact {
  /** What the orders add to the initial (maintenance) requirement; ≤ 0 when they lower it. */
  im: bigint
  mm: bigint
  /** Cross available before the orders. */
  available: bigint
}

/**
 * What new linear orders add to the margin, and whether they fit: cross orders must leave equity at or
 * above the portfolio's new requirement (orders that lower the requirement always fit); isolated orders'
 * own initial margin must fit in the cross available. `refusal` is the INSUFFICIENT_MARGIN error when
 * they do not. `withMm` false leaves the maintenance figure at 0 (placement needs only the initial).
 */
export function orderMarginImpact(account: Account, orders: readonly WhatIf[], isolated: boolean, withMm = true): MarginImpact & { refusal: DomainError | null } {
  const held = portfolio(account, [], withMm && !isolated)
  const before = requirements(held)
  if (isolated) {
    let im = 0n
    let mm = 0n
    for (const w of orders) {
      im += isolatedIm(w.market, w.priceTicks, w.lots)
      if (withMm) mm += isolatedMm(w.market, w.priceTicks, w.lots)
    }
    return { im, mm, available: before.available, refusal: im > before.available ? insufficient(im, before.available) : null }
  }
  // Only the orders' families change; the others' risks carry over from before.
  const families = new Set<string>()
  for (const w of orders) families.add(w.market.spec.family)
  const changed = portfolio(account, orders, withMm, families)
  const untouched = held.families.filter((f) => !families.has(f.name))
  const after = requirements({ equity: held.equity, families: [...untouched, ...changed.families] })
  const im = after.im - before.im
  return { im, mm: after.mm - before.mm, available: before.available, refusal: im > 0n && after.im > after.equity ? insufficient(im, before.available) : null }
}

/**
 * Throws INSUFFICIENT_MARGIN when the orders do not fit (the placement check): the same verdict as
 * orderMarginImpact, cheaper in the common case. A cross portfolio whose requirement with the orders is
 * covered by its equity fits whatever it was before, so the portfolio without them is priced only when
 * it is not (to let an order that lowers the requirement through).
 */
export function checkOrderMargin(account: Account, orders: readonly WhatIf[], isolated: boolean): void {
  if (isolated) {
    const { refusal } = orderMarginImpact(account, orders, true, false)
    if (refusal) throw refusal
    return
  }
  const after = requirements(portfolio(account, orders, false))
  if (after.im <= after.equity) return
  const before = requirements(portfolio(account, [], false))
  if (after.im > before.im) throw insufficient(after.im - before.im, before.available)
}
