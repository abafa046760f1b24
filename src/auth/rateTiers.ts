// Owns each user's order-rate tier as the order path reads it: users.rateTier, cached in-process for a
// few seconds (the order path must not wait on PostgreSQL), dropped at once on every node when an
// operator changes it (the `rate-tier` auth event), so a change applies on the next request.
import type { PrismaClient } from '../store/prisma.js'

const TTL_MS = 10_000
const MAX_ENTRIES = 100_000

export class RateTiers {
  private readonly cache = new Map<string, { tier: number; at: number }>()

  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: () => number = Date.now,
  ) {}

  async tier(userId: string): Promise<number> {
    const now = this.clock()
    const hit = this.cache.get(userId)
    if (hit && now - hit.at < TTL_MS) return hit.tier
    const row = await this.prisma.user.findUnique({ where: { id: userId }, select: { rateTier: true } })
    const tier = row?.rateTier ?? 1
    if (this.cache.size >= MAX_ENTRIES) this.cache.clear()
    this.cache.set(userId, { tier, at: now })
    return tier
  }

  forget(userId: string): void {
    this.cache.delete(userId)
  }
}
