// The caller's account: wallet buckets and transfers, the faucet, the dead man's switch, and the
// account reads hung on `me` (orders, open orders, trades, positions, balance).
import { resolveArrayConnection } from '@pothos/plugin-relay'
import { USER_BUCKETS, type UserBucket } from '../../domain/buckets.js'
import { DomainError } from '../../domain/errors.js'
import { DEFAULT_PAGE, MAX_PAGE, type DepositView, type LiquidationView, type Page, type WithdrawalView } from '../../store/accountReads.js'
import { marketsOfKind, positions, walletBalance, type PositionView, type WalletBalance } from '../../services/portfolio.js'
import { optionPortfolio, optionsBalance, type GreeksView, type OptionPortfolio, type OptionPositionView, type OptionsBalance } from '../../services/optionPortfolio.js'
import { portfolio, portfolioBalances, type BucketTotals, type PortfolioBalances, type PortfolioView } from '../../services/portfolioSnapshot.js'
import type { UserRow } from '../../auth/users.js'
import { builder } from '../builder.js'
import type { GraphQLContext } from '../context.js'
import { memoize } from '../context.js'
import { countedConnection, forwardArgs, forwardConnection } from '../connections.js'
import { ACCOUNT_PAGE, connectionCost, COST, LINEAR_MARKETS, OPTION_FAMILIES, OPTIONS_PER_FAMILY, OWN_LIST_PAGE } from '../cost.js'
import { UserRef } from './identity.js'
import { MarginModeEnum, MarketKindEnum, OrderRef, OrderStatusEnum, principal, TradeRef } from './trading.js'

const BUCKET_DESCRIPTIONS: Record<UserBucket, string> = {
  wallet: 'Where deposits and the faucet land and withdrawals leave from; idle money.',
  spot: 'Funds spot trading: a buy needs its USDC here.',
  perps: 'Collateral of perpetuals and futures (cross margin and isolated positions).',
  options: 'Pays option premiums and fees and margins short options.',
}
const BucketEnum = builder.enumType('Bucket', {
  description: 'One of the caller\'s four balance buckets of USDC-T; moves between them are instant and free (transfer). REST writes `wallet`, `spot`, `perps`, `options`.',
  values: Object.fromEntries(USER_BUCKETS.map((b) => [b.toUpperCase(), { value: b, description: BUCKET_DESCRIPTIONS[b] }])) as Record<
    Uppercase<UserBucket>,
    { value: UserBucket; description: string }
  >,
})
const PositionSideEnum = builder.enumType('PositionSide', {
  description: 'Which way a linear position points. REST writes `long` or `short`.',
  values: {
    LONG: { value: 'long', description: 'Long: gains when the price rises (spot holdings are long).' },
    SHORT: { value: 'short', description: 'Short: gains when the price falls.' },
  } as const,
})

const PositionRef = builder.objectRef<PositionView>('Position').implement({
  description: 'A linear position (spot holdings are long positions). Quantities are positive; side says which way.',
  fields: (t) => ({
    marketId: t.exposeString('marketId', { description: 'The market.' }),
    side: t.field({ type: PositionSideEnum, description: 'Long or short.', resolve: (p) => p.side }),
    quantity: t.field({ type: 'Decimal', description: 'Size, positive, in units of the base.', resolve: (p) => p.quantity }),
    avgPrice: t.field({ type: 'Decimal', description: 'Average entry price of the open quantity, USDC.', resolve: (p) => p.avgPrice }),
    markPrice: t.field({ type: 'Decimal', nullable: true, description: 'The current mark, USDC; null while the market has none.', resolve: (p) => p.markPrice }),
    realizedPnl: t.field({ type: 'Decimal', description: 'P&L realized by closing parts of it, USDC-T.', resolve: (p) => p.realizedPnl }),
    unrealizedPnl: t.field({ type: 'Decimal', description: 'P&L of the open quantity at the mark, USDC-T; "0" without a mark.', resolve: (p) => p.unrealizedPnl }),
    fundingPayment: t.field({ type: 'Decimal', description: 'Perpetuals: funding received over its life, USDC-T, negative when paid; "0" otherwise.', resolve: (p) => p.fundingPayment }),
    marginMode: t.field({ type: MarginModeEnum, description: 'Cross or isolated.', resolve: (p) => p.marginMode }),
    initialMargin: t.field({ type: 'Decimal', description: 'What this position alone needs at the mark, USDC-T (a cross portfolio nets its positions).', resolve: (p) => p.initialMargin }),
    maintenanceMargin: t.field({ type: 'Decimal', description: 'Its maintenance margin at the mark, USDC-T: below it the account is liquidated.', resolve: (p) => p.maintenanceMargin }),
    isolatedMargin: t.field({ type: 'Decimal', description: 'Isolated positions: the margin set aside for it, USDC-T; "0" for cross.', resolve: (p) => p.isolatedMargin }),
  }),
})

