// The one typed configuration object, parsed from the environment with defaults. Invalid values stop
// the process at start with a message naming the variable, never later at first use.
import { isIP, isIPv4 } from 'node:net'
import { getAddress, isAddress, keccak256, stringToHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { z } from 'zod'

export const ROLE_NAMES = ['api', 'engine', 'scheduler', 'maker', 'indexer'] as const
export type Role = (typeof ROLE_NAMES)[number]

/** Test-only fault points of the engine process (ENGINE_FAULT; src/roles/engine/faults.ts). */
export const ENGINE_FAULTS = ['kill-after-commit', 'stop-in-commit'] as const
export type EngineFault = (typeof ENGINE_FAULTS)[number]

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes')
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max)
const csv = z.string().transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean))

/**
 * Development and test only: several nodes of one deployment must sign and verify the same JWTs, so the
 * fallback is a fixed value, named so nobody mistakes it for a real secret. Production requires JWT_SECRET.
 */
export const DEV_JWT_SECRET = 'insecure-development-only-jwt-secret-set-JWT_SECRET'

/**
 * Development and test only: the liquidity simulator's house and taker wallets when MAKER_PRIVATE_KEY /
 * TAKER_PRIVATE_KEY are unset. Derived from public labels, so anyone can sign in as these accounts:
 * never fund them with anything real. Production requires explicit keys when the simulator runs.
 */
export const DEV_MAKER_PRIVATE_KEY = keccak256(stringToHex('exchange-api DEVELOPMENT ONLY sim-maker key: public, never fund'))
export const DEV_TAKER_PRIVATE_KEY = keccak256(stringToHex('exchange-api DEVELOPMENT ONLY sim-taker key: public, never fund'))

/** Order of secp256k1's group: a private key is an integer in [1, n-1]. */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/
const privateKey = z
  .string()
  .regex(PRIVATE_KEY, 'must be 0x followed by 32 bytes of hex')
  // zod runs this after a failed regex too, so it checks the shape again before BigInt() can throw.
  .refine((k) => !PRIVATE_KEY.test(k) || (BigInt(k) > 0n && BigInt(k) < SECP256K1_N), 'must be a valid secp256k1 private key (non-zero, below the curve order)')
  .transform((k) => k.toLowerCase() as `0x${string}`)

/** An EIP-55 address (any case accepted), kept checksummed. */
const address = z.string().refine((a) => isAddress(a, { strict: false }), 'must be an address (0x and 40 hex digits)').transform((a) => getAddress(a))

const LABELS = String.raw`[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*`
const HOSTNAME = new RegExp(`^${LABELS}$`, 'i')
const HOST_PORT = new RegExp(`^${LABELS}(?::\\d{1,5})?$`, 'i')

/** `https://app.example.com` style origins: scheme, host and optional port, nothing else. */
const origin = z.string().refine((o) => {
  try {
    const u = new URL(o)
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.origin === o.replace(/\/$/, '').toLowerCase()
  } catch {
    return false
  }
}, 'must be an origin such as https://partner.example.com').transform((o) => new URL(o).origin)

