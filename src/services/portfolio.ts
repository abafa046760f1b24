// The caller's positions valued at the current marks, and their wallet balance, as the spec shapes
// them (SPEC.md "Linear position", "Balances").
import { D, formatDecimal } from '../domain/decimal.js'
import { isLinear } from '../domain/market.js'
import type { AccountReads, MarketFilter } from '../store/accountReads.js'
import { numeric } from '../store/marketRows.js'
import type { MarketData } from './marketData.js'
import type { MarketKind } from './trading.js'

export interface PositionView {
  marketId: string
  side: 'long' | 'short'
  quantity: string
  avgPrice: string
  markPrice: string | null
  realizedPnl: string
  unrealizedPnl: string
  fundingPayment: string
  marginMode: 'cross' | 'isolated'
  initialMargin: string
  maintenanceMargin: string
  isolatedMargin: string
}

export interface WalletBalance {
  onchainDepositTotal: string
  /** The spot bucket: what spot trading can use. */
  tradableBalance: string
  walletBalance: string
  spotBalance: string
  perpsBalance: string
  optionsBalance: string
  pendingWithdrawalTotal: string
}

const usdc = (d: InstanceType<typeof D>) => formatDecimal(d.toDecimalPlaces(6, D.ROUND_DOWN))

/** The markets of one kind as a reads filter (every market ever listed: settled ones keep their history). */
export async function marketsOfKind(md: MarketData, kind: MarketKind | null | undefined): Promise<MarketFilter | undefined> {
  if (!kind) return undefined
  const linear = (await md.listed()).filter((m) => isLinear(m.spec.type)).map((m) => m.spec.id)
  return kind === 'linear' ? { in: linear } : { notIn: linear }
}

/** Linear positions (spot holdings included); option positions are optionPortfolio's. */
export async function positions(md: MarketData, reads: AccountReads, userId: string): Promise<PositionView[]> {
  const [rows, marks] = await Promise.all([reads.positions(userId), md.marks()])
  const out: PositionView[] = []
  for (const r of rows) {
    const market = await md.market(r.marketId)
    if (!market || !isLinear(market.spec.type)) continue
    const qty = D(r.quantity.toFixed())
    const abs = qty.abs()
    const cost = D(r.cost.toFixed())
    const mark = marks.get(r.marketId)?.price ?? null
    const value = mark === null ? cost : D(mark).mul(abs)
    const unrealized = qty.isPositive() ? value.sub(cost) : cost.sub(value)
    const linear = market.spec.type !== 'spot'
    const margin = (pct: string) => (linear ? usdc(value.mul(D(pct)).div(100)) : '0')
    out.push({
      marketId: r.marketId,
      side: qty.isPositive() ? 'long' : 'short',
      quantity: formatDecimal(abs),
      avgPrice: numeric(r.avgPrice),
      markPrice: mark,
      realizedPnl: numeric(r.realizedPnl),
      unrealizedPnl: usdc(unrealized),
      fundingPayment: numeric(r.fundingPayment),
      marginMode: r.marginMode as PositionView['marginMode'],
      initialMargin: margin(market.spec.initialMarginPct),
      maintenanceMargin: margin(market.spec.maintenanceMarginPct),
      isolatedMargin: numeric(r.isolatedMargin),
    })
  }
  return out
}

export async function walletBalance(reads: AccountReads, userId: string): Promise<WalletBalance> {
  const [b, deposits, pending] = await Promise.all([reads.balances(userId), reads.depositTotal(userId), reads.pendingWithdrawalTotal(userId)])
  return { onchainDepositTotal: deposits, ...bucketBalances(b), pendingWithdrawalTotal: pending }
}

/**
 * The wallet balance's bucket fields from the amounts by bucket (a missing bucket is zero): one mapping
 * for GET /wallet/balance and the balance stream's BalanceUpdate events (src/streams/streams.ts).
 */
export function bucketBalances(
  b: Partial<Record<'wallet' | 'spot' | 'perps' | 'options', string>>,
): Pick<WalletBalance, 'tradableBalance' | 'walletBalance' | 'spotBalance' | 'perpsBalance' | 'optionsBalance'> {
  return {
    tradableBalance: b.spot ?? '0',
    walletBalance: b.wallet ?? '0',
    spotBalance: b.spot ?? '0',
    perpsBalance: b.perps ?? '0',
    optionsBalance: b.options ?? '0',
  }
}
