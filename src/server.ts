// Composes the roles of one process. `npm start` runs them all (api, engine, scheduler, ...); ROLES
// splits them across processes. Roles talk only through Redis and PostgreSQL, never in-process, so a
// one-process deployment exercises the same paths as a split one.
import type { AddressInfo } from 'node:net'
import { hostname } from 'node:os'
import type { FastifyInstance } from 'fastify'
import type { Redis } from 'ioredis'
import type pg from 'pg'
import pino, { type Logger } from 'pino'
import type { Registry } from 'prom-client'
import { Identity } from './auth/identity.js'
import { CommandBus } from './bus/commandBus.js'
import { FeedPause } from './bus/feedPause.js'
import { redisKeys, type RedisKeys } from './bus/keys.js'
import { connectRedis } from './bus/redis.js'
import type { Config } from './config/env.js'
import { systemClock, type Clock } from './domain/clock.js'
import { newId } from './domain/ids.js'
import { schema } from './graphql/schema.js'
import { buildHttp } from './http/app.js'
import { checkPortFree, portError } from './http/port.js'
import { serviceUrls } from './http/serviceUrls.js'
import { SimMaker } from './roles/maker/simMaker.js'
import { ApiMetrics } from './metrics/apiMetrics.js'
import { METRICS_SETTINGS, metricsRouteDoc, registerMetricsRoute, startMetricsServer } from './metrics/exposition.js'
import { createRegistry, registersFor } from './metrics/registry.js'
import { compileRoutes } from './rest/executor.js'
import { restRoutes } from './rest/routes.js'
import { engineFaultHooks } from './roles/engine/faults.js'
import { ENGINE_APPLICATION_NAME, EngineRunner } from './roles/engine/runner.js'
import { startIndexer } from './roles/indexer/indexer.js'
import type { LeasedLoops } from './roles/scheduler/leasedLoops.js'
import { createScheduler } from './roles/scheduler/scheduler.js'
import { CommandOutcomes } from './services/commandOutcomes.js'
import { MarketData } from './services/marketData.js'
import { Trading } from './services/trading.js'
import { AccountReads } from './store/accountReads.js'
import { Streams } from './streams/streams.js'
import type { Services } from './services/services.js'
import { applyMigrations, ensureDatabase } from './store/migrate.js'
import { createPool, PostgresUnavailableError, unavailableMessage } from './store/pg.js'
import { createPrisma, type PrismaClient } from './store/prisma.js'
import { MarketMakerProtection } from './services/mmp.js'

export interface Exchange {
  readonly config: Config
  readonly log: Logger
  readonly instanceId: string
  readonly keys: RedisKeys
  readonly redis: Redis
  readonly pool: pg.Pool
  readonly services: Services
  /** This process's metrics: every family of the roles it runs (src/metrics). */
  readonly metrics: Registry
  /** The internal metrics listener's page (METRICS_PORT), when configured. */
  readonly metricsUrl: string | null
  /** Base URL of the HTTP server, when this process serves the API. */
  readonly url: string | null
  readonly http: FastifyInstance | null
  readonly engine: EngineRunner | null
  readonly scheduler: LeasedLoops | null
  /** The liquidity simulator (role maker with SIM_MAKER on); quoting only while it holds the maker lease. */
  readonly maker: SimMaker | null
  /** The chain loops (role indexer with CHAIN_RPC_URL set): jobs `deposits` and `withdrawals`. */
  readonly indexer: LeasedLoops | null
  stop(): Promise<void>
}

export interface StartOptions {
  log?: Logger
  instanceId?: string
  /** Passed to the engine runner (tests pause or fail a batch before its commit, inside it, or after it). */
  beforeCommit?: (streamId: string) => Promise<void>
  inCommit?: (streamId: string) => Promise<void>
  afterCommit?: (streamId: string) => Promise<void>
  onFencedOut?: (streamId: string) => void
  /** Wall-clock time for every role but the engine (whose time is its commands'); tests choose the instant. */
  clock?: Clock
  /** Pins the order-rate limiter's clock (tests); by default it uses Redis' clock. */
  rateLimitClock?: Clock
  /** Benchmarks and tests: routes of their own on the HTTP app, registered before it listens (bench/httpServer.ts,
   * test/support/exchange.ts); the application registers none of them. */
  extraRoutes?: (app: FastifyInstance, services: Services) => void
}