/** An IP address or a CIDR block (`10.0.0.0/8`, `fd00::/8`), as Fastify's trustProxy takes them. */
const ipOrCidr = z.string().refine((v) => {
  const [ip, bits, extra] = v.split('/')
  if (extra !== undefined || !ip || !isIP(ip)) return false
  if (bits === undefined) return true
  const max = isIPv4(ip) ? 32 : 128
  return /^\d{1,3}$/.test(bits) && Number(bits) <= max
}, 'must be an IP address or CIDR block')

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
  /** Enables GET /metrics on the API port for `Authorization: Bearer <METRICS_TOKEN>`. */
  METRICS_TOKEN: z.string().min(16, 'METRICS_TOKEN must be at least 16 characters').optional(),
  /** A listener of its own serving GET /metrics without a credential (an internal port); unset: none. */
  METRICS_PORT: int(0, 65535).optional(),
  METRICS_HOST: z.string().default('127.0.0.1'),
  JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters').optional(),
  /** Lifetime of a sign-in session (its JWT, cookie and Redis record). */
  SESSION_TTL_MS: int(60_000, 90 * 86_400_000).default(7 * 86_400_000),
  /** How long a SIWE nonce from GET /auth/nonce stays usable. */
  NONCE_TTL_MS: int(10_000, 3_600_000).default(300_000),
  /** host[:port] values a SIWE message's domain may name; default localhost, 127.0.0.1 and a specific HOST on the bound port. */
  SIWE_DOMAINS: csv.pipe(z.array(z.string().regex(HOST_PORT, 'must be host or host:port')).min(1)).optional(),
  /** CORS: this domain and its subdomains may call the API from a browser, with credentials. */
  SERVICE_DOMAIN: z.string().regex(HOSTNAME, 'must be a host name such as example.com').default('localhost'),
  /** CORS: further exact origins (partners), comma-separated. */
  CORS_ORIGINS: csv.pipe(z.array(origin)).default([]),
  /** Peers whose X-Forwarded-For is believed (IPs or CIDRs, comma-separated); none by default. */
  TRUSTED_PROXIES: csv.pipe(z.array(ipOrCidr)).default([]),
  /** Order-path requests per minute per user at rate tier 1. */
  ORDER_RATE_PER_MIN: int(1, 1_000_000).default(120),
  /** The tier an operator grants a market maker when POST /admin/users/:id/rate-tier names none. */
  MM_RATE_MULTIPLE: int(1, 100).default(10),
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
  /** How long an API node waits for the engine's reply before looking the command's outcome up. */
  ENGINE_REPLY_TIMEOUT_MS: int(50, 600_000).default(10_000),
  /** Tests only: a fault point the engine process fires on itself once armed (roles/engine/faults.ts). */
  ENGINE_FAULT: z.enum(ENGINE_FAULTS).optional(),
  /** Tests only: the process's clock runs this far from the system's, so a test's exchange in its own
   * process reads the same "now" as the test (test/support/clock.ts). */
  CLOCK_OFFSET_MS: z.coerce.number().int().optional(),
  BODY_LIMIT_BYTES: int(1_024, 16 * 1024 * 1024).default(64 * 1024),
  GRAPHQL_MAX_DEPTH: int(2, 100).default(12),
  GRAPHQL_MAX_COMPLEXITY: int(10, 1_000_000).default(5_000),
  SIM_MAKER: bool.optional(),
  /** The simulator's house (quoting) and taker wallets; default: the public development keys above. */
  MAKER_PRIVATE_KEY: privateKey.optional(),
  TAKER_PRIVATE_KEY: privateKey.optional(),
  /** How often the simulator refreshes quotes (within its rate budget) and may send a taker order. */
  MAKER_INTERVAL_MS: int(100, 60_000).default(1_000),
  /** The API the simulator trades through; default: this process's own HTTP server (role api). */
  MAKER_API_URL: origin.optional(),
  FAUCET_ENABLED: bool.default(true),
  /** USDC-T a user may take from the faucet per rolling day. */
  FAUCET_DAILY_CAP: z.string().regex(/^[1-9]\d{0,11}$/, 'FAUCET_DAILY_CAP must be a whole number of USDC').default('100000'),
  /** How often the scheduler sends the engine its heartbeat (dead man's switches fire on it). */
  TICK_INTERVAL_MS: int(50, 60_000).default(1_000),
  /** SSE streams write a `: keep-alive` comment this often. */
  SSE_KEEPALIVE_MS: int(50, 600_000).default(15_000),
  /** A stream WebSocket that sends no text `ping` for this long is closed (SPEC.md: 90 s). */
  WS_PING_TIMEOUT_MS: int(50, 3_600_000).default(90_000),
  /** Unsent bytes one stream connection may hold; past it a book stream conflates, any other is dropped. */
  STREAM_MAX_BUFFER_BYTES: int(1, 256 * 1024 * 1024).default(1024 * 1024),
  /** Open WebSocket and SSE connections per client IP on one API node. */
  STREAM_MAX_CONNECTIONS_PER_IP: int(1, 1_000_000).default(200),
  /** Subscriptions one WebSocket (/ws/*, and graphql-ws at /graphql) may hold. */
  WS_MAX_SUBSCRIPTIONS: int(1, 10_000).default(100),
  /** The options board and option ticks are recomputed at most this often per underlying. */
  OPTIONS_FEED_INTERVAL_MS: int(10, 60_000).default(250),
  /** Orders that ended without any fill (and carry no clientOrderId) are deleted this long after; 0 keeps them forever. */
  PRUNE_UNFILLED_ORDERS_AFTER_MS: int(0, 10 * 365 * 86_400_000)
    .refine((v) => v === 0 || v >= 60_000, 'must be 0 (keep forever) or at least 60000 ms')
    .default(86_400_000),
  /** The chain's JSON-RPC URL; unset: the indexer role runs nothing (no deposits, no withdrawal payouts). */
  CHAIN_RPC_URL: z.url({ protocol: /^(https?|wss?)$/ }).optional(),
  /** The USDC-T ERC-20 (6 decimals) and the vault that receives deposits and pays withdrawals. */
  USDC_TOKEN_ADDRESS: address.optional(),
  VAULT_ADDRESS: address.optional(),
  VAULT_PRIVATE_KEY: privateKey.optional(),
  /** Blocks a deposit or a withdrawal needs (its own included) before it counts as final. */
  DEPOSIT_CONFIRMATIONS: int(1, 10_000).default(12),
  /** How often the indexer looks at the chain (deposits, and the withdrawals it pays). */
  CHAIN_POLL_MS: int(50, 600_000).default(2_000),
  /** The first block the indexer reads when it has no cursor yet (the vault's deployment, say). */
  CHAIN_START_BLOCK: int(0, Number.MAX_SAFE_INTEGER).default(0),
}).refine((e) => e.CHAIN_RPC_URL === undefined || (e.USDC_TOKEN_ADDRESS !== undefined && e.VAULT_ADDRESS !== undefined && e.VAULT_PRIVATE_KEY !== undefined), {
  path: ['CHAIN_RPC_URL'],
  message: 'CHAIN_RPC_URL needs USDC_TOKEN_ADDRESS, VAULT_ADDRESS and VAULT_PRIVATE_KEY',
}).refine((e) => e.VAULT_PRIVATE_KEY === undefined || e.VAULT_ADDRESS === undefined || privateKeyToAccount(e.VAULT_PRIVATE_KEY).address === e.VAULT_ADDRESS, {
  path: ['VAULT_PRIVATE_KEY'],
  message: 'VAULT_PRIVATE_KEY is not the key of VAULT_ADDRESS',
}).refine((e) => e.METRICS_PORT === undefined || e.METRICS_PORT === 0 || !e.ROLES.includes('api') || e.METRICS_PORT !== e.PORT, {
  path: ['METRICS_PORT'],
  message: 'METRICS_PORT must differ from PORT',
}).refine((e) => e.ENGINE_FAULT === undefined || e.NODE_ENV === 'test', {
  path: ['ENGINE_FAULT'],
  message: 'ENGINE_FAULT is a test seam: it is honoured only with NODE_ENV=test',
}).refine((e) => e.CLOCK_OFFSET_MS === undefined || e.NODE_ENV === 'test', {
  path: ['CLOCK_OFFSET_MS'],
  message: 'CLOCK_OFFSET_MS is a test seam: it is honoured only with NODE_ENV=test',
}).refine((e) => e.NODE_ENV !== 'production' || e.JWT_SECRET !== undefined, {
  path: ['JWT_SECRET'],
  message: 'JWT_SECRET is required when NODE_ENV=production (at least 32 random characters)',
}).refine((e) => !simMakerRuns(e) || e.ROLES.includes('api') || e.MAKER_API_URL !== undefined, {
  path: ['MAKER_API_URL'],
  message: 'MAKER_API_URL is required when the maker role runs without the api role (or set SIM_MAKER=false)',
}).refine((e) => !simMakerRuns(e) || e.NODE_ENV !== 'production' || (e.MAKER_PRIVATE_KEY !== undefined && e.TAKER_PRIVATE_KEY !== undefined), {
  path: ['MAKER_PRIVATE_KEY'],
  message: 'MAKER_PRIVATE_KEY and TAKER_PRIVATE_KEY are required when the simulator runs with NODE_ENV=production',
})