const GreeksRef = builder.objectRef<GreeksView>('OptionGreeks').implement({
  description: 'Black-76 sensitivities at the theoretical mark, sticky strike (the smile\'s vol held).',
  fields: (t) => ({
    delta: t.field({ type: 'Decimal', description: 'Units of the underlying per unit move of the forward: ∂V/∂F × quantity.', resolve: (g) => g.delta }),
    gamma: t.field({ type: 'Decimal', description: 'Change of delta per 1 USDC move of the forward.', resolve: (g) => g.gamma }),
    vega: t.field({ type: 'Decimal', description: 'USDC per volatility point (σ + 0.01).', resolve: (g) => g.vega }),
    theta: t.field({ type: 'Decimal', description: 'USDC per calendar day of time passing, marks held.', resolve: (g) => g.theta }),
  }),
})

const OptionPositionRef = builder.objectRef<OptionPositionView>('OptionPosition').implement({
  description: 'An option position. Quantity is signed (negative when short); prices are in units of the underlying, money in USDC-T.',
  fields: (t) => ({
    marketId: t.exposeString('marketId', { description: 'The option market.' }),
    quantity: t.field({ type: 'Decimal', description: 'Contracts, signed: negative when short.', resolve: (p) => p.quantity }),
    avgPrice: t.field({ type: 'Decimal', description: 'Average option price of the open lots, units of the underlying.', resolve: (p) => p.avgPrice }),
    markPrice: t.field({ type: 'Decimal', nullable: true, description: 'The theoretical mark (the board\'s markPrice); null without the marks it needs.', resolve: (p) => p.markPrice }),
    realizedPnl: t.field({ type: 'Decimal', description: 'P&L realized by closing lots and at settlement, USDC-T.', resolve: (p) => p.realizedPnl }),
    unrealizedPnl: t.field({ type: 'Decimal', description: 'USDC-T: value at the mark and the spot index less the premium of the open lots; 0 without a mark.', resolve: (p) => p.unrealizedPnl }),
    greeks: t.field({ type: GreeksRef, nullable: true, description: 'The position\'s sensitivities; null without a mark.', resolve: (p) => p.greeks }),
  }),
})

const OptionsBalanceRef = builder.objectRef<OptionsBalance>('OptionsBalance').implement({
  description: 'The options bucket: total = available + locked. Locked is what open orders reserve and short options require.',
  fields: (t) => ({
    available: t.field({ type: 'Decimal', description: 'USDC-T free to pay premiums and fees, back short options, or transfer out.', resolve: (b) => b.available }),
    locked: t.field({ type: 'Decimal', description: 'USDC-T held for open orders and short options.', resolve: (b) => b.locked }),
    total: t.field({ type: 'Decimal', description: 'The bucket\'s balance, USDC-T: available + locked.', resolve: (b) => b.total }),
  }),
})

