// The caller's options book of account, as the spec shapes it (SPEC.md "Option position", "Balances"):
// positions with signed quantities valued at the option's theoretical mark (src/services/optionMarks.ts,
// the board's mark), their Black-76 sensitivities (a GraphQL extension), and the options bucket.
import { D, formatDecimal } from '../domain/decimal.js'
import { black76Greeks, type Greeks } from '../domain/pricing/greeks.js'
import type { AccountReads } from '../store/accountReads.js'
import { numeric } from '../store/marketRows.js'
import type { MarketData } from './marketData.js'
import { optionValuer } from './optionMarks.js'

type Dec = InstanceType<typeof D>

export interface OptionPositionView {
  marketId: string
  /** Signed: negative when short. */
  quantity: string
  /** Average option price of the open lots, in units of the underlying. */
  avgPrice: string
  /** The theoretical mark, in units of the underlying; null without the marks it needs. */
  markPrice: string | null
  realizedPnl: string
  /** Mark value of the position less the premium of its open lots (USDC); 0 without a mark. */
  unrealizedPnl: string
  /** The position's Black-76 sensitivities (quantity × one unit's); null without a mark. */
  greeks: GreeksView | null
}

/** Decimal strings: delta in units of the underlying, gamma per USDC of the forward, vega per vol point and theta per day in USDC. */
export interface GreeksView {
  delta: string
  gamma: string
  vega: string
  theta: string
}

export interface OptionPortfolio {
  positions: OptionPositionView[]
  /** Sums over the positions that have a mark. */
  totals: GreeksView
}

export interface OptionsBalance {
  available: string
  locked: string
  total: string
}

const usdc = (d: Dec) => formatDecimal(d.toDecimalPlaces(6, D.ROUND_DOWN))
/** Decimal places a greek is shown with: enough for a hundredth of a contract's gamma to show. */
const PLACES: Record<keyof Greeks, number> = { delta: 8, gamma: 12, vega: 6, theta: 6 }

function greeksView(g: Record<keyof Greeks, Dec>): GreeksView {
  const f = (k: keyof Greeks) => formatDecimal(g[k].toDecimalPlaces(PLACES[k]))
  return { delta: f('delta'), gamma: f('gamma'), vega: f('vega'), theta: f('theta') }
}

export async function optionPortfolio(md: MarketData, reads: AccountReads, userId: string): Promise<OptionPortfolio> {
  const [rows, marks, listed] = await Promise.all([reads.positions(userId), md.marks(), md.listed()])
  const value = optionValuer(listed, marks, md.clock())
  const byId = new Map(listed.map((m) => [m.spec.id, m.spec]))
  const zero = () => ({ delta: D(0), gamma: D(0), vega: D(0), theta: D(0) })
  const totals = zero()
  const positions: OptionPositionView[] = []
  for (const r of rows) {
    const spec = byId.get(r.marketId)
    if (!spec || spec.type !== 'option') continue
    const qty = D(r.quantity.toFixed())
    const cost = D(r.cost.toFixed())
    const v = value(spec)
    let unrealized = D(0)
    let greeks: GreeksView | null = null
    if (v) {
      const worth = v.theo.price.mul(qty.abs()).mul(D(v.spotPrice))
      unrealized = qty.isPositive() ? worth.sub(cost) : cost.sub(worth)
      const unit = black76Greeks({
        forward: v.forward.price,
        strike: Number(spec.strike),
        timeYears: v.timeYears,
        vol: v.theo.iv,
        rate: v.rate,
        isCall: spec.optionType === 'call',
      })
      const g = zero()
      for (const k of Object.keys(g) as Array<keyof Greeks>) {
        g[k] = qty.mul(D(unit[k]))
        totals[k] = totals[k].add(g[k])
      }
      greeks = greeksView(g)
    }
    positions.push({
      marketId: r.marketId,
      quantity: formatDecimal(qty),
      avgPrice: numeric(r.avgPrice),
      markPrice: v ? formatDecimal(v.theo.price) : null,
      realizedPnl: numeric(r.realizedPnl),
      unrealizedPnl: usdc(unrealized),
      greeks,
    })
  }
  return { positions, totals: greeksView(totals) }
}

/** The options bucket: `total` is the balance, `locked` what the engine holds for open orders and short options. */
export async function optionsBalance(reads: AccountReads, userId: string): Promise<OptionsBalance> {
  const { total, locked } = await reads.optionsBalance(userId)
  return { available: formatDecimal(D(total).sub(D(locked))), locked, total }
}