/** The liquidity simulator runs in this process: role maker, and SIM_MAKER on (default outside production). */
function simMakerRuns(e: { ROLES: readonly Role[]; SIM_MAKER?: boolean | undefined; NODE_ENV: string }): boolean {
  return e.ROLES.includes('maker') && (e.SIM_MAKER ?? e.NODE_ENV !== 'production')
}

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
  /** GET /metrics on the API port, for this bearer token; undefined: not served there. */
  metricsToken: string | undefined
  /** The internal metrics listener (no credential); null: none. */
  metricsListen: { host: string; port: number } | null
  /** The HS256 key of session JWTs; DEV_JWT_SECRET outside production when JWT_SECRET is unset. */
  jwtSecret: string
  jwtSecretIsDevDefault: boolean
  sessionTtlMs: number
  nonceTtlMs: number
  /** Undefined: localhost, 127.0.0.1 and HOST when it names one address, on the port actually bound (defaultSiweDomains). */
  siweDomains: readonly string[] | undefined
  serviceDomain: string
  corsOrigins: readonly string[]
  trustedProxies: readonly string[]
  orderRatePerMin: number
  mmRateMultiple: number
  markStaleMs: number
  markFeed: 'sim' | 'push'
  markFeedIntervalMs: number
  markFeedSeed: number
  engineBatchMax: number
  engineSnapshotEvery: number
  engineSnapshotMs: number
  engineLeaseMs: number
  engineReplyTimeoutMs: number
  engineFault: EngineFault | null
  /** Tests only (CLOCK_OFFSET_MS): how far this process's clock runs from the system's. */
  clockOffsetMs: number
  bodyLimitBytes: number
  graphqlMaxDepth: number
  graphqlMaxComplexity: number
  simMaker: boolean
  /** Liquidity simulator (role maker): wallet keys of the house and the taker, refresh interval, API origin. */
  makerPrivateKey: `0x${string}`
  takerPrivateKey: `0x${string}`
  makerKeysAreDevDefault: boolean
  makerIntervalMs: number
  /** Undefined: this process's own HTTP server. */
  makerApiUrl: string | undefined
  faucetEnabled: boolean
  /** Daily faucet cap in micro-USDC. */
  faucetDailyCapMicro: bigint
  tickIntervalMs: number
  sseKeepAliveMs: number
  wsPingTimeoutMs: number
  streamMaxBufferBytes: number
  streamMaxConnectionsPerIp: number
  wsMaxSubscriptions: number
  optionsFeedIntervalMs: number
  /** Age after which final orders without a fill or clientOrderId are deleted; 0: never. */
  pruneUnfilledOrdersAfterMs: number
  /** The chain (deposits and withdrawals); null when CHAIN_RPC_URL is unset. */
  chain: ChainConfig | null
}>