const LiquidationRef = builder.objectRef<LiquidationView>('Liquidation').implement({
  description: 'One liquidation step: a reduce-only IOC close against the book, its fee, and what the insurance fund covered.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The step\'s id; ids sort by time.' }),
    marketId: t.exposeString('marketId', { description: 'The market of the position.' }),
    orderId: t.exposeString('orderId', { nullable: true, description: 'The reduce-only IOC order the exchange placed for the step (null only on a step recorded without one).' }),
    marginMode: t.field({ type: MarginModeEnum, description: 'The position\'s margin mode.', resolve: (l) => l.marginMode as 'cross' | 'isolated' }),
    quantity: t.field({ type: 'Decimal', description: 'Signed position before the step, units of the base (options: contracts).', resolve: (l) => l.quantity }),
    closedQuantity: t.field({ type: 'Decimal', description: 'What the step closed.', resolve: (l) => l.closedQuantity }),
    price: t.field({ type: 'Decimal', nullable: true, description: 'Average close price; null when nothing closed.', resolve: (l) => l.price }),
    realizedPnl: t.field({ type: 'Decimal', description: 'P&L realized by the close, USDC-T.', resolve: (l) => l.realizedPnl }),
    fee: t.field({ type: 'Decimal', description: 'Liquidation fee paid to the insurance fund, USDC-T.', resolve: (l) => l.fee }),
    insurance: t.field({ type: 'Decimal', description: 'Paid by the insurance fund to cover a shortfall, USDC-T.', resolve: (l) => l.insurance }),
    equity: t.field({ type: 'Decimal', nullable: true, description: 'The account\'s (or isolated position\'s) equity when it was liquidated, USDC-T; null when not recorded.', resolve: (l) => l.equity }),
    maintenanceMargin: t.field({ type: 'Decimal', nullable: true, description: 'The maintenance margin it fell below, USDC-T; null when not recorded.', resolve: (l) => l.maintenanceMargin }),
    createdAt: t.field({ type: 'DateTime', description: 'When it happened.', resolve: (l) => new Date(l.createdAt) }),
  }),
})

export const WalletBalanceRef = builder.objectRef<WalletBalance>('WalletBalance').implement({
  description: 'The caller\'s buckets and on-chain totals, USDC-T (GET /wallet/balance; the balance stream\'s payload).',
  fields: (t) => ({
    onchainDepositTotal: t.field({ type: 'Decimal', description: 'Every deposit ever credited from the chain.', resolve: (b) => b.onchainDepositTotal }),
    tradableBalance: t.field({ type: 'Decimal', description: 'The spot bucket: what spot trading can use.', resolve: (b) => b.tradableBalance }),
    walletBalance: t.field({ type: 'Decimal', description: 'The wallet bucket.', resolve: (b) => b.walletBalance }),
    spotBalance: t.field({ type: 'Decimal', description: 'The spot bucket.', resolve: (b) => b.spotBalance }),
    perpsBalance: t.field({ type: 'Decimal', description: 'The perps bucket.', resolve: (b) => b.perpsBalance }),
    optionsBalance: t.field({ type: 'Decimal', description: 'The options bucket (its total).', resolve: (b) => b.optionsBalance }),
    pendingWithdrawalTotal: t.field({ type: 'Decimal', description: 'Withdrawals requested and not yet completed or failed.', resolve: (b) => b.pendingWithdrawalTotal }),
  }),
})

const bucketFields = (what: string) =>
  ({
    wallet: `The wallet bucket${what}.`,
    spot: `The spot bucket${what}.`,
    perps: `The perps bucket${what}.`,
    options: `The options bucket${what}.`,
  }) as const satisfies Record<UserBucket, string>

const BucketBalancesRef = builder.objectRef<Record<UserBucket, string>>('BucketBalances').implement({
  description: 'Every bucket\'s balance after a transfer, USDC-T.',
  fields: (t) => {
    const d = bucketFields(' after the transfer')
    return {
      wallet: t.field({ type: 'Decimal', description: d.wallet, resolve: (b) => b.wallet }),
      spot: t.field({ type: 'Decimal', description: d.spot, resolve: (b) => b.spot }),
      perps: t.field({ type: 'Decimal', description: d.perps, resolve: (b) => b.perps }),
      options: t.field({ type: 'Decimal', description: d.options, resolve: (b) => b.options }),
    }
  },
})

