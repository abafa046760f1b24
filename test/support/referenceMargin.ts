// An independent reference for the perps bucket's cross margin (DESIGN.md §6), which the randomized
// tests compare with src/engine/margin.ts after every batch. Slow and plain on purpose: it reads only
// the engine's state — the perps balance, the positions, the account's open orders themselves, the marks
// on the tick and the market specs — never what the margin keeps for itself (account.exposure, the
// cached risk arrays, isolatedOrderMargin), and it evaluates every family in every scenario
// (scenarioRisk) rather than at the two extreme moves the engine sums. Nothing in margin.ts is called.
import { CORRELATION_CREDIT } from '../../src/domain/correlation.js'
import { linearRiskArray, portfolioRequirement, scenarioRisk, type Exposure } from '../../src/domain/risk.js'
import type { Account } from '../../src/engine/account.js'
import type { MarketRuntime } from '../../src/engine/marketRuntime.js'
import { isWaiting } from '../../src/engine/order.js'
import type { EngineState } from '../../src/engine/state.js'

/** An order the reference prices as if it rested too (the engine's WhatIf, by market id). */
export interface HypotheticalOrder {
  marketId: string
  side: 'buy' | 'sell'
  lots: number
  priceTicks: number
}

export interface ReferenceMargin {
  equity: bigint
  im: bigint
  mm: bigint
  available: bigint
  /** Families in the cross portfolio, and the initial margin the correlation credit took off: for
   * tests to show what they covered. */
  families: number
  imCredit: bigint
  /** Open cross orders counted (hypothetical ones aside). */
  crossOrders: number
}

/** One market of the portfolio: the cross position and the open orders that could add to it. */
interface Leg {
  market: MarketRuntime
  lots: number
  buyLots: number
  sellLots: number
  /** Σ limit price × remaining lots, tick·lots. */
  buyTickLots: bigint
  sellTickLots: bigint
}

/** The perps bucket margins perpetuals and futures (linear, not spot); options and spot are elsewhere. */
const inPerps = (m: MarketRuntime): boolean => m.spec.type === 'perpetual' || m.spec.type === 'future'

/** ceil(notional × the range's rate): an isolated order's (or position's) own margin at its price,
 * rounded in the exchange's favour. */
export function isolatedMargin(m: MarketRuntime, priceTicks: number, lots: number, range: 'im' | 'mm'): bigint {
  const x = BigInt(priceTicks) * BigInt(lots) * m.microPerTickLot * (range === 'im' ? m.initialMargin : m.maintenanceMargin)
  return (x + 999_999n) / 1_000_000n
}

function markOf(state: EngineState, m: MarketRuntime): number {
  const t = state.markTicks.get(m.spec.id)
  if (t === undefined) throw new Error(`reference margin: no mark for ${m.spec.id}`)
  return t.ticks
}

/** The account's cross margin from first principles, with `extra` orders resting as well. */
export function referenceCrossMargin(state: EngineState, account: Account, extra: readonly HypotheticalOrder[] = []): ReferenceMargin {
  let equity = account.balance('perps')
  let crossOrders = 0
  const legs = new Map<string, Leg>()
  const leg = (m: MarketRuntime): Leg => {
    let l = legs.get(m.spec.id)
    if (l === undefined) legs.set(m.spec.id, (l = { market: m, lots: 0, buyLots: 0, sellLots: 0, buyTickLots: 0n, sellTickLots: 0n }))
    return l
  }
  const addOrder = (m: MarketRuntime, side: 'buy' | 'sell', lots: number, priceTicks: number): void => {
    const l = leg(m)
    if (side === 'buy') {
      l.buyLots += lots
      l.buyTickLots += BigInt(lots) * BigInt(priceTicks)
    } else {
      l.sellLots += lots
      l.sellTickLots += BigInt(lots) * BigInt(priceTicks)
    }
  }

  // Positions: an isolated one's margin is its own, out of the cross equity; a cross one's unrealized
  // PnL at the mark is in it, and its lots are in the portfolio.
  for (const p of account.positions.values()) {
    const m = state.markets.get(p.marketId)!
    if (p.lots === 0 || !inPerps(m)) continue
    if (p.marginMode === 'isolated') {
      equity -= p.isolatedMargin
      continue
    }
    const value = BigInt(markOf(state, m)) * BigInt(Math.abs(p.lots)) * m.microPerTickLot
    equity += p.lots > 0 ? value - p.cost : p.cost - value
    leg(m).lots = p.lots
  }

  // Open orders resting in the book: an isolated one holds its own initial margin out of the equity, a
  // cross one counts in the portfolio. Reduce-only orders and orders waiting for a trigger hold nothing.
  for (const o of state.orders.values()) {
    if (o.userId !== account.userId || o.status !== 'open' || o.priceTicks === null || o.reduceOnly || isWaiting(o)) continue
    const m = state.markets.get(o.marketId)!
    if (!inPerps(m)) continue
    const remaining = o.lots - o.filledLots
    if (o.marginMode === 'isolated') equity -= isolatedMargin(m, o.priceTicks, remaining, 'im')
    else if (o.marginMode === 'cross') {
      addOrder(m, o.side, remaining, o.priceTicks)
      crossOrders++
    } else throw new Error(`reference margin: order ${o.id} in ${o.marketId} has no margin mode`)
  }
  for (const w of extra) addOrder(state.markets.get(w.marketId)!, w.side, w.lots, w.priceTicks)

  // Each market's exposure on both ranges, grouped by family.
  const families = new Map<string, { assetClass: string; im: Exposure[]; mm: Exposure[] }>()
  for (const l of legs.values()) {
    const m = l.market
    const mark = markOf(state, m)
    const valuePerLot = BigInt(mark) * m.microPerTickLot
    // Filling every open buy at once loses what they pay above the mark, every sell what it gets below;
    // summed over the market's orders of that side, nothing when they would gain.
    const buyAbove = l.buyTickLots - BigInt(l.buyLots) * BigInt(mark)
    const sellBelow = BigInt(l.sellLots) * BigInt(mark) - l.sellTickLots
    const orders = {
      lots: l.lots,
      buyLots: l.buyLots,
      sellLots: l.sellLots,
      buyCost: buyAbove > 0n ? buyAbove * m.microPerTickLot : 0n,
      sellCost: sellBelow > 0n ? sellBelow * m.microPerTickLot : 0n,
    }
    let f = families.get(m.spec.family)
    if (f === undefined) families.set(m.spec.family, (f = { assetClass: m.spec.assetClass, im: [], mm: [] }))
    f.im.push({ array: linearRiskArray(valuePerLot, m.initialMargin), ...orders })
    f.mm.push({ array: linearRiskArray(valuePerLot, m.maintenanceMargin), ...orders })
  }

  const imRisks = [...families.values()].map((f) => ({ ...scenarioRisk(f.im), assetClass: f.assetClass }))
  const mmRisks = [...families.values()].map((f) => ({ ...scenarioRisk(f.mm), assetClass: f.assetClass }))
  const im = portfolioRequirement(imRisks, CORRELATION_CREDIT)
  const mm = portfolioRequirement(mmRisks, CORRELATION_CREDIT)
  const imCredit = imRisks.reduce((s, r) => s + r.requirement, 0n) - im
  return { equity, im, mm, available: equity - im, families: families.size, imCredit, crossOrders }
}
