// Portfolio snapshots (SPEC.md "Other": /portfolio/me and /portfolio/balances, "live snapshots" with
// shapes of our own, docs/decisions.md "Money on chain"): everything the caller holds valued at the
// current marks, read from PostgreSQL (committed state) and the mark mirror when asked.
//
//   equity       = Σ buckets + Σ position values, where a perpetual's or future's value is its unrealized
//                  P&L (its margin is already in the perps bucket) and a spot holding's or an option's is
//                  its signed mark value (its cost left a bucket when it was bought, or came in when sold)
//   marginUsed   = Σ initial margin of the linear derivative positions + what the options bucket locks
//   available    = max(0, equity − marginUsed)
import { D, formatDecimal } from '../domain/decimal.js'
import type { AccountReads } from '../store/accountReads.js'
import { numeric } from '../store/marketRows.js'
import type { MarketData } from './marketData.js'
import { optionPortfolio, optionsBalance, type OptionPositionView, type OptionsBalance } from './optionPortfolio.js'
import { positions, walletBalance, type PositionView } from './portfolio.js'

type Dec = InstanceType<typeof D>
const usdc = (d: Dec) => formatDecimal(d.toDecimalPlaces(6, D.ROUND_DOWN))

export interface BucketTotals {
  wallet: string
  spot: string
  perps: string
  options: string
}

/** GET /portfolio/balances: every bucket, the options bucket's locked part, and the on-chain totals. */
export interface PortfolioBalances {
  buckets: BucketTotals
  /** Σ buckets. */
  total: string
  options: OptionsBalance
  onchainDepositTotal: string
  pendingWithdrawalTotal: string
}

/** GET /portfolio/me. */
export interface PortfolioView {
  equity: string
  marginUsed: string
  available: string
  unrealizedPnl: string
  openOrderCount: number
  buckets: BucketTotals
  positions: PositionView[]
  optionPositions: OptionPositionView[]
}

export async function portfolioBalances(reads: AccountReads, userId: string): Promise<PortfolioBalances> {
  const [w, options] = await Promise.all([walletBalance(reads, userId), optionsBalance(reads, userId)])
  const buckets = { wallet: w.walletBalance, spot: w.spotBalance, perps: w.perpsBalance, options: w.optionsBalance }
  const total = Object.values(buckets).reduce((s, v) => s.add(D(v)), D(0))
  return { buckets, total: formatDecimal(total), options, onchainDepositTotal: w.onchainDepositTotal, pendingWithdrawalTotal: w.pendingWithdrawalTotal }
}

export async function portfolio(md: MarketData, reads: AccountReads, userId: string): Promise<PortfolioView> {
  const [balances, linear, options, rows, openOrderCount] = await Promise.all([
    portfolioBalances(reads, userId),
    positions(md, reads, userId),
    optionPortfolio(md, reads, userId),
    reads.positions(userId),
    reads.openOrderCount(userId),
  ])
  const cost = new Map(rows.map((r) => [r.marketId, D(numeric(r.cost))]))
  let value = D(balances.total)
  let unrealized = D(0)
  let margin = D(balances.options.locked)
  for (const p of linear) {
    const pnl = D(p.unrealizedPnl)
    const market = await md.market(p.marketId)
    if (market?.spec.type === 'spot') {
      value = value.add(cost.get(p.marketId) ?? 0).add(pnl)
    } else {
      value = value.add(pnl)
      unrealized = unrealized.add(pnl)
      margin = margin.add(D(p.initialMargin))
    }
  }
  for (const p of options.positions) {
    const pnl = D(p.unrealizedPnl)
    const c = cost.get(p.marketId) ?? D(0)
    value = value.add(D(p.quantity).isNegative() ? c.neg() : c).add(pnl)
    unrealized = unrealized.add(pnl)
  }
  const available = value.sub(margin)
  return {
    equity: usdc(value),
    marginUsed: usdc(margin),
    available: usdc(available.isNegative() ? D(0) : available),
    unrealizedPnl: usdc(unrealized),
    openOrderCount,
    buckets: balances.buckets,
    positions: linear,
    optionPositions: options.positions,
  }
}