const TransferRef = builder.objectRef<{ from: string; to: string; amount: string; balances: Record<UserBucket, string> }>('TransferResult').implement({
  description: 'A completed move between the caller\'s buckets.',
  fields: (t) => ({
    from: t.field({ type: BucketEnum, description: 'The bucket debited.', resolve: (r) => r.from as never }),
    to: t.field({ type: BucketEnum, description: 'The bucket credited.', resolve: (r) => r.to as never }),
    amount: t.field({ type: 'Decimal', description: 'USDC-T moved.', resolve: (r) => r.amount }),
    balances: t.field({ type: BucketBalancesRef, description: 'Every bucket after the move.', resolve: (r) => r.balances }),
  }),
})

const FaucetRef = builder.objectRef<{ amount: string; walletBalance: string; remainingToday: string }>('FaucetResult').implement({
  description: 'Test-network USDC-T credited by the faucet.',
  fields: (t) => ({
    amount: t.field({ type: 'Decimal', description: 'USDC-T credited to the wallet bucket.', resolve: (r) => r.amount }),
    walletBalance: t.field({ type: 'Decimal', description: 'The wallet bucket after it.', resolve: (r) => r.walletBalance }),
    remainingToday: t.field({ type: 'Decimal', description: 'What the faucet still gives today (rolling 24 h).', resolve: (r) => r.remainingToday }),
  }),
})

const DepositStatusEnum = builder.enumType('DepositStatus', {
  description: 'Where a deposit stands. REST writes these in lower case.',
  values: {
    PENDING: { value: 'pending', description: 'Seen on chain, fewer confirmations than DEPOSIT_CONFIRMATIONS; gone if a reorg drops its block.' },
    CONFIRMED: { value: 'confirmed', description: 'Final; credited as soon as its sender has signed in.' },
    CREDITED: { value: 'credited', description: 'In the wallet bucket.' },
  } as const,
})

const DepositRef = builder.objectRef<DepositView>('Deposit').implement({
  description: 'A USDC-T transfer from the caller\'s address to the vault: one Transfer log (a transaction may hold several).',
  fields: (t) => ({
    id: t.exposeString('id', { description: '`txHash:logIndex`: the deposit\'s identity on chain.' }),
    txHash: t.exposeString('txHash', { description: 'The transaction hash, 0x-prefixed hex.' }),
    logIndex: t.exposeInt('logIndex', { description: 'The Transfer log\'s index in its block.' }),
    blockNumber: t.exposeInt('blockNumber', { description: 'The block it was seen in.' }),
    amount: t.field({ type: 'Decimal', description: 'USDC-T transferred (6 decimals).', resolve: (d) => d.amount }),
    confirmations: t.exposeInt('confirmations', { description: 'Blocks including its own, as of the indexer\'s last look at the chain.' }),
    status: t.field({ type: DepositStatusEnum, description: 'Pending, confirmed or credited.', resolve: (d) => d.status }),
    createdAt: t.field({ type: 'DateTime', description: 'When the indexer first saw it.', resolve: (d) => new Date(d.createdAt) }),
    creditedAt: t.field({ type: 'DateTime', nullable: true, description: 'When it reached the wallet bucket; null until then.', resolve: (d) => (d.creditedAt ? new Date(d.creditedAt) : null) }),
  }),
})

const WithdrawalStatusEnum = builder.enumType('WithdrawalStatus', {
  description: 'Where a withdrawal stands. REST writes these in lower case.',
  values: {
    PENDING: { value: 'pending', description: 'Accepted: the amount left the wallet bucket; not signed yet.' },
    SENT: { value: 'sent', description: 'The transfer is signed and handed to the chain (txHash).' },
    COMPLETED: { value: 'completed', description: 'The transfer has DEPOSIT_CONFIRMATIONS confirmations.' },
    FAILED: { value: 'failed', description: 'Reverted or refused by the chain; the amount is back in the wallet bucket.' },
  } as const,
})

