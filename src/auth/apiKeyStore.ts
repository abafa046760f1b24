// Owns API key management (SPEC.md "API key management"): creating a key (the secret is returned once
// and stored only as its SHA-256), listing a user's keys with their computed status, revoking one, and
// the audit rows of creation and revocation. Revocation reaches every API node's key cache through a
// Redis marker each node checks before trusting a cached key (apiKeyAuth.ts), and an auth event that
// drops the key from their caches.
import { systemClock, type Clock } from '../domain/clock.js'
import { DomainError } from '../domain/errors.js'
import type { PrismaClient } from '../store/prisma.js'
import type { ApiKeyRequest } from './apiKeyRequest.js'
import type { AuthEvents } from './authEvents.js'
import { hashSecret, isKeyId, newKeyId, newKeySecret } from './keyMaterial.js'
import type { RevocationMarkers } from './revocationMarkers.js'

export type ApiKeyStatus = 'active' | 'expired' | 'revoked'

export interface ApiKeyView {
  id: string
  name: string
  scope: 'read' | 'trade'
  allowedIps: string[]
  expiresAt: Date | null
  createdAt: Date
  revokedAt: Date | null
  lastUsedAt: Date | null
  lastUsedIp: string | null
  status: ApiKeyStatus
}

/** Where a management call came from, for the audit log. */
export interface AuditSource {
  ip: string
  userAgent: string | null
}

/** Active keys one user may hold at once; revoked and expired ones do not count. */
export const MAX_ACTIVE_KEYS = 50
const USER_AGENT_CHARS = 256

const VIEW = {
  id: true, name: true, scope: true, allowedIps: true, expiresAt: true, createdAt: true, revokedAt: true,
  lastUsedAt: true, lastUsedIp: true,
} as const

type ViewRow = Omit<ApiKeyView, 'status' | 'scope'> & { scope: string }

export function keyStatus(k: { revokedAt: Date | null; expiresAt: Date | null }, nowMs: number): ApiKeyStatus {
  if (k.revokedAt) return 'revoked'
  if (k.expiresAt && k.expiresAt.getTime() <= nowMs) return 'expired'
  return 'active'
}

const view = (row: ViewRow, nowMs: number): ApiKeyView => ({ ...row, scope: row.scope as 'read' | 'trade', status: keyStatus(row, nowMs) })

export const auditUserAgent = (ua: string | null) => (ua === null ? null : ua.slice(0, USER_AGENT_CHARS))

export class ApiKeyStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly revocations: RevocationMarkers,
    private readonly events: AuthEvents,
    private readonly clock: Clock = systemClock,
  ) {}

  /** The tail of each user's queue of key creations on this node. */
  private readonly creating = new Map<string, Promise<void>>()

  /**
   * Creates a key; the secret in the result exists nowhere else. One user's creations run one at a
   * time on a node: each waits on the user's lock inside a transaction, and sixty parallel requests
   * would otherwise hold sixty pooled connections waiting, starving every other read and timing out.
   */
  create(userId: string, req: ApiKeyRequest, source: AuditSource, nowMs?: number): Promise<{ key: ApiKeyView; secret: string }> {
    const previous = this.creating.get(userId) ?? Promise.resolve()
    const next = previous.then(() => this.createNow(userId, req, source, nowMs ?? this.clock()))
    const settled = next.then(() => {}, () => {})
    this.creating.set(userId, settled)
    void settled.then(() => {
      if (this.creating.get(userId) === settled) this.creating.delete(userId)
    })
    return next
  }

  private async createNow(userId: string, req: ApiKeyRequest, source: AuditSource, nowMs: number): Promise<{ key: ApiKeyView; secret: string }> {
    const secret = newKeySecret()
    const id = newKeyId()
    const row = await this.prisma.$transaction(async (tx) => {
      // One creation per user at a time, so that parallel requests cannot all pass the count.
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`api-keys:${userId}`}, 0))`
      const active = await tx.apiKey.count({
        where: { userId, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: new Date(nowMs) } }] },
      })
      if (active >= MAX_ACTIVE_KEYS) {
        throw new DomainError('INVALID_REQUEST', `At most ${MAX_ACTIVE_KEYS} active API keys per user; revoke one first`, { limit: MAX_ACTIVE_KEYS })
      }
      const created = await tx.apiKey.create({
        data: {
          id,
          userId,
          name: req.name,
          scope: req.scope,
          secretHash: hashSecret(secret),
          allowedIps: req.allowedIps,
          expiresAt: req.expiresInDays === 0 ? null : new Date(nowMs + req.expiresInDays * 86_400_000),
          createdAt: new Date(nowMs),
        },
        select: VIEW,
      })
      await tx.apiKeyAudit.create({ data: { keyId: id, userId, action: 'create', ip: source.ip, userAgent: auditUserAgent(source.userAgent) } })
      return created
    })
    return { key: view(row, nowMs), secret }
  }

  /** Newest first. */
  async list(userId: string, nowMs: number = this.clock()): Promise<ApiKeyView[]> {
    const rows = await this.prisma.apiKey.findMany({ where: { userId }, select: VIEW, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] })
    return rows.map((r) => view(r, nowMs))
  }

  /**
   * Revokes the caller's key. Another user's key and an unknown id are both NOT_FOUND, so ids of other
   * users cannot be probed. A revoked key is a 409 conflict (SPEC.md "Status families"); it is still
   * re-announced first, in case the call that revoked it failed before announcing.
   */
  async revoke(userId: string, keyId: string, source: AuditSource, nowMs: number = this.clock()): Promise<ApiKeyView> {
    const notFound = () => new DomainError('NOT_FOUND', `No API key ${keyId}`)
    if (!isKeyId(keyId)) throw notFound()
    const { count } = await this.prisma.apiKey.updateMany({ where: { id: keyId, userId, revokedAt: null }, data: { revokedAt: new Date(nowMs) } })
    const row = await this.prisma.apiKey.findFirst({ where: { id: keyId, userId }, select: VIEW })
    if (!row) throw notFound()
    // The database says revoked first; then every node learns it before this call returns.
    await this.revocations.mark(keyId)
    await this.events.publish({ type: 'key-revoked', keyId })
    if (count === 0) throw new DomainError('KEY_ALREADY_REVOKED', `API key ${keyId} is already revoked`, { revokedAt: row.revokedAt })
    await this.prisma.apiKeyAudit.create({ data: { keyId, userId, action: 'revoke', ip: source.ip, userAgent: auditUserAgent(source.userAgent) } })
    return view(row, nowMs)
  }
}
