// The order-path rate limit for GraphQL mutations. REST routes are charged by the HTTP layer before
// their operation runs (and run it in-process with ctx.internal), so only direct GraphQL calls are
// charged here: one request, one unit, whichever way it came.
import { DomainError } from '../domain/errors.js'
import type { GraphQLContext } from './context.js'

export async function chargeOrderRate(ctx: GraphQLContext): Promise<void> {
  if (ctx.internal || !ctx.principal) return
  const d = await ctx.services.identity.chargeOrderRate(ctx.principal.userId)
  if (!d.allowed) {
    throw new DomainError('ORDER_RATE_LIMIT', `Order rate limit of ${d.limit} requests per minute exceeded; retry in ${d.retryAfterMs} ms`, {
      retryAfterMs: d.retryAfterMs,
    })
  }
}