const WithdrawalRef = builder.objectRef<WithdrawalView>('Withdrawal').implement({
  description: 'USDC-T sent from the wallet bucket to an address on chain (POST /wallet/withdraw, GET /wallet/withdrawals).',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The withdrawal\'s id.' }),
    amount: t.field({ type: 'Decimal', description: 'USDC-T withdrawn.', resolve: (w) => w.amount }),
    toAddress: t.exposeString('toAddress', { description: 'The EIP-55 address it is sent to.' }),
    status: t.field({ type: WithdrawalStatusEnum, description: 'Pending, sent, completed or failed.', resolve: (w) => w.status }),
    txHash: t.exposeString('txHash', { nullable: true, description: 'The transfer\'s transaction hash; null until it is signed.' }),
    error: t.exposeString('error', { nullable: true, description: 'Why it failed; null unless FAILED.' }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was requested.', resolve: (w) => new Date(w.createdAt) }),
    updatedAt: t.field({ type: 'DateTime', description: 'When its status last changed.', resolve: (w) => new Date(w.updatedAt) }),
  }),
})

const BucketTotalsRef = builder.objectRef<BucketTotals>('BucketTotals').implement({
  description: 'Every bucket\'s balance, USDC-T.',
  fields: (t) => {
    const d = bucketFields('')
    return {
      wallet: t.field({ type: 'Decimal', description: d.wallet, resolve: (b) => b.wallet }),
      spot: t.field({ type: 'Decimal', description: d.spot, resolve: (b) => b.spot }),
      perps: t.field({ type: 'Decimal', description: d.perps, resolve: (b) => b.perps }),
      options: t.field({ type: 'Decimal', description: d.options, resolve: (b) => b.options }),
    }
  },
})

const PortfolioBalancesRef = builder.objectRef<PortfolioBalances>('PortfolioBalances').implement({
  description: 'Every bucket, the options bucket\'s locked part, and the on-chain totals (GET /portfolio/balances).',
  fields: (t) => ({
    buckets: t.field({ type: BucketTotalsRef, description: 'Every bucket.', resolve: (b) => b.buckets }),
    total: t.field({ type: 'Decimal', description: 'All buckets together, USDC-T.', resolve: (b) => b.total }),
    options: t.field({ type: OptionsBalanceRef, description: 'The options bucket split into available and locked.', resolve: (b) => b.options }),
    onchainDepositTotal: t.field({ type: 'Decimal', description: 'Every deposit ever credited from the chain, USDC-T.', resolve: (b) => b.onchainDepositTotal }),
    pendingWithdrawalTotal: t.field({ type: 'Decimal', description: 'Withdrawals requested and not yet completed or failed, USDC-T.', resolve: (b) => b.pendingWithdrawalTotal }),
  }),
})

const PortfolioRef = builder.objectRef<PortfolioView>('Portfolio').implement({
  description: 'Everything the caller holds at the current marks (GET /portfolio/me). equity = all buckets + the unrealized P&L of perpetuals and futures + the signed mark value of spot holdings and options; marginUsed = their initial margin + what the options bucket locks; available = equity − marginUsed, at least 0.',
  fields: (t) => ({
    equity: t.field({ type: 'Decimal', description: 'USDC-T: every bucket + unrealized P&L of perpetuals and futures + signed mark value of spot holdings and options.', resolve: (p) => p.equity }),
    marginUsed: t.field({ type: 'Decimal', description: 'USDC-T: initial margin of the positions + what the options bucket locks.', resolve: (p) => p.marginUsed }),
    available: t.field({ type: 'Decimal', description: 'USDC-T: equity − marginUsed, at least 0.', resolve: (p) => p.available }),
    unrealizedPnl: t.field({ type: 'Decimal', description: 'Of perpetuals, futures and options, USDC-T.', resolve: (p) => p.unrealizedPnl }),
    openOrderCount: t.exposeInt('openOrderCount', { description: 'The caller\'s open orders, every market.' }),
    buckets: t.field({ type: BucketTotalsRef, description: 'Every bucket.', resolve: (p) => p.buckets }),
    positions: t.field({ type: [PositionRef], description: 'Linear positions (spot holdings included).', resolve: (p) => p.positions }),
    optionPositions: t.field({ type: [OptionPositionRef], description: 'Option positions at the theoretical marks.', resolve: (p) => p.optionPositions }),
  }),
})

