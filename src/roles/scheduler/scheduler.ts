// The scheduler role: periodic jobs that feed the engine commands (listing, the simulated mark feed)
// or keep the database in bounds (order retention), run by whichever instance holds the scheduler lease.
import type pg from 'pg'
import type { Logger } from 'pino'
import type { CommandBus } from '../../bus/commandBus.js'
import { FeedPause } from '../../bus/feedPause.js'
import type { RedisKeys } from '../../bus/keys.js'
import { Lease } from '../../bus/lease.js'
import type { Redis } from 'ioredis'
import { CATALOG } from '../../config/catalog.js'
import type { Config } from '../../config/env.js'
import type { Clock } from '../../domain/clock.js'
import type { MarketData } from '../../services/marketData.js'
import { pruneUnfilledOrders } from '../../store/orderRetention.js'
import { LeasedLoops, type Job } from './leasedLoops.js'
import { runListing } from './listingJob.js'
import { SimFeed } from './simFeed.js'

const LISTING_INTERVAL_MS = 60_000
const RETENTION_INTERVAL_MS = 60_000

export interface SchedulerOptions {
  redis: Redis
  keys: RedisKeys
  bus: CommandBus
  marketData: MarketData
  config: Config
  log: Logger
  instanceId: string
  clock: Clock
  pool: pg.Pool
}

export function createScheduler(o: SchedulerOptions): LeasedLoops {
  const jobs: Job[] = [
    {
      name: 'listing',
      intervalMs: LISTING_INTERVAL_MS,
      run: async () => {
        const r = await runListing(o.marketData, o.bus, o.config.markStaleMs, o.clock())
        if (r.listed || r.expired) o.log.info(r, 'listing updated')
      },
    },
  ]
  jobs.push({
    name: 'tick',
    intervalMs: o.config.tickIntervalMs,
    // The engine's time-driven work (dead man's switches) happens at the tick's timestamp.
    run: async () => void (await o.bus.send({ type: 'Tick' })),
  })
  if (o.config.markFeed === 'sim') {
    let feed: SimFeed | null = null
    const pause = new FeedPause(o.redis, o.keys)
    jobs.push({
      name: 'markFeed',
      intervalMs: o.config.markFeedIntervalMs,
      run: async () => {
        if (await pause.isPaused()) return
        const now = o.clock()
        const markets = (await o.marketData.listed()).filter((m) => m.status !== 'settled').map((m) => m.spec)
        if (!feed) {
          // Continue from the latest marks, so a restart or a failover does not jump the price.
          const marks = await o.marketData.marks()
          feed = new SimFeed(CATALOG, o.config.markFeedSeed, (f) => marks.get(f.spotId)?.price)
        }
        const marks = feed.tick(now, markets)
        if (marks.length > 0) await o.bus.send({ type: 'UpdateMarks', marks }, { ts: now })
      },
    })
  }
  const retentionMs = o.config.pruneUnfilledOrdersAfterMs
  if (retentionMs > 0) {
    jobs.push({
      name: 'orderRetention',
      intervalMs: RETENTION_INTERVAL_MS,
      run: async () => {
        const r = await pruneUnfilledOrders(o.pool, { retentionMs, now: o.clock() })
        if (r.deleted > 0) o.log.info({ at: 'job#orderRetention', ...r, retentionMs }, 'pruned orders that ended without a fill')
      },
    })
  }
  return new LeasedLoops(new Lease(o.redis, o.keys.schedulerLease, o.instanceId, o.config.engineLeaseMs), jobs, o.log)
}
