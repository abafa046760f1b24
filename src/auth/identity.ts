// Owns the identity service of one node: sign-in, sessions, API keys, credential checks, rate tiers and
// the order-path rate limit, composed over PostgreSQL and Redis, plus the auth event wiring that keeps
// every node's caches honest. REST and GraphQL both reach identity only through this object.
import type { Redis } from 'ioredis'
import type { Logger } from 'pino'
import type { RedisKeys } from '../bus/keys.js'
import { OrderRateLimiter, type RateDecision } from '../bus/rateLimiter.js'
import type { Config } from '../config/env.js'
import type { Clock } from '../domain/clock.js'
import type { PrismaClient } from '../store/prisma.js'
import { ApiKeyAuth } from './apiKeyAuth.js'
import { ApiKeyStore } from './apiKeyStore.js'
import { AuthEvents } from './authEvents.js'
import { CredentialResolver } from './credentials.js'
import { RateTiers } from './rateTiers.js'
import { RevocationMarkers } from './revocationMarkers.js'
import { Sessions } from './sessions.js'
import { defaultSiweDomains, Siwe } from './siwe.js'
import { Users, type UserRow } from './users.js'

export interface IdentityDeps {
  config: Config
  log: Logger
  prisma: PrismaClient
  redis: Redis
  keys: RedisKeys
  clock: Clock
  /** Tests pin the rate limiter's clock; otherwise Redis' clock is used. */
  rateLimitClock?: Clock
  /** Told of each order-path request refused for its rate (metrics). */
  refusals?: { order(): void }
}

export interface SignedIn {
  token: string
  expiresAt: Date
  user: UserRow
}

export class Identity {
  readonly events: AuthEvents
  readonly users: Users
  readonly siwe: Siwe
  readonly sessions: Sessions
  /** The API-key revocation markers every node checks a cached key and a key's streams against. */
  readonly revocations: RevocationMarkers
  readonly apiKeys: ApiKeyStore
  readonly keyAuth: ApiKeyAuth
  readonly credentials: CredentialResolver
  readonly tiers: RateTiers
  private readonly orderRate: OrderRateLimiter
  private readonly orderRatePerMin: number
  private readonly refusals: IdentityDeps['refusals']
  private siweDomains: readonly string[]
  private readonly host: string

  constructor(d: IdentityDeps) {
    const { config, log, prisma, redis, keys, clock } = d
    if (config.jwtSecretIsDevDefault) {
      log.warn('JWT_SECRET is not set: sessions are signed with the fixed development secret; set JWT_SECRET outside development')
    }
    this.siweDomains = config.siweDomains ?? []
    this.host = config.host
    this.events = new AuthEvents(redis, keys, log)
    this.users = new Users(prisma)
    this.siwe = new Siwe(redis, keys, config.nonceTtlMs, () => this.siweDomains, clock)
    this.sessions = new Sessions(redis, keys, this.events, config.jwtSecret, config.sessionTtlMs, clock)
    this.revocations = new RevocationMarkers(redis, keys)
    this.apiKeys = new ApiKeyStore(prisma, this.revocations, this.events, clock)
    this.keyAuth = new ApiKeyAuth(prisma, this.revocations, log, clock)
    this.credentials = new CredentialResolver(this.sessions, this.keyAuth)
    this.tiers = new RateTiers(prisma)
    this.orderRate = new OrderRateLimiter(redis, keys.orderRate, d.rateLimitClock)
    this.orderRatePerMin = config.orderRatePerMin
    this.refusals = d.refusals
    this.events.on((e) => {
      if (e.type === 'key-revoked') this.keyAuth.forget(e.keyId)
      else if (e.type === 'rate-tier') this.tiers.forget(e.userId)
    })
  }

  /** With no SIWE_DOMAINS configured, sign-in messages name this node's own address (DESIGN.md §9). */
  serveOnPort(port: number): void {
    if (this.siweDomains.length === 0) this.siweDomains = defaultSiweDomains(this.host, port)
  }

  /** Checks a signed SIWE message, creates the user on first sign-in, and opens a session. */
  async signIn(message: unknown, signature: unknown): Promise<SignedIn> {
    const address = await this.siwe.verify(message, signature)
    const user = await this.users.signedIn(address)
    const session = await this.sessions.issue({ userId: user.id, address: user.address })
    return { token: session.token, expiresAt: session.expiresAt, user }
  }

  /** Counts one order-path request against the user's pool (ORDER_RATE_PER_MIN × rate tier). */
  async chargeOrderRate(userId: string): Promise<RateDecision> {
    return (await this.charge(userId, null))!
  }

  /**
   * As chargeOrderRate(), unless API key `keyId` has been revoked (its marker, read in the same
   * round trip): then nothing is charged and the answer is null.
   */
  async chargeOrderRateUnlessRevoked(userId: string, keyId: string): Promise<RateDecision | null> {
    return this.charge(userId, keyId)
  }

  private async charge(userId: string, keyId: string | null): Promise<RateDecision | null> {
    const tier = await this.tiers.tier(userId)
    const limit = this.orderRatePerMin * tier
    const decision = keyId === null ? await this.orderRate.consume(userId, limit) : await this.orderRate.consumeUnless(this.revocations.key(keyId), userId, limit)
    if (decision && !decision.allowed) this.refusals?.order()
    return decision
  }

  /** Operator: sets a user's tier; every node applies it from the next request. Null for an unknown user. */
  async setRateTier(userId: string, tier: number): Promise<UserRow | null> {
    const user = await this.users.setRateTier(userId, tier)
    if (user) await this.events.publish({ type: 'rate-tier', userId })
    return user
  }
}