const DeadManRef = builder.objectRef<{ timeoutMs: number; cancelAt: string | null }>('DeadManSwitch').implement({
  description: 'The caller\'s dead man\'s switch: all its orders are cancelled at cancelAt unless it is called again before.',
  fields: (t) => ({
    timeoutMs: t.exposeInt('timeoutMs', { description: 'The timeout armed, milliseconds; 0: disarmed.' }),
    cancelAt: t.field({ type: 'DateTime', nullable: true, description: 'Null when disarmed.', resolve: (r) => (r.cancelAt ? new Date(r.cancelAt) : null) }),
  }),
})

const OptionPositionConnectionRef = countedConnection(OptionPositionRef, 'OptionPosition', 'open option positions', OWN_LIST_PAGE)
builder.objectField(OptionPositionConnectionRef, 'totals', (t) =>
  t.field({
    type: GreeksRef,
    description: 'The sensitivities of every option position together (not just this page).',
    resolve: (conn) => (conn as unknown as { totals: OptionPortfolio['totals'] }).totals,
  }),
)
const OrderConnectionRef = forwardConnection(OrderRef, 'Order', 'orders')
const TradeConnectionRef = forwardConnection(TradeRef, 'Trade', 'trade history rows')
const DepositConnectionRef = forwardConnection(DepositRef, 'Deposit', 'deposits')
const WithdrawalConnectionRef = forwardConnection(WithdrawalRef, 'Withdrawal', 'withdrawals')
const LiquidationConnectionRef = forwardConnection(LiquidationRef, 'Liquidation', 'liquidation steps')

/** A reads page as a Relay connection: the cursor is the last item's id. */
function connection<T>(p: Page<T>, idOf: (t: T) => string) {
  const edges = p.items.map((node) => ({ cursor: idOf(node), node }))
  return {
    edges,
    pageInfo: { hasNextPage: p.nextCursor !== null, hasPreviousPage: false, startCursor: edges[0]?.cursor ?? null, endCursor: edges.at(-1)?.cursor ?? null },
  }
}

function pageSize(first: number | null | undefined): number {
  if (first === null || first === undefined) return DEFAULT_PAGE
  if (!Number.isInteger(first) || first < 1 || first > MAX_PAGE) throw new DomainError('INVALID_REQUEST', `first must be 1 to ${MAX_PAGE}`)
  return first
}

/** Account reads are the caller's own only. */
function own(user: UserRow, ctx: GraphQLContext): string {
  if (ctx.principal?.userId !== user.id) throw new DomainError('SCOPE_INSUFFICIENT', 'Only your own account can be read')
  return user.id
}

const read = { authScopes: { level: 'read' as const } }

