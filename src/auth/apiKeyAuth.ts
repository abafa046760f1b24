// Owns checking an API key on the request path. Keys are found by the SHA-256 of the secret and cached
// in-process for a short time, so a keyed request does not wait on PostgreSQL. Revocation must still
// refuse the very next request on every node, including a node that cached the key a moment before:
// so a cached key is trusted only after checking its revocation marker in Redis (one EXISTS), which
// the revoking node sets after the database update and before it answers. A key loaded from the
// database is current by definition. Checks run in the order the spec's codes imply: format, lookup,
// revoked, expired, IP allowlist (the scope is the route's business). The marker is read last, once
// the key passes everything known in-process, so that a caller may read it in the same round trip as
// what it does next (the order path: its rate charge); a key refused in-process reads it first, since
// a revocation outranks the other refusals.
import type { Logger } from 'pino'
import { systemClock, type Clock } from '../domain/clock.js'
import { DomainError } from '../domain/errors.js'
import type { PrismaClient } from '../store/prisma.js'
import { auditUserAgent } from './apiKeyStore.js'
import { ipAllowed } from './ipAllowlist.js'
import { hashSecret, isKeySecret, sameDigest } from './keyMaterial.js'
import type { Principal } from './principal.js'
import type { RevocationMarkers } from './revocationMarkers.js'

interface CachedKey {
  id: string
  userId: string
  address: string
  scope: 'read' | 'trade'
  secretHash: string
  allowedIps: string[]
  expiresAt: Date | null
  revokedAt: Date | null
  loadedAt: number
}

/** The key a revocation check is asked about: which, whose, and what it may do. */
export type KeyUnderCheck = Pick<CachedKey, 'id' | 'userId' | 'scope'>

/** Whether a cached key has been revoked on some node (its marker exists). */
export type RevocationCheck = (key: KeyUnderCheck) => Promise<boolean>

/** Why a key that is not revoked may not be used from `ip` now (expired, or not on its allowlist), or null. */
function refusal(key: CachedKey, ip: string, now: number): DomainError | null {
  if (key.expiresAt && key.expiresAt.getTime() <= now) return new DomainError('INVALID_TOKEN', 'API key has expired')
  if (!ipAllowed(key.allowedIps, ip)) return new DomainError('IP_NOT_ALLOWED')
  return null
}

/** Below REVOKED_MARKER_TTL_MS, so no cached key outlives its revocation marker. */
export const KEY_CACHE_MS = 30_000
const MAX_CACHED = 50_000
/** lastUsedAt/lastUsedIp and the `use` audit row: at most once a minute per key per node. */
const USE_RECORD_INTERVAL_MS = 60_000

export class ApiKeyAuth {
  private readonly cache = new Map<string, CachedKey>()
  private readonly lastRecorded = new Map<string, number>()
  private readonly pending = new Set<Promise<unknown>>()

  constructor(
    private readonly prisma: PrismaClient,
    private readonly revocations: RevocationMarkers,
    private readonly log: Logger,
    private readonly clock: Clock = systemClock,
  ) {}

  /**
   * `ip` is the caller's address as allowlists name it (ipAllowlist.normalizeIp). `isRevoked` reads a
   * cached key's marker once the key passes every in-process check; by default alone.
   */
  async authenticate(secret: string, ip: string, userAgent: string | null, isRevoked: RevocationCheck = (k) => this.revocations.isRevoked(k.id)): Promise<Principal> {
    if (!isKeySecret(secret)) throw new DomainError('INVALID_TOKEN', 'API key is malformed')
    const hash = hashSecret(secret)
    const now = this.clock()
    const found = await this.lookup(hash, now)
    const key = found?.key
    // The lookup matched on the digest already; this compare is the constant-time confirmation.
    if (!key || !sameDigest(key.secretHash, hash)) throw new DomainError('INVALID_TOKEN', 'API key is not recognised')
    const refused = refusal(key, ip, now)
    if (found.cached && !key.revokedAt && (await (refused ? this.revocations.isRevoked(key.id) : isRevoked(key)))) key.revokedAt = new Date(now)
    if (key.revokedAt) throw new DomainError('KEY_REVOKED')
    if (refused) throw refused
    this.recordUse(key, ip, userAgent, now)
    return {
      userId: key.userId, address: key.address, kind: 'apiKey', via: 'apiKey', scope: key.scope, keyId: key.id, expiresAt: key.expiresAt?.getTime(),
      ip, userAgent,
    }
  }

  /** Drops a key from this node's cache (its revocation was announced). */
  forget(keyId: string): void {
    for (const [hash, k] of this.cache) if (k.id === keyId) this.cache.delete(hash)
  }

  /** Settles once every usage write started so far has finished (tests, shutdown). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.pending])
  }

  /** Empties the cache (benchmarks measure the miss path with it). */
  clearCache(): void {
    this.cache.clear()
  }

  /** The key with this digest; `cached` when it came from this node's cache (its marker still to be read). */
  private async lookup(hash: string, now: number): Promise<{ key: CachedKey; cached: boolean } | null> {
    const hit = this.cache.get(hash)
    if (hit && now - hit.loadedAt < KEY_CACHE_MS) return { key: hit, cached: true }
    const row = await this.prisma.apiKey.findUnique({
      where: { secretHash: hash },
      select: { id: true, userId: true, scope: true, secretHash: true, allowedIps: true, expiresAt: true, revokedAt: true, user: { select: { address: true } } },
    })
    if (!row) {
      this.cache.delete(hash)
      return null
    }
    const key: CachedKey = { ...row, scope: row.scope as 'read' | 'trade', address: row.user.address, loadedAt: now }
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value!)
    this.cache.set(hash, key)
    return { key, cached: false }
  }

  /** Best effort and off the request path: a failed write is logged, never the caller's problem. */
  private recordUse(key: CachedKey, ip: string, userAgent: string | null, now: number): void {
    const last = this.lastRecorded.get(key.id)
    if (last !== undefined && now - last < USE_RECORD_INTERVAL_MS) return
    if (this.lastRecorded.size >= MAX_CACHED) this.lastRecorded.clear()
    this.lastRecorded.set(key.id, now)
    const write = this.prisma
      .$transaction([
        this.prisma.apiKey.update({ where: { id: key.id }, data: { lastUsedAt: new Date(now), lastUsedIp: ip } }),
        this.prisma.apiKeyAudit.create({ data: { keyId: key.id, userId: key.userId, action: 'use', ip, userAgent: auditUserAgent(userAgent) } }),
      ])
      .catch((err: unknown) => this.log.warn({ err, keyId: key.id }, 'could not record API key use'))
      .finally(() => this.pending.delete(write))
    this.pending.add(write)
  }
}
