// The caller's account: wallet buckets and transfers, the faucet, the dead man's switch, and the
// account reads hung on `me` (orders, open orders, trades, positions, balance).
import { resolveArrayConnection } from '@pothos/plugin-relay'
import { USER_BUCKETS } from '../../domain/buckets.js'
import { DomainError } from '../../domain/errors.js'
import { DEFAULT_PAGE, MAX_PAGE, type DepositView, type LiquidationView, type Page, type WithdrawalView } from '../../store/accountReads.js'
import { marketsOfKind, positions, walletBalance, type PositionView, type WalletBalance } from '../../services/portfolio.js'
import { optionPortfolio, optionsBalance, type GreeksView, type OptionPortfolio, type OptionPositionView, type OptionsBalance } from '../../services/optionPortfolio.js'
import { portfolio, portfolioBalances, type BucketTotals, type PortfolioBalances, type PortfolioView } from '../../services/portfolioSnapshot.js'
import type { UserRow } from '../../auth/users.js'
import { builder } from '../builder.js'
import type { GraphQLContext } from '../context.js'
import { memoize } from '../context.js'
import { ACCOUNT_PAGE, connectionCost, COST, LINEAR_MARKETS, OPTION_FAMILIES, OPTIONS_PER_FAMILY, OWN_LIST_PAGE } from '../cost.js'
import { UserRef } from './identity.js'
import { MarginModeEnum, MarketKindEnum, OrderRef, OrderStatusEnum, principal, TradeRef } from './trading.js'

const BucketEnum = builder.enumType('Bucket', {
  values: Object.fromEntries(USER_BUCKETS.map((b) => [b.toUpperCase(), { value: b }])) as Record<'WALLET' | 'SPOT' | 'PERPS' | 'OPTIONS', { value: (typeof USER_BUCKETS)[number] }>,
})
const PositionSideEnum = builder.enumType('PositionSide', { values: { LONG: { value: 'long' }, SHORT: { value: 'short' } } as const })

const PositionRef = builder.objectRef<PositionView>('Position').implement({
  description: 'A linear position (spot holdings are long positions). Quantities are positive; side says which way.',
  fields: (t) => ({
    marketId: t.exposeString('marketId'),
    side: t.field({ type: PositionSideEnum, resolve: (p) => p.side }),
    quantity: t.field({ type: 'Decimal', resolve: (p) => p.quantity }),
    avgPrice: t.field({ type: 'Decimal', resolve: (p) => p.avgPrice }),
    markPrice: t.field({ type: 'Decimal', nullable: true, resolve: (p) => p.markPrice }),
    realizedPnl: t.field({ type: 'Decimal', resolve: (p) => p.realizedPnl }),
    unrealizedPnl: t.field({ type: 'Decimal', resolve: (p) => p.unrealizedPnl }),
    fundingPayment: t.field({ type: 'Decimal', resolve: (p) => p.fundingPayment }),
    marginMode: t.field({ type: MarginModeEnum, resolve: (p) => p.marginMode }),
    initialMargin: t.field({ type: 'Decimal', description: 'What this position alone needs at the mark (a cross portfolio nets its positions).', resolve: (p) => p.initialMargin }),
    maintenanceMargin: t.field({ type: 'Decimal', resolve: (p) => p.maintenanceMargin }),
    isolatedMargin: t.field({ type: 'Decimal', description: 'Isolated positions: the margin set aside for it.', resolve: (p) => p.isolatedMargin }),
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
    marketId: t.exposeString('marketId'),
    quantity: t.field({ type: 'Decimal', resolve: (p) => p.quantity }),
    avgPrice: t.field({ type: 'Decimal', description: 'Average option price of the open lots.', resolve: (p) => p.avgPrice }),
    markPrice: t.field({ type: 'Decimal', nullable: true, description: 'The theoretical mark (the board\'s markPrice); null without the marks it needs.', resolve: (p) => p.markPrice }),
    realizedPnl: t.field({ type: 'Decimal', resolve: (p) => p.realizedPnl }),
    unrealizedPnl: t.field({ type: 'Decimal', description: 'Value at the mark and the spot index less the premium of the open lots; 0 without a mark.', resolve: (p) => p.unrealizedPnl }),
    greeks: t.field({ type: GreeksRef, nullable: true, description: 'The position\'s sensitivities; null without a mark.', resolve: (p) => p.greeks }),
  }),
})

const OptionsBalanceRef = builder.objectRef<OptionsBalance>('OptionsBalance').implement({
  description: 'The options bucket: total = available + locked. Locked is what open orders reserve and short options require.',
  fields: (t) => ({
    available: t.field({ type: 'Decimal', resolve: (b) => b.available }),
    locked: t.field({ type: 'Decimal', resolve: (b) => b.locked }),
    total: t.field({ type: 'Decimal', resolve: (b) => b.total }),
  }),
})