builder.objectFields(UserRef, (t) => ({
  orders: t.field({
    nullable: true,
    ...read,
    complexity: connectionCost(COST.accountPage, ACCOUNT_PAGE),
    type: OrderConnectionRef,
    description: 'The caller\'s orders, newest first, filtered by every argument given; `kind` keeps one kind of market. REST: GET /perps/orders (kind LINEAR), GET /perps/orders/open (kind LINEAR, status OPEN), GET /orders/me (kind OPTION).',
    args: {
      ...forwardArgs(t.arg, ACCOUNT_PAGE),
      marketId: t.arg.string({ description: 'Only orders on this market.' }),
      kind: t.arg({ type: MarketKindEnum, description: 'Only orders on markets of this kind.' }),
      marginMode: t.arg({ type: MarginModeEnum, description: 'Only linear orders of this margin mode.' }),
      status: t.arg({ type: OrderStatusEnum, description: 'Only orders in this status (OPEN: the open orders).' }),
    },
    resolve: async (user, args, ctx) => {
      const userId = own(user, ctx)
      const markets = await marketsOfKind(ctx.services.marketData, args.kind)
      const f = { marketId: args.marketId, markets, marginMode: args.marginMode, status: args.status, limit: pageSize(args.first), cursor: args.after }
      return connection(await ctx.services.reads.orders(userId, f), (o) => o.id)
    },
  }),
  trades: t.field({
    nullable: true,
    ...read,
    complexity: connectionCost(COST.accountPage, ACCOUNT_PAGE),
    type: TradeConnectionRef,
    description: 'The caller\'s fills, funding payments and settlements, newest first; `kind` keeps one kind of market. REST: GET /perps/trades (kind LINEAR), GET /trades/me (kind OPTION).',
    args: {
      ...forwardArgs(t.arg, ACCOUNT_PAGE),
      marketId: t.arg.string({ description: 'Only rows of this market.' }),
      kind: t.arg({ type: MarketKindEnum, description: 'Only rows of markets of this kind.' }),
    },
    resolve: async (user, args, ctx) => {
      const userId = own(user, ctx)
      const markets = await marketsOfKind(ctx.services.marketData, args.kind)
      return connection(await ctx.services.reads.trades(userId, { marketId: args.marketId, markets, limit: pageSize(args.first), cursor: args.after }), (f) => f.tradeId)
    },
  }),
  positions: t.connection(
    {
      nullable: true,
      ...read,
      // One position per linear market held.
      complexity: connectionCost(COST.positions, OWN_LIST_PAGE, LINEAR_MARKETS),
      type: PositionRef,
      description: 'Open linear positions (spot holdings included), valued at the current marks; option positions: optionPositions. REST: GET /perps/positions.',
      resolve: async (user, args, ctx) =>
        resolveArrayConnection({ args, ...OWN_LIST_PAGE }, await positions(ctx.services.marketData, ctx.services.reads, own(user, ctx))),
    },
    countedConnection(PositionRef, 'Position', 'open linear positions', OWN_LIST_PAGE),
  ),
  optionPositions: t.connection(
    {
      nullable: true,
      ...read,
      // One position per option market held, each priced with Black-76.
      complexity: connectionCost(COST.optionPositions, OWN_LIST_PAGE, OPTIONS_PER_FAMILY * OPTION_FAMILIES),
      type: OptionPositionRef,
      description: 'Open option positions at the theoretical marks, with their sensitivities; `totals` sums them over every position. REST: GET /positions/me.',
      resolve: async (user, args, ctx) => {
        const userId = own(user, ctx)
        const p = await memoize(ctx, `optionPortfolio:${userId}`, () => optionPortfolio(ctx.services.marketData, ctx.services.reads, userId))
        return { ...resolveArrayConnection({ args, ...OWN_LIST_PAGE }, p.positions), totals: p.totals }
      },
    },
    OptionPositionConnectionRef,
  ),
  optionsBalance: t.field({
    ...read,
    nullable: true,
    complexity: COST.optionsBalance,
    type: OptionsBalanceRef,
    description: 'The options bucket: available, locked and total. REST: GET /balances/me.',
    resolve: (user, _a, ctx) => optionsBalance(ctx.services.reads, own(user, ctx)),
  }),
  balance: t.field({
    ...read,
    nullable: true,
    complexity: COST.balance,
    type: WalletBalanceRef,
    description: 'Every bucket and the on-chain totals. REST: GET /wallet/balance; the subscription myBalances streams it.',
    resolve: (user, _a, ctx) => walletBalance(ctx.services.reads, own(user, ctx)),
  }),
  portfolio: t.field({
    ...read,
    nullable: true,
    complexity: COST.positions + COST.optionPositions + COST.balance + COST.optionsBalance,
    type: PortfolioRef,
    description: 'A live snapshot of the whole account at the current marks. REST: GET /portfolio/me.',
    resolve: (user, _a, ctx) => portfolio(ctx.services.marketData, ctx.services.reads, own(user, ctx)),
  }),
  portfolioBalances: t.field({
    ...read,
    nullable: true,
    complexity: COST.balance + COST.optionsBalance,
    type: PortfolioBalancesRef,
    description: 'Every bucket with the deposit and pending-withdrawal totals. REST: GET /portfolio/balances.',
    resolve: (user, _a, ctx) => portfolioBalances(ctx.services.reads, own(user, ctx)),
  }),
  deposits: t.field({
    nullable: true,
    ...read,
    complexity: connectionCost(COST.accountPage, ACCOUNT_PAGE),
    type: DepositConnectionRef,
    description: 'USDC-T sent from the caller\'s address to the vault, newest first, pending ones included. REST: GET /wallet/deposits.',
    args: forwardArgs(t.arg, ACCOUNT_PAGE),
    resolve: async (user, args, ctx) => {
      own(user, ctx)
      return connection(await ctx.services.reads.deposits(user.address, { limit: pageSize(args.first), cursor: args.after }), (d) => d.id)
    },
  }),
  withdrawals: t.field({
    nullable: true,
    ...read,
    complexity: connectionCost(COST.accountPage, ACCOUNT_PAGE),
    type: WithdrawalConnectionRef,
    description: 'The caller\'s withdrawals, newest first. REST: GET /wallet/withdrawals.',
    args: forwardArgs(t.arg, ACCOUNT_PAGE),
    resolve: async (user, args, ctx) => connection(await ctx.services.reads.withdrawals(own(user, ctx), { limit: pageSize(args.first), cursor: args.after }), (w) => w.id),
  }),
  liquidations: t.field({
    nullable: true,
    ...read,
    complexity: connectionCost(COST.accountPage, ACCOUNT_PAGE),
    type: LiquidationConnectionRef,
    description: 'Liquidation steps on the caller\'s positions, newest first. REST: GET /perps/liquidations.',
    args: forwardArgs(t.arg, ACCOUNT_PAGE),
    resolve: async (user, args, ctx) =>
      connection(await ctx.services.reads.liquidations(own(user, ctx), { limit: pageSize(args.first), cursor: args.after }), (l) => l.id),
  }),
}))