export interface ChainConfig {
  rpcUrl: string
  /** EIP-55 checksummed. */
  token: `0x${string}`
  vault: `0x${string}`
  vaultPrivateKey: `0x${string}`
  confirmations: number
  pollMs: number
  startBlock: number
}

export class ConfigError extends Error {}

/** The origin at which this process reaches its own server bound to `host`: loopback for a wildcard or
 * loopback bind, else that address or name (an IPv6 literal in brackets). */
export function ownOrigin(host: string, port: number): string {
  if (['0.0.0.0', '::', '127.0.0.1', 'localhost'].includes(host)) return `http://127.0.0.1:${port}`
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`
}

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
    metricsToken: e.METRICS_TOKEN,
    metricsListen: e.METRICS_PORT === undefined ? null : { host: e.METRICS_HOST, port: e.METRICS_PORT },
    jwtSecret: e.JWT_SECRET ?? DEV_JWT_SECRET,
    jwtSecretIsDevDefault: e.JWT_SECRET === undefined,
    sessionTtlMs: e.SESSION_TTL_MS,
    nonceTtlMs: e.NONCE_TTL_MS,
    siweDomains: e.SIWE_DOMAINS?.map((d) => d.toLowerCase()),
    serviceDomain: e.SERVICE_DOMAIN.toLowerCase(),
    corsOrigins: e.CORS_ORIGINS,
    trustedProxies: e.TRUSTED_PROXIES,
    orderRatePerMin: e.ORDER_RATE_PER_MIN,
    mmRateMultiple: e.MM_RATE_MULTIPLE,
    markStaleMs: e.MARK_STALE_MS,
    markFeed: e.MARK_FEED,
    markFeedIntervalMs: e.MARK_FEED_INTERVAL_MS,
    markFeedSeed: e.MARK_FEED_SEED,
    engineBatchMax: e.ENGINE_BATCH_MAX,
    engineSnapshotEvery: e.ENGINE_SNAPSHOT_EVERY,
    engineSnapshotMs: e.ENGINE_SNAPSHOT_MS,
    engineLeaseMs: e.ENGINE_LEASE_MS,
    engineReplyTimeoutMs: e.ENGINE_REPLY_TIMEOUT_MS,
    engineFault: e.ENGINE_FAULT ?? null,
    clockOffsetMs: e.CLOCK_OFFSET_MS ?? 0,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    graphqlMaxDepth: e.GRAPHQL_MAX_DEPTH,
    graphqlMaxComplexity: e.GRAPHQL_MAX_COMPLEXITY,
    simMaker: e.SIM_MAKER ?? e.NODE_ENV !== 'production',
    makerPrivateKey: e.MAKER_PRIVATE_KEY ?? DEV_MAKER_PRIVATE_KEY,
    takerPrivateKey: e.TAKER_PRIVATE_KEY ?? DEV_TAKER_PRIVATE_KEY,
    makerKeysAreDevDefault: e.MAKER_PRIVATE_KEY === undefined || e.TAKER_PRIVATE_KEY === undefined,
    makerIntervalMs: e.MAKER_INTERVAL_MS,
    makerApiUrl: e.MAKER_API_URL,
    faucetEnabled: e.FAUCET_ENABLED,
    faucetDailyCapMicro: BigInt(e.FAUCET_DAILY_CAP) * 1_000_000n,
    tickIntervalMs: e.TICK_INTERVAL_MS,
    sseKeepAliveMs: e.SSE_KEEPALIVE_MS,
    wsPingTimeoutMs: e.WS_PING_TIMEOUT_MS,
    streamMaxBufferBytes: e.STREAM_MAX_BUFFER_BYTES,
    streamMaxConnectionsPerIp: e.STREAM_MAX_CONNECTIONS_PER_IP,
    wsMaxSubscriptions: e.WS_MAX_SUBSCRIPTIONS,
    optionsFeedIntervalMs: e.OPTIONS_FEED_INTERVAL_MS,
    pruneUnfilledOrdersAfterMs: e.PRUNE_UNFILLED_ORDERS_AFTER_MS,
    chain: e.CHAIN_RPC_URL
      ? Object.freeze({
          rpcUrl: e.CHAIN_RPC_URL,
          token: e.USDC_TOKEN_ADDRESS as `0x${string}`,
          vault: e.VAULT_ADDRESS as `0x${string}`,
          vaultPrivateKey: e.VAULT_PRIVATE_KEY!,
          confirmations: e.DEPOSIT_CONFIRMATIONS,
          pollMs: e.CHAIN_POLL_MS,
          startBlock: e.CHAIN_START_BLOCK,
        })
      : null,
  })
}