const LiquidationRef = builder.objectRef<LiquidationView>('Liquidation').implement({
  description: 'One liquidation step: a reduce-only IOC close against the book, its fee, and what the insurance fund covered.',
  fields: (t) => ({
    id: t.exposeString('id'),
    marketId: t.exposeString('marketId'),
    orderId: t.exposeString('orderId', { nullable: true }),
    marginMode: t.field({ type: MarginModeEnum, resolve: (l) => l.marginMode as 'cross' | 'isolated' }),
    quantity: t.field({ type: 'Decimal', description: 'Signed position before the step.', resolve: (l) => l.quantity }),
    closedQuantity: t.field({ type: 'Decimal', resolve: (l) => l.closedQuantity }),
    price: t.field({ type: 'Decimal', nullable: true, description: 'Average close price.', resolve: (l) => l.price }),
    realizedPnl: t.field({ type: 'Decimal', resolve: (l) => l.realizedPnl }),
    fee: t.field({ type: 'Decimal', resolve: (l) => l.fee }),
    insurance: t.field({ type: 'Decimal', description: 'Paid by the insurance fund to cover a shortfall.', resolve: (l) => l.insurance }),
    equity: t.field({ type: 'Decimal', nullable: true, resolve: (l) => l.equity }),
    maintenanceMargin: t.field({ type: 'Decimal', nullable: true, resolve: (l) => l.maintenanceMargin }),
    createdAt: t.field({ type: 'DateTime', resolve: (l) => new Date(l.createdAt) }),
  }),
})

export const WalletBalanceRef = builder.objectRef<WalletBalance>('WalletBalance').implement({
  fields: (t) => ({
    onchainDepositTotal: t.field({ type: 'Decimal', resolve: (b) => b.onchainDepositTotal }),
    tradableBalance: t.field({ type: 'Decimal', description: 'The spot bucket.', resolve: (b) => b.tradableBalance }),
    walletBalance: t.field({ type: 'Decimal', resolve: (b) => b.walletBalance }),
    spotBalance: t.field({ type: 'Decimal', resolve: (b) => b.spotBalance }),
    perpsBalance: t.field({ type: 'Decimal', resolve: (b) => b.perpsBalance }),
    optionsBalance: t.field({ type: 'Decimal', resolve: (b) => b.optionsBalance }),
    pendingWithdrawalTotal: t.field({ type: 'Decimal', resolve: (b) => b.pendingWithdrawalTotal }),
  }),
})

const BucketBalancesRef = builder.objectRef<Record<(typeof USER_BUCKETS)[number], string>>('BucketBalances').implement({
  fields: (t) => ({
    wallet: t.field({ type: 'Decimal', resolve: (b) => b.wallet }),
    spot: t.field({ type: 'Decimal', resolve: (b) => b.spot }),
    perps: t.field({ type: 'Decimal', resolve: (b) => b.perps }),
    options: t.field({ type: 'Decimal', resolve: (b) => b.options }),
  }),
})

const TransferRef = builder.objectRef<{ from: string; to: string; amount: string; balances: Record<(typeof USER_BUCKETS)[number], string> }>('TransferResult').implement({
  fields: (t) => ({
    from: t.field({ type: BucketEnum, resolve: (r) => r.from as never }),
    to: t.field({ type: BucketEnum, resolve: (r) => r.to as never }),
    amount: t.field({ type: 'Decimal', resolve: (r) => r.amount }),
    balances: t.field({ type: BucketBalancesRef, resolve: (r) => r.balances }),
  }),
})

const FaucetRef = builder.objectRef<{ amount: string; walletBalance: string; remainingToday: string }>('FaucetResult').implement({
  fields: (t) => ({
    amount: t.field({ type: 'Decimal', resolve: (r) => r.amount }),
    walletBalance: t.field({ type: 'Decimal', resolve: (r) => r.walletBalance }),
    remainingToday: t.field({ type: 'Decimal', description: 'What the faucet still gives today (rolling 24 h).', resolve: (r) => r.remainingToday }),
  }),
})

const DepositStatusEnum = builder.enumType('DepositStatus', {
  values: {
    PENDING: { value: 'pending', description: 'Seen on chain, fewer confirmations than DEPOSIT_CONFIRMATIONS; gone if a reorg drops its block.' },
    CONFIRMED: { value: 'confirmed', description: 'Final; credited as soon as its sender has signed in.' },
    CREDITED: { value: 'credited', description: 'In the wallet bucket.' },
  } as const,
})

