// The one typed configuration object, parsed from the environment with defaults. Invalid values stop
// the process at start with a message naming the variable, never later at first use.
import { z } from 'zod'

export const ROLE_NAMES = ['api', 'engine', 'scheduler', 'maker', 'indexer'] as const
export type Role = (typeof ROLE_NAMES)[number]

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes')
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max)
const csv = z.string().transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean))

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().default('0.0.0.0'),
  PORT: int(0, 65535).default(3000),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).default('postgresql://postgres@127.0.0.1:5432/exchange'),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
  /** Every Redis key and channel starts with it, so several deployments (or test runs) share one Redis. */
  REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9:_-]*$/).default('exch:'),
  ROLES: csv.pipe(z.array(z.enum(ROLE_NAMES)).min(1)).default([...ROLE_NAMES]),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ADMIN_TOKEN: z.string().min(16, 'ADMIN_TOKEN must be at least 16 characters').optional(),
  JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters').optional(),
  /** Default mark staleness threshold for markets whose catalog entry does not set one. */
  MARK_STALE_MS: int(100, 3_600_000).default(5_000),
  MARK_FEED: z.enum(['sim', 'push']).default('sim'),
  MARK_FEED_INTERVAL_MS: int(50, 60_000).default(1_000),
  MARK_FEED_SEED: int(0, 2 ** 31 - 1).default(42),
  /** Engine batching: the most commands applied per PostgreSQL transaction. */
  ENGINE_BATCH_MAX: int(1, 10_000).default(500),
  ENGINE_SNAPSHOT_EVERY: int(1, 10_000_000).default(10_000),
  ENGINE_SNAPSHOT_MS: int(100, 3_600_000).default(30_000),
  ENGINE_LEASE_MS: int(200, 600_000).default(5_000),
  /** How long an API node waits for the engine's reply before answering 503 UPSTREAM_DEGRADED. */
  ENGINE_REPLY_TIMEOUT_MS: int(50, 600_000).default(10_000),
  BODY_LIMIT_BYTES: int(1_024, 16 * 1024 * 1024).default(64 * 1024),
  GRAPHQL_MAX_DEPTH: int(2, 100).default(12),
  GRAPHQL_MAX_COMPLEXITY: int(10, 1_000_000).default(5_000),
  SIM_MAKER: bool.optional(),
})

export type Config = Readonly<{
  env: 'development' | 'production' | 'test'
  host: string
  port: number
  databaseUrl: string
  redisUrl: string
  redisPrefix: string
  roles: ReadonlySet<Role>
  logLevel: string
  adminToken: string | undefined
  jwtSecret: string | undefined
  markStaleMs: number
  markFeed: 'sim' | 'push'
  markFeedIntervalMs: number
  markFeedSeed: number
  engineBatchMax: number
  engineSnapshotEvery: number
  engineSnapshotMs: number
  engineLeaseMs: number
  engineReplyTimeoutMs: number
  bodyLimitBytes: number
  graphqlMaxDepth: number
  graphqlMaxComplexity: number
  simMaker: boolean
}>

export class ConfigError extends Error {}

/** Parses `env` (process.env by default); empty strings count as unset. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''))
  const parsed = schema.safeParse(cleaned)
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`)
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`)
  }
  const e = parsed.data
  return Object.freeze({
    env: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    roles: new Set(e.ROLES),
    logLevel: e.LOG_LEVEL,
    adminToken: e.ADMIN_TOKEN,
    jwtSecret: e.JWT_SECRET,
    markStaleMs: e.MARK_STALE_MS,
    markFeed: e.MARK_FEED,
    markFeedIntervalMs: e.MARK_FEED_INTERVAL_MS,
    markFeedSeed: e.MARK_FEED_SEED,
    engineBatchMax: e.ENGINE_BATCH_MAX,
    engineSnapshotEvery: e.ENGINE_SNAPSHOT_EVERY,
    engineSnapshotMs: e.ENGINE_SNAPSHOT_MS,
    engineLeaseMs: e.ENGINE_LEASE_MS,
    engineReplyTimeoutMs: e.ENGINE_REPLY_TIMEOUT_MS,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    graphqlMaxDepth: e.GRAPHQL_MAX_DEPTH,
    graphqlMaxComplexity: e.GRAPHQL_MAX_COMPLEXITY,
    simMaker: e.SIM_MAKER ?? e.NODE_ENV !== 'production',
  })
}
