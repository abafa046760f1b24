// Public market reads shared by every GraphQL resolver (and so by REST): listed markets from
// PostgreSQL, books and marks from the engine's Redis mirrors. Markets change rarely and are cached
// briefly; books and marks are read fresh.
import type { Redis } from 'ioredis'
import type { RedisKeys } from '../bus/keys.js'
import { readBook, readMarks, type BookSnapshot, type MarkView } from '../bus/mirrors.js'
import { CATALOG } from '../config/catalog.js'
import { systemClock, type Clock } from '../domain/clock.js'
import { DomainError } from '../domain/errors.js'
import { MARKET_TYPES } from '../domain/market.js'
import type { PrismaClient } from '../store/prisma.js'
import { listedMarket, type ListedMarket } from '../store/marketRows.js'

const CACHE_MS = 1_000

const familyOrder = (f: string) => CATALOG.findIndex((c) => c.family === f)

/** Catalog order: family, then spot, perpetual, futures, options; by expiry, strike, call before put. */
export function compareMarkets(a: ListedMarket, b: ListedMarket): number {
  const x = a.spec
  const y = b.spec
  return (
    familyOrder(x.family) - familyOrder(y.family) ||
    MARKET_TYPES.indexOf(x.type) - MARKET_TYPES.indexOf(y.type) ||
    (x.expiryMs ?? 0) - (y.expiryMs ?? 0) ||
    Number(x.strike ?? 0) - Number(y.strike ?? 0) ||
    (x.optionType === y.optionType ? 0 : x.optionType === 'call' ? -1 : 1) ||
    (x.id < y.id ? -1 : x.id > y.id ? 1 : 0)
  )
}

interface MarketCache {
  at: number
  markets: ListedMarket[]
  byId: Map<string, ListedMarket>
}

export class MarketData {
  private cache: MarketCache | null = null
  private loading: Promise<MarketCache> | null = null
  /** Bumped by invalidate(): a read that started before it does not become the cache. */
  private generation = 0

  constructor(
    readonly prisma: PrismaClient,
    readonly redis: Redis,
    readonly keys: RedisKeys,
    readonly clock: Clock = systemClock,
  ) {}

  /** Every market ever listed (settled ones included), in catalog order. */
  async listed(opts: { fresh?: boolean } = {}): Promise<ListedMarket[]> {
    return (await this.load(opts.fresh)).markets
  }

  async market(id: string): Promise<ListedMarket | null> {
    return (await this.load()).byId.get(id) ?? null
  }

  async marketOrThrow(id: string): Promise<ListedMarket> {
    const m = await this.market(id)
    if (!m) throw new DomainError('MARKET_NOT_FOUND', `Unknown market ${id}`)
    return m
  }

  async marks(): Promise<Map<string, MarkView>> {
    return readMarks(this.redis, this.keys)
  }

  /** Full-depth snapshot of a listed market's book (empty before the engine first mirrors it). */
  async orderbook(marketId: string): Promise<BookSnapshot> {
    const market = await this.marketOrThrow(marketId)
    return (
      (await readBook(this.redis, this.keys, marketId)) ?? {
        marketId,
        sequence: market.bookSeq,
        bids: [],
        asks: [],
        timestamp: new Date(this.clock()).toISOString(),
      }
    )
  }

  invalidate(): void {
    this.cache = null
    this.loading = null
    this.generation++
  }

  private load(fresh = false): Promise<MarketCache> {
    const now = this.clock()
    if (!fresh && this.cache && now - this.cache.at < CACHE_MS) return Promise.resolve(this.cache)
    if (fresh) return this.read(now)
    // One read at a time when the cache runs out: a thousand subscriptions opening together each read
    // the whole table otherwise, and every request waited behind them for the pool.
    if (!this.loading) {
      const loading = this.read(now).finally(() => {
        if (this.loading === loading) this.loading = null
      })
      this.loading = loading
    }
    return this.loading
  }

  private async read(now: number): Promise<MarketCache> {
    const generation = this.generation
    const rows = await this.prisma.market.findMany()
    const markets = rows.map(listedMarket).sort(compareMarkets)
    const cache = { at: now, markets, byId: new Map(markets.map((m) => [m.spec.id, m])) }
    if (generation === this.generation) this.cache = cache
    return cache
  }
}