const DepositRef = builder.objectRef<DepositView>('Deposit').implement({
  description: 'A USDC-T transfer from the caller\'s address to the vault: one Transfer log (a transaction may hold several).',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'txHash:logIndex' }),
    txHash: t.exposeString('txHash'),
    logIndex: t.exposeInt('logIndex'),
    blockNumber: t.exposeInt('blockNumber'),
    amount: t.field({ type: 'Decimal', resolve: (d) => d.amount }),
    confirmations: t.exposeInt('confirmations', { description: 'Blocks including its own, as of the indexer\'s last look at the chain.' }),
    status: t.field({ type: DepositStatusEnum, resolve: (d) => d.status }),
    createdAt: t.field({ type: 'DateTime', resolve: (d) => new Date(d.createdAt) }),
    creditedAt: t.field({ type: 'DateTime', nullable: true, resolve: (d) => (d.creditedAt ? new Date(d.creditedAt) : null) }),
  }),
})

const WithdrawalStatusEnum = builder.enumType('WithdrawalStatus', {
  values: {
    PENDING: { value: 'pending', description: 'Accepted: the amount left the wallet bucket; not signed yet.' },
    SENT: { value: 'sent', description: 'The transfer is signed and handed to the chain (txHash).' },
    COMPLETED: { value: 'completed', description: 'The transfer has DEPOSIT_CONFIRMATIONS confirmations.' },
    FAILED: { value: 'failed', description: 'Reverted or refused by the chain; the amount is back in the wallet bucket.' },
  } as const,
})

const WithdrawalRef = builder.objectRef<WithdrawalView>('Withdrawal').implement({
  fields: (t) => ({
    id: t.exposeString('id'),
    amount: t.field({ type: 'Decimal', resolve: (w) => w.amount }),
    toAddress: t.exposeString('toAddress'),
    status: t.field({ type: WithdrawalStatusEnum, resolve: (w) => w.status }),
    txHash: t.exposeString('txHash', { nullable: true }),
    error: t.exposeString('error', { nullable: true, description: 'Why it failed.' }),
    createdAt: t.field({ type: 'DateTime', resolve: (w) => new Date(w.createdAt) }),
    updatedAt: t.field({ type: 'DateTime', resolve: (w) => new Date(w.updatedAt) }),
  }),
})

const BucketTotalsRef = builder.objectRef<BucketTotals>('BucketTotals').implement({
  fields: (t) => ({
    wallet: t.field({ type: 'Decimal', resolve: (b) => b.wallet }),
    spot: t.field({ type: 'Decimal', resolve: (b) => b.spot }),
    perps: t.field({ type: 'Decimal', resolve: (b) => b.perps }),
    options: t.field({ type: 'Decimal', resolve: (b) => b.options }),
  }),
})

const PortfolioBalancesRef = builder.objectRef<PortfolioBalances>('PortfolioBalances').implement({
  description: 'Every bucket, the options bucket\'s locked part, and the on-chain totals (GET /portfolio/balances).',
  fields: (t) => ({
    buckets: t.field({ type: BucketTotalsRef, resolve: (b) => b.buckets }),
    total: t.field({ type: 'Decimal', description: 'All buckets together.', resolve: (b) => b.total }),
    options: t.field({ type: OptionsBalanceRef, resolve: (b) => b.options }),
    onchainDepositTotal: t.field({ type: 'Decimal', resolve: (b) => b.onchainDepositTotal }),
    pendingWithdrawalTotal: t.field({ type: 'Decimal', resolve: (b) => b.pendingWithdrawalTotal }),
  }),
})

const PortfolioRef = builder.objectRef<PortfolioView>('Portfolio').implement({
  description: 'Everything the caller holds at the current marks (GET /portfolio/me). equity = all buckets + the unrealized P&L of perpetuals and futures + the signed mark value of spot holdings and options; marginUsed = their initial margin + what the options bucket locks; available = equity − marginUsed, at least 0.',
  fields: (t) => ({
    equity: t.field({ type: 'Decimal', resolve: (p) => p.equity }),
    marginUsed: t.field({ type: 'Decimal', resolve: (p) => p.marginUsed }),
    available: t.field({ type: 'Decimal', resolve: (p) => p.available }),
    unrealizedPnl: t.field({ type: 'Decimal', description: 'Of perpetuals, futures and options.', resolve: (p) => p.unrealizedPnl }),
    openOrderCount: t.exposeInt('openOrderCount'),
    buckets: t.field({ type: BucketTotalsRef, resolve: (p) => p.buckets }),
    positions: t.field({ type: [PositionRef], description: 'Linear positions (spot holdings included).', resolve: (p) => p.positions }),
    optionPositions: t.field({ type: [OptionPositionRef], resolve: (p) => p.optionPositions }),
  }),
})

