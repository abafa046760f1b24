// Operator routes under /admin: pausing the simulated mark feed, pushed marks, market halt/resume and
// users' order-rate tiers. They need `Authorization: Bearer <ADMIN_TOKEN>`; with no token configured they
// do not exist. Plain Fastify routes calling the command bus (not part of the public GraphQL schema),
// declared as a table like the REST routes, so the same schemas check the requests and document them.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { operatorTokenCheck } from '../auth/operatorToken.js'
import { MAX_RATE_TIER } from '../auth/users.js'
import { DomainError, type ErrorCode } from '../domain/errors.js'
import type { Services } from '../services/services.js'
import { parsePart, pathId, ulidPath } from './requestSchema.js'
import type { RouteDoc } from './route.js'

// Strict: a misspelt field (`sourceTimeStamp`) is refused rather than silently replaced by its default.
const markSchema = z.strictObject({
  marketId: z.string().min(1).max(64).meta({ description: 'A spot or futures market (perpetuals and options derive their marks).' }),
  price: z.string().meta({ description: 'Decimal string, positive, at most 18 decimals.' }),
  source: z.string().default('push').meta({ description: 'A short lowercase name of the source; default `push`.' }),
  sourceTimestamp: z
    .union([z.number().int().positive(), z.iso.datetime({ offset: true })])
    .optional()
    .meta({ description: 'When the source observed the price: unix ms or ISO 8601; default the time of the request. Not in the future.' }),
})
const marksBody = z.union([z.strictObject({ marks: z.array(markSchema).min(1).max(500) }), markSchema])

const feedBody = z.strictObject({ enabled: z.boolean().meta({ description: 'false pauses the simulated feed: marks go stale and trading stops within MARK_STALE_MS (fail closed).' }) })

/** No tier: the configured market-maker multiple (MM_RATE_MULTIPLE). */
const rateTierBody = z
  .strictObject({ tier: z.number().int().min(1).max(MAX_RATE_TIER).optional().meta({ description: `1 to ${MAX_RATE_TIER}; omitted: MM_RATE_MULTIPLE (the market-maker tier).` }) })
  .optional()

const marketParams = z.object({ marketId: pathId('MARKET_NOT_FOUND', 'Market id.') })
const userParams = z.object({ userId: ulidPath('NOT_FOUND', 'User id (ULID).') })

/** An operator route: its request schemas, its documented response, and what it does. */
export interface AdminRoute extends RouteDoc {
  method: 'POST'
  path: string
  params?: z.ZodObject<Record<string, z.ZodType<string, string>>>
  body?: z.ZodType
  response: z.ZodType
  handle: (services: Services, input: { params: any; body: any }, req: FastifyRequest) => Promise<unknown>
}

const ADMIN_ERRORS: readonly ErrorCode[] = ['OUTCOME_UNKNOWN']
const marketStatus = z.object({ marketId: z.string(), status: z.enum(['active', 'halted']) })

export const adminRoutes: readonly AdminRoute[] = [
  {
    method: 'POST',
    path: '/admin/feed',
    tag: 'Operator',
    summary: 'Pause or resume the simulated mark feed',
    description: 'On whichever node runs it (MARK_FEED=sim). Paused, marks go stale and trading stops within MARK_STALE_MS.',
    body: feedBody,
    response: z.object({ enabled: z.boolean() }),
    handle: async (services, { body }) => {
      await services.feedPause.set(!body.enabled)
      return { enabled: body.enabled }
    },
  },
  {
    method: 'POST',
    path: '/admin/marks',
    tag: 'Operator',
    summary: 'Push marks (MARK_FEED=push)',
    description: 'One mark, or `{"marks": [...]}` (1 to 500) applied atomically: all are checked before any is taken. A mark older than the current one is ignored (not counted in `accepted`).',
    errors: [...ADMIN_ERRORS, 'MARKET_NOT_FOUND'],
    body: marksBody,
    response: z.object({ accepted: z.number().int() }),
    handle: async (services, { body }, req) => {
      const now = services.clock()
      const marks = ('marks' in body ? body.marks : [body]).map((m: z.output<typeof markSchema>) => ({
        marketId: m.marketId,
        price: m.price,
        source: m.source,
        sourceTs: m.sourceTimestamp === undefined ? now : typeof m.sourceTimestamp === 'number' ? m.sourceTimestamp : Date.parse(m.sourceTimestamp),
      }))
      return services.commands.execute({ type: 'UpdateMarks', marks }, { correlationId: req.id })
    },
  },
  ...(['halt', 'resume'] as const).map(
    (action): AdminRoute => ({
      method: 'POST',
      path: `/admin/markets/:marketId/${action}`,
      tag: 'Operator',
      summary: action === 'halt' ? 'Halt a market' : 'Resume a halted market',
      description: action === 'halt' ? 'A halted market accepts no new orders (409 `MARKET_HALTED`); resting orders stay.' : 'The market accepts orders again; a settled market cannot be resumed (409 `MARKET_HALTED`).',
      errors: [...ADMIN_ERRORS, 'MARKET_HALTED'],
      params: marketParams,
      response: marketStatus,
      handle: async (services, { params }, req) => {
        const status = action === 'halt' ? 'halted' : 'active'
        const result = await services.commands.execute({ type: 'SetMarketStatus', marketId: params.marketId, status }, { correlationId: req.id })
        services.marketData.invalidate()
        return result
      },
    }),
  ),
  {
    method: 'POST',
    path: '/admin/users/:userId/rate-tier',
    tag: 'Operator',
    summary: 'Set a user\'s order-rate tier',
    description: 'The user may send `tier` × ORDER_RATE_PER_MIN order-path requests per minute.',
    params: userParams,
    body: rateTierBody,
    response: z.object({ userId: z.string(), address: z.string(), rateTier: z.number().int() }),
    handle: async (services, { params, body }) => {
      const user = await services.identity.setRateTier(params.userId, body?.tier ?? services.config.mmRateMultiple)
      if (!user) throw new DomainError('NOT_FOUND', `No user ${params.userId}`)
      return { userId: user.id, address: user.address, rateTier: user.rateTier }
    },
  },
]

export function registerAdminRoutes(app: FastifyInstance, services: Services): void {
  const token = services.config.adminToken
  if (!token) return
  const check = operatorTokenCheck(token, 'Admin token required')
  const requireAdmin = async (req: FastifyRequest) => check(req.headers.authorization)
  for (const route of adminRoutes) {
    app.route({
      method: route.method,
      url: route.path,
      preHandler: requireAdmin,
      handler: async (req) => {
        // User ids are ULIDs: anything else names no user (and a NUL would reach PostgreSQL, which refuses it).
        const params = route.params ? parsePart(route.params, req.params, 'path') : {}
        const body = route.body ? parsePart(route.body, req.body ?? undefined, 'body') : undefined
        return route.handle(services, { params, body }, req)
      },
    })
  }
}
