// A trading engine for unit tests: the catalog listed, fresh marks on every market, funded users, and
// order builders that go through the same validator the API uses.
import type { Bucket } from '../../src/domain/buckets.js'
import { parseLinearOrder, type OrderRequest, type OrderSpec } from '../../src/domain/orders.js'
import type { Account } from '../../src/engine/account.js'
import type { Command, Reply } from '../../src/engine/commands.js'
import { Engine } from '../../src/engine/engine.js'
import { btcLegs, catalogAt, envelope, T0 } from './engineFixtures.js'

export const PERP = 'BTC-PERP'
export const SPOT = 'BTC-USDC-SPOT'

/** How many open orders the account lists, over all markets. */
export const openOrderCount = (a: Account): number => [...a.marketOrders.values()].reduce((n, orders) => n + orders.length, 0)

export class TradingHarness {
  readonly engine = new Engine()
  now = T0
  private seq = 0
  readonly legs = btcLegs(catalogAt())

  constructor() {
    this.ok({ type: 'ListMarkets', markets: catalogAt() })
    this.marks({ BTC: '95000', XAUT: '4000', WTIOIL: '65' })
  }

  /** Sets every spot and future of each family to the given price (the perpetual follows the front future). */
  marks(prices: Record<string, string>): void {
    const marks = catalogAt()
      .filter((m) => (m.type === 'spot' || m.type === 'future') && prices[m.family])
      .map((m) => ({ marketId: m.id, price: prices[m.family]!, source: 'test', sourceTs: this.now }))
    this.ok({ type: 'UpdateMarks', marks })
  }

  tick(ms: number): void {
    this.now += ms
  }

  send(cmd: Command): Reply {
    return this.engine.apply(envelope(cmd, this.now, { replyTo: 'test' }))
  }

  ok<T = any>(cmd: Command): T {
    const r = this.send(cmd)
    if (!r.ok) throw new Error(`${cmd.type} refused: ${r.code} ${r.message}`)
    return r.value as T
  }

  /** A user with `usdc` in perps and spot each (micro-USDC strings from whole USDC). */
  fund(userId: string, usdc = 100_000): void {
    const micro = String(BigInt(usdc) * 1_000_000n)
    this.ok({ type: 'Faucet', userId, amountMicro: String(BigInt(usdc) * 2_000_000n), dailyCapMicro: '1000000000000000' })
    this.ok({ type: 'Transfer', userId, from: 'wallet', to: 'perps', amountMicro: micro })
    this.ok({ type: 'Transfer', userId, from: 'wallet', to: 'spot', amountMicro: micro })
  }

  spec(req: OrderRequest & { marketId?: string }, quoteId: string | null = null): OrderSpec {
    const market = this.engine.state.markets.get((req.marketId as string) ?? PERP)!.spec
    return parseLinearOrder({ marketId: market.id, ...req }, market, `ord-${++this.seq}`, quoteId)
  }

  place(userId: string, req: OrderRequest & { marketId?: string }): Reply {
    return this.send({ type: 'PlaceOrder', userId, order: this.spec(req) })
  }

  placeOk(userId: string, req: OrderRequest & { marketId?: string }): any {
    const r = this.place(userId, req)
    if (!r.ok) throw new Error(`order refused: ${r.code} ${r.message}`)
    return r.value
  }

  balance(userId: string, bucket: Bucket): bigint {
    return this.engine.state.accounts.get(userId)?.balance(bucket) ?? 0n
  }
}
