// Operator routes under /admin: pausing the simulated mark feed, pushed marks, market halt/resume and
// users' order-rate tiers. They need `Authorization: Bearer <ADMIN_TOKEN>`; with no token configured they
// do not exist.
import { timingSafeEqual, createHash } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { MAX_RATE_TIER } from '../auth/users.js'
import { DomainError } from '../domain/errors.js'
import { isUlid } from '../domain/ids.js'
import type { Services } from '../services/services.js'

// Strict: a misspelt field (`sourceTimeStamp`) is refused rather than silently replaced by its default.
const markSchema = z.strictObject({
  marketId: z.string().min(1).max(64),
  price: z.string(),
  source: z.string().default('push'),
  /** Unix ms or an ISO 8601 string; defaults to the time of the request. */
  sourceTimestamp: z.union([z.number().int().positive(), z.iso.datetime({ offset: true })]).optional(),
})
const marksBody = z.union([z.strictObject({ marks: z.array(markSchema).min(1).max(500) }), markSchema])

const feedBody = z.strictObject({ enabled: z.boolean() })

/** No tier: the configured market-maker multiple (MM_RATE_MULTIPLE). */
const rateTierBody = z.strictObject({ tier: z.number().int().min(1).max(MAX_RATE_TIER).optional() })

const digest = (s: string) => createHash('sha256').update(s).digest()

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const r = schema.safeParse(body)
  if (!r.success) throw new DomainError('INVALID_REQUEST', 'Invalid request body', { issues: z.treeifyError(r.error) })
  return r.data
}

export function registerAdminRoutes(app: FastifyInstance, services: Services): void {
  const token = services.config.adminToken
  if (!token) return
  const expected = digest(token)
  const requireAdmin = async (req: FastifyRequest) => {
    const header = req.headers.authorization
    if (!header) throw new DomainError('MISSING_CREDENTIAL')
    const m = /^Bearer (.+)$/.exec(header)
    // Compare digests: equal length whatever was sent, and constant time.
    if (!m || !timingSafeEqual(digest(m[1]!), expected)) throw new DomainError('INVALID_TOKEN', 'Admin token required')
  }

  // Pauses or resumes the simulated mark feed on whichever node runs it: with it paused, marks go
  // stale and trading stops within the staleness threshold (fail closed).
  app.post('/admin/feed', { preHandler: requireAdmin }, async (req) => {
    const { enabled } = parse(feedBody, req.body)
    const redis = services.marketData.redis
    const key = services.marketData.keys.feedPaused
    if (enabled) await redis.del(key)
    else await redis.set(key, '1')
    return { enabled }
  })

  app.post('/admin/marks', { preHandler: requireAdmin }, async (req) => {
    const body = parse(marksBody, req.body)
    const now = services.clock()
    const marks = ('marks' in body ? body.marks : [body]).map((m) => ({
      marketId: m.marketId,
      price: m.price,
      source: m.source,
      sourceTs: m.sourceTimestamp === undefined ? now : typeof m.sourceTimestamp === 'number' ? m.sourceTimestamp : Date.parse(m.sourceTimestamp),
    }))
    return services.commands.execute({ type: 'UpdateMarks', marks }, { correlationId: req.id })
  })

  for (const [action, status] of [['halt', 'halted'], ['resume', 'active']] as const) {
    app.post<{ Params: { marketId: string } }>(`/admin/markets/:marketId/${action}`, { preHandler: requireAdmin }, async (req) => {
      const result = await services.commands.execute({ type: 'SetMarketStatus', marketId: req.params.marketId, status }, { correlationId: req.id })
      services.marketData.invalidate()
      return result
    })
  }

  app.post<{ Params: { userId: string } }>('/admin/users/:userId/rate-tier', { preHandler: requireAdmin }, async (req) => {
    const { tier = services.config.mmRateMultiple } = parse(rateTierBody, req.body ?? {})
    // User ids are ULIDs: anything else names no user (and a NUL would reach PostgreSQL, which refuses it).
    const user = isUlid(req.params.userId) ? await services.identity.setRateTier(req.params.userId, tier) : null
    if (!user) throw new DomainError('NOT_FOUND', `No user ${req.params.userId}`)
    return { userId: user.id, address: user.address, rateTier: user.rateTier }
  })
}