const trade = { authScopes: { level: 'trade' as const } }

builder.mutationFields((t) => ({
  transfer: t.field({
    nullable: true,
    ...trade,
    type: TransferRef,
    description: 'Moves USDC-T between the caller\'s buckets, instantly and free. SAME_BUCKET when from = to; INSUFFICIENT_BALANCE beyond what the source can release. REST: POST /wallet/transfer.',
    args: {
      from: t.arg({ type: BucketEnum, required: true, description: 'The bucket to debit.' }),
      to: t.arg({ type: BucketEnum, required: true, description: 'The bucket to credit.' }),
      amount: t.arg({ type: 'Decimal', required: true, description: 'USDC-T, positive, at most 6 decimals.' }),
    },
    resolve: (_root, { from, to, amount }, ctx) => ctx.services.trading.transfer(principal(ctx), from, to, amount, ctx.correlationId) as never,
  }),
  withdraw: t.field({
    nullable: true,
    ...trade,
    type: WithdrawalRef,
    description: 'Sends USDC-T from the wallet bucket to an address on chain (the caller\'s own by default). At most what was deposited on chain, less what was withdrawn or is pending: faucet credits are not withdrawable (WITHDRAWAL_NOT_ALLOWED). Returns it PENDING. REST: POST /wallet/withdraw.',
    args: {
      amount: t.arg({ type: 'Decimal', required: true, description: 'USDC-T, positive, at most 6 decimals.' }),
      toAddress: t.arg.string({ description: 'The 0x address to send to; absent: the caller\'s own.' }),
    },
    resolve: (_root, { amount, toAddress }, ctx) => ctx.services.trading.withdraw(principal(ctx), amount, toAddress, ctx.correlationId) as never,
  }),
  requestFaucet: t.field({
    nullable: true,
    ...trade,
    type: FaucetRef,
    description: 'Test-network USDC-T into the wallet bucket, capped per user per rolling day (FAUCET_LIMIT). Not withdrawable. REST: POST /wallet/faucet.',
    args: { amount: t.arg({ type: 'Decimal', required: true, description: 'USDC-T, positive, at most 6 decimals.' }) },
    resolve: (_root, { amount }, ctx) => ctx.services.trading.faucet(principal(ctx), amount, ctx.correlationId) as never,
  }),
  cancelAllAfter: t.field({
    nullable: true,
    ...trade,
    type: DeadManRef,
    description: 'Dead man\'s switch: cancel all the caller\'s orders (dead_man_switch) unless called again within timeoutMs. REST: POST /orders/cancel-all-after.',
    args: { timeoutMs: t.arg.int({ required: true, description: '1,000 to 600,000 ms from now; 0 disarms.' }) },
    resolve: (_root, { timeoutMs }, ctx) => ctx.services.trading.cancelAllAfter(principal(ctx), timeoutMs, ctx.correlationId) as never,
  }),
}))