async function prepareDatabase(url: string, log: Logger): Promise<void> {
  try {
    if (await ensureDatabase(url)) log.info('database created')
  } catch (err) {
    if ((err as { code?: string }).code === 'ECONNREFUSED' || (err as { code?: string }).code === 'ENOTFOUND') {
      throw new PostgresUnavailableError(unavailableMessage(url, err))
    }
    throw err
  }
  const applied = await applyMigrations(url, { log: (m) => log.info(m) })
  if (applied.length > 0) log.info({ applied }, 'migrations applied')
}

export async function startExchange(config: Config, opts: StartOptions = {}): Promise<Exchange> {
  const instanceId = opts.instanceId ?? `${hostname()}:${process.pid}:${newId().slice(-6)}`
  const log = opts.log ?? pino({ level: config.logLevel, base: { instance: instanceId } })
  const roles = config.roles
  const clock = opts.clock ?? systemClock
  const closers: Array<() => Promise<unknown>> = []
  const stop = async () => {
    for (const close of closers.reverse()) await close().catch((err) => log.warn({ err }, 'error while stopping'))
    closers.length = 0
  }
  try {
    if (roles.has('api')) await checkPortFree(config.host, config.port)
    const listen = config.metricsListen
    if (listen) await checkPortFree(listen.host, listen.port, METRICS_SETTINGS)
    const metrics = createRegistry(roles)
    await prepareDatabase(config.databaseUrl, log)
    const pool = await createPool(config.databaseUrl, {
      applicationName: 'exchange',
      onConnectionError: (err) => log.warn({ err }, 'PostgreSQL connection lost'),
    })
    closers.push(() => pool.end())
    const prisma: PrismaClient = createPrisma(pool)
    closers.push(() => prisma.$disconnect())
    const redis = await connectRedis(config.redisUrl, 'exchange')
    closers.push(() => redis.quit())
    const keys = redisKeys(config.redisPrefix)

    let engine: EngineRunner | null = null
    if (roles.has('engine')) {
      const blocking = await connectRedis(config.redisUrl, 'engine-stream')
      closers.push(async () => blocking.disconnect())
      // The engine's sessions of its own: a leader frozen inside a batch holds the offset row's lock, and
      // PostgreSQL ends that transaction well before the lease lapses, so the standby's claim never waits
      // on it for long (see docs/decisions.md "Architecture").
      const enginePool = await createPool(config.databaseUrl, {
        max: 2,
        applicationName: ENGINE_APPLICATION_NAME,
        idleInTransactionTimeoutMs: Math.max(100, Math.floor(config.engineLeaseMs / 2)),
        lockTimeoutMs: Math.max(100, Math.floor(config.engineLeaseMs / 4)),
        onConnectionError: (err) => log.warn({ err, role: 'engine' }, 'PostgreSQL connection lost'),
      })
      closers.push(() => enginePool.end())
      const faults = config.engineFault ? engineFaultHooks(config.engineFault, redis, keys) : {}
      engine = new EngineRunner({
        redis,
        blocking,
        pool: enginePool,
        keys,
        log: log.child({ role: 'engine' }),
        instanceId,
        batchMax: config.engineBatchMax,
        snapshotEvery: config.engineSnapshotEvery,
        snapshotMs: config.engineSnapshotMs,
        leaseMs: config.engineLeaseMs,
        registry: metrics,
        beforeCommit: opts.beforeCommit,
        inCommit: opts.inCommit ?? faults.inCommit,
        afterCommit: opts.afterCommit ?? faults.afterCommit,
        onFencedOut: opts.onFencedOut,
      })
      engine.start()
      const runner = engine
      closers.push(() => runner.stop())
    }

    const sub = await connectRedis(config.redisUrl, 'replies')
    closers.push(async () => sub.disconnect())
    // Built everywhere (identity and streams exist in every process), seen only where the api role runs.
    const apiMetrics = new ApiMetrics(registersFor(roles.has('api') ? metrics : null))
    const reads = new AccountReads(prisma)
    const outcomes = new CommandOutcomes(pool, reads)
    const bus = await CommandBus.start(redis, sub, keys, instanceId, config.engineReplyTimeoutMs, outcomes.resolve, clock)
    closers.push(() => bus.close())
    // An engine leading in this process answers this process's submits without a trip through Redis.
    engine?.replyLocally({ node: bus.nodeId, deliver: (replies) => bus.deliver(replies) })
    const marketData = new MarketData(prisma, redis, keys, clock)
    const identity = new Identity({ config, log, prisma, redis, keys, clock, rateLimitClock: opts.rateLimitClock, refusals: apiMetrics.refusals })
    const trading = new Trading({ config, marketData, commands: bus }, reads)
    // Connects to the event bus only when a stream is first opened (api role).
    const streams = new Streams({ config, log, redis, keys, marketData, reads, identity, clock, metrics: apiMetrics.streams })
    closers.push(() => streams.close())
    const mmp = new MarketMakerProtection({ prisma, commands: bus, clock })
    const feedPause = new FeedPause(redis, keys)
    const services: Services = { config, log, clock, marketData, commands: bus, feedPause, identity, trading, mmp, reads, streams, metrics: apiMetrics }

    let scheduler: LeasedLoops | null = null
    if (roles.has('scheduler')) {
      scheduler = createScheduler({ redis, keys, bus, marketData, config, log: log.child({ role: 'scheduler' }), instanceId, clock, pool })
      await scheduler.start()
      const s = scheduler
      closers.push(() => s.stop())
      // List the catalog before serving, so a fresh install answers with markets at once.
      await scheduler.runNow('listing')
    }

    let indexer: LeasedLoops | null = null
    if (roles.has('indexer')) {
      indexer = await startIndexer({ config, redis, keys, pool, commands: bus, clock, log: log.child({ role: 'indexer' }), instanceId, registry: metrics })
      const i = indexer
      if (i) closers.push(() => i.stop())
    }

    let http: FastifyInstance | null = null
    let url: string | null = null
    let ownPort: number | null = null
    if (roles.has('api')) {
      const authSub = await connectRedis(config.redisUrl, 'auth-events')
      closers.push(async () => authSub.disconnect())
      await identity.events.listen(authSub)
      closers.push(() => identity.keyAuth.idle())
      http = buildHttp({
        services,
        schema,
        routes: compileRoutes(schema, restRoutes),
        // Registered below, with the registry this process holds.
        extraDocs: config.metricsToken ? [metricsRouteDoc] : [],
        readiness: async () => ({
          postgres: await pool.query('SELECT 1').then(() => true, () => false),
          redis: await redis.ping().then((r) => r === 'PONG', () => false),
          engine: await redis.exists(keys.engineLease).then((n) => n === 1, () => false),
          catalog: (await marketData.listed().catch(() => [])).length > 0,
        }),
      })
      registerMetricsRoute(http, metrics, config.metricsToken)
      opts.extraRoutes?.(http, services)
      try {
        url = await http.listen({ host: config.host, port: config.port })
      } catch (err) {
        // Taken since the check at start (another process won the race): the same one line.
        await http.close().catch(() => {})
        throw portError(err, config.host, config.port) ?? err
      }
      // Listening, the server reports what goes wrong accepting connections (EMFILE when descriptors run
      // out) as an 'error' that Fastify no longer listens for: unhandled, it ended the process.
      http.server.on('error', (err) => log.error({ err, at: 'server#http' }, 'HTTP server error'))
      ownPort = (http.server.address() as AddressInfo).port
      identity.serveOnPort(ownPort)
      const server = http
      closers.push(async () => {
        server.server.closeAllConnections()
        await server.close()
      })
      // The API, GraphiQL, the REST reference and the health probe, where a person would open them.
      log.info(serviceUrls(url), 'serving HTTP')
    }

    let metricsUrl: string | null = null
    if (listen) {
      const server = await startMetricsServer(metrics, listen.host, listen.port)
      closers.push(() => server.close())
      metricsUrl = server.url
      log.info({ url: metricsUrl }, 'serving metrics')
    }

    // After the server listens: the simulator trades through the public HTTP API like any user.
    let maker: SimMaker | null = null
    if (roles.has('maker') && config.simMaker) {
      const m = await SimMaker.start({ config, commands: bus, identity, redis, keys, log: log.child({ role: 'maker' }), instanceId, clock, ownPort })
      maker = m
      closers.push(() => m.stop())
    }

    return { config, log, instanceId, keys, redis, pool, services, metrics, metricsUrl, url, http, engine, scheduler, maker, indexer, stop }
  } catch (err) {
    await stop()
    throw err
  }
}