const DeadManRef = builder.objectRef<{ timeoutMs: number; cancelAt: string | null }>('DeadManSwitch').implement({
  fields: (t) => ({
    timeoutMs: t.exposeInt('timeoutMs'),
    cancelAt: t.field({ type: 'DateTime', nullable: true, description: 'Null when disarmed.', resolve: (r) => (r.cancelAt ? new Date(r.cancelAt) : null) }),
  }),
})

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
  orders: t.connection(
    {
      nullable: true,
      ...read,
      complexity: connectionCost(COST.accountPage, ACCOUNT_PAGE),
      type: OrderRef,
      description: 'Newest first; `kind` keeps one kind of market (linear or options).',
      args: { marketId: t.arg.string(), kind: t.arg({ type: MarketKindEnum }), marginMode: t.arg({ type: MarginModeEnum }), status: t.arg({ type: OrderStatusEnum }) },
      resolve: async (user, args, ctx) => {
        const userId = own(user, ctx)
        const markets = await marketsOfKind(ctx.services.marketData, args.kind)
        const f = { marketId: args.marketId, markets, marginMode: args.marginMode, status: args.status, limit: pageSize(args.first), cursor: args.after }
        return connection(await ctx.services.reads.orders(userId, f), (o) => o.id)
      },
    },
    { name: 'OrderConnection' },
    { name: 'OrderEdge' },
  ),
  trades: t.connection(
    {
      nullable: true,
      ...read,
      complexity: connectionCost(COST.accountPage, ACCOUNT_PAGE),
      type: TradeRef,
      description: 'The caller\'s fills, funding payments and settlements, newest first; `kind` keeps one kind of market.',
      args: { marketId: t.arg.string(), kind: t.arg({ type: MarketKindEnum }) },
      resolve: async (user, args, ctx) => {
        const userId = own(user, ctx)
        const markets = await marketsOfKind(ctx.services.marketData, args.kind)
        return connection(await ctx.services.reads.trades(userId, { marketId: args.marketId, markets, limit: pageSize(args.first), cursor: args.after }), (f) => f.tradeId)
      },
    },
    { name: 'TradeConnection' },
    { name: 'TradeEdge' },
  ),
  positions: t.connection(
    {
      nullable: true,
      ...read,
      // One position per linear market held.
      complexity: connectionCost(COST.positions, OWN_LIST_PAGE, LINEAR_MARKETS),
      type: PositionRef,
      description: 'Open linear positions, valued at the current marks (option positions: optionPositions).',
      resolve: async (user, args, ctx) =>
        resolveArrayConnection({ args, ...OWN_LIST_PAGE }, await positions(ctx.services.marketData, ctx.services.reads, own(user, ctx))),
    },
    { name: 'PositionConnection' },
    { name: 'PositionEdge' },
  ),
  optionPositions: t.connection(
    {
      nullable: true,
      ...read,
      // One position per option market held, each priced with Black-76.
      complexity: connectionCost(COST.optionPositions, OWN_LIST_PAGE, OPTIONS_PER_FAMILY * OPTION_FAMILIES),
      type: OptionPositionRef,
      description: 'Open option positions at the theoretical marks, with their sensitivities; `totals` sums them over every position.',
      resolve: async (user, args, ctx) => {
        const userId = own(user, ctx)
        const p = await memoize(ctx, `optionPortfolio:${userId}`, () => optionPortfolio(ctx.services.marketData, ctx.services.reads, userId))
        return { ...resolveArrayConnection({ args, ...OWN_LIST_PAGE }, p.positions), totals: p.totals }
      },
    },
    {
      name: 'OptionPositionConnection',
      fields: (c) => ({
        totals: c.field({
          type: GreeksRef,
          description: 'The sensitivities of every option position together (not just this page).',
          resolve: (conn) => (conn as unknown as { totals: OptionPortfolio['totals'] }).totals,
        }),
      }),
    },
    { name: 'OptionPositionEdge' },
  ),
  optionsBalance: t.field({
    ...read,
    nullable: true,
    complexity: COST.optionsBalance,
    type: OptionsBalanceRef,
    description: 'The options bucket: available, locked and total.',
    resolve: (user, _a, ctx) => optionsBalance(ctx.services.reads, own(user, ctx)),
  }),
  balance: t.field({ ...read, nullable: true, complexity: COST.balance, type: WalletBalanceRef, resolve: (user, _a, ctx) => walletBalance(ctx.services.reads, own(user, ctx)) }),
  portfolio: t.field({
    ...read,
    nullable: true,
    complexity: COST.positions + COST.optionPositions + COST.balance + COST.optionsBalance,
    type: PortfolioRef,
    description: 'A live snapshot of the whole account at the current marks.',
    resolve: (user, _a, ctx) => portfolio(ctx.services.marketData, ctx.services.reads, own(user, ctx)),
  }),
  portfolioBalances: t.field({
    ...read,
    nullable: true,
    complexity: COST.balance + COST.optionsBalance,
    type: PortfolioBalancesRef,
    description: 'Every bucket with the deposit and pending-withdrawal totals.',
    resolve: (user, _a, ctx) => portfolioBalances(ctx.services.reads, own(user, ctx)),
  }),
  deposits: t.connection(
    {
      nullable: true,
      ...read,
      complexity: connectionCost(COST.accountPage, ACCOUNT_PAGE),
      type: DepositRef,
      description: 'USDC-T sent from the caller\'s address to the vault, newest first, pending ones included.',
      resolve: async (user, args, ctx) => {
        own(user, ctx)
        return connection(await ctx.services.reads.deposits(user.address, { limit: pageSize(args.first), cursor: args.after }), (d) => d.id)
      },
    },
    { name: 'DepositConnection' },
    { name: 'DepositEdge' },
  ),
  withdrawals: t.connection(
    {
      nullable: true,
      ...read,
      complexity: connectionCost(COST.accountPage, ACCOUNT_PAGE),
      type: WithdrawalRef,
      description: 'The caller\'s withdrawals, newest first.',
      resolve: async (user, args, ctx) => connection(await ctx.services.reads.withdrawals(own(user, ctx), { limit: pageSize(args.first), cursor: args.after }), (w) => w.id),
    },
    { name: 'WithdrawalConnection' },
    { name: 'WithdrawalEdge' },
  ),
  liquidations: t.connection(
    {
      nullable: true,
      ...read,
      complexity: connectionCost(COST.accountPage, ACCOUNT_PAGE),
      type: LiquidationRef,
      description: 'Liquidation steps on the caller\'s positions, newest first.',
      resolve: async (user, args, ctx) =>
        connection(await ctx.services.reads.liquidations(own(user, ctx), { limit: pageSize(args.first), cursor: args.after }), (l) => l.id),
    },
    { name: 'LiquidationConnection' },
    { name: 'LiquidationEdge' },
  ),
}))

