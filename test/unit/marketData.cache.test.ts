// The listed-markets cache of MarketData: when it runs out, concurrent callers share one read of the
// table (a thousand subscriptions opening at once each read the whole table before, and held every
// request behind them for the pool); invalidate() starts a new read, and a read begun before it does
// not become the cache.
import { describe, expect, it } from 'vitest'
import { redisKeys } from '../../src/bus/keys.js'
import { MarketData } from '../../src/services/marketData.js'
import type { PrismaClient } from '../../src/store/prisma.js'
import { deferred, type Deferred } from '../support/deferred.js'

/** A BTC-PERP row in `status`: reads the test tells apart. */
const perp = (status: string) => ({
  id: 'BTC-PERP', family: 'BTC', assetClass: 'crypto', type: 'perpetual', base: 'BTC', quote: 'USDC', status,
  tickSize: '0.1', stepSize: '0.001', minQuantity: '0.001', priceBandBps: 500, takerFeeBps: '5', makerFeeBps: '2',
  fundingIntervalMs: 3_600_000, fundingMaxRateBps: '10', expiry: null, strike: null, optionType: null, staleMarkMs: 5_000,
  initialMarginPct: '10', maintenanceMarginPct: '5', listedAt: new Date(0), settledAt: null, settlementPrice: null,
  bookSeq: '0', engineState: null,
})

function tableOfReads() {
  const reads: Array<Deferred<unknown[]>> = []
  const prisma = {
    market: {
      findMany: () => {
        const d = deferred<unknown[]>()
        reads.push(d)
        return d.promise
      },
    },
  } as unknown as PrismaClient
  const now = 1_000_000
  return { reads, md: new MarketData(prisma, null as never, redisKeys('t:'), () => now) }
}

describe('MarketData listed-markets cache', () => {
  it('reads the table once for concurrent callers, then serves them from the cache', async () => {
    const { reads, md } = tableOfReads()
    const callers = Array.from({ length: 1_000 }, () => md.market('BTC-PERP'))
    expect(reads).toHaveLength(1)
    reads[0]!.resolve([])
    expect(await Promise.all(callers)).toEqual(Array(1_000).fill(null))
    await md.listed()
    expect(reads).toHaveLength(1)
  })

  it('reads again after invalidate(), and a read from before it does not become the cache', async () => {
    const { reads, md } = tableOfReads()
    const before = md.listed()
    md.invalidate()
    const after = md.listed()
    expect(reads).toHaveLength(2)
    // The read from after the invalidation lands first; the older one, landing later, is not kept.
    reads[1]!.resolve([perp('halted')])
    reads[0]!.resolve([perp('active')])
    await Promise.all([before, after])
    expect((await md.market('BTC-PERP'))?.status).toBe('halted')
    expect(reads).toHaveLength(2)
    // A fresh read is always its own.
    const fresh = md.listed({ fresh: true })
    expect(reads).toHaveLength(3)
    reads[2]!.resolve([])
    await fresh
  })
})
