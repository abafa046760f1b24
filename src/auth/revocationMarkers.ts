// The API-key revocation marker, `{p}auth:revoked:{keyId}` (src/bus/keys.ts): set when a key is revoked,
// read by every node that trusts a cached key or keeps a private stream open on one. The only code
// that reads or writes it, so its key, value and lifetime are written down once (the order-rate
// script reads it too, by the name key() gives, in the same round trip as the charge).
import type { Redis } from 'ioredis'
import type { RedisKeys } from '../bus/keys.js'

/** Longer than any node caches a key (apiKeyAuth.ts), so a cached key always meets its marker. */
export const REVOKED_MARKER_TTL_MS = 3_600_000

export class RevocationMarkers {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async mark(keyId: string): Promise<void> {
    await this.redis.set(this.keys.revokedKey(keyId), '1', 'PX', REVOKED_MARKER_TTL_MS)
  }

  /** The marker's Redis key, for a script that reads it beside other work (rateLimiter.ts). */
  key(keyId: string): string {
    return this.keys.revokedKey(keyId)
  }

  async isRevoked(keyId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.revokedKey(keyId))) === 1
  }
}