const trade = { authScopes: { level: 'trade' as const } }

builder.mutationFields((t) => ({
  transfer: t.field({
    nullable: true,
    ...trade,
    type: TransferRef,
    description: 'Moves USDC-T between the caller\'s buckets, instantly.',
    args: { from: t.arg({ type: BucketEnum, required: true }), to: t.arg({ type: BucketEnum, required: true }), amount: t.arg({ type: 'Decimal', required: true }) },
    resolve: (_root, { from, to, amount }, ctx) => ctx.services.trading.transfer(principal(ctx), from, to, amount, ctx.correlationId) as never,
  }),
  withdraw: t.field({
    nullable: true,
    ...trade,
    type: WithdrawalRef,
    description: 'Sends USDC-T from the wallet bucket to an address on chain (the caller\'s own by default). At most what was deposited on chain, less what was withdrawn or is pending: faucet credits are not withdrawable (WITHDRAWAL_NOT_ALLOWED).',
    args: { amount: t.arg({ type: 'Decimal', required: true }), toAddress: t.arg.string() },
    resolve: (_root, { amount, toAddress }, ctx) => ctx.services.trading.withdraw(principal(ctx), amount, toAddress, ctx.correlationId) as never,
  }),
  requestFaucet: t.field({
    nullable: true,
    ...trade,
    type: FaucetRef,
    description: 'Test-network USDC-T into the wallet bucket, capped per user per rolling day.',
    args: { amount: t.arg({ type: 'Decimal', required: true }) },
    resolve: (_root, { amount }, ctx) => ctx.services.trading.faucet(principal(ctx), amount, ctx.correlationId) as never,
  }),
  cancelAllAfter: t.field({
    nullable: true,
    ...trade,
    type: DeadManRef,
    description: 'Dead man\'s switch: cancel all the caller\'s orders unless called again within timeoutMs (0 disarms).',
    args: { timeoutMs: t.arg.int({ required: true }) },
    resolve: (_root, { timeoutMs }, ctx) => ctx.services.trading.cancelAllAfter(principal(ctx), timeoutMs, ctx.correlationId) as never,
  }),
}))
