// Owns access control on the HTTP host. A route says who may call it in its config (`auth`, and
// `orderRateLimited` for the order path); one hook then, before the body is parsed, resolves the
// request's credential once, refuses the request with the spec's code when the route's level is not
// met, and charges the order-rate pool. The result rides on the request (`req.credential`) into the
// GraphQL context of REST routes and yoga alike. Routes without an `auth` config (health, admin,
// CORS preflight) are not touched.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config/env.js'
import { DomainError } from '../domain/errors.js'
import type { Caller } from '../graphql/context.js'
import type { RateDecision } from '../bus/rateLimiter.js'
import type { RevocationCheck } from './apiKeyAuth.js'
import type { Identity } from './identity.js'
import { normalizeIp } from './ipAllowlist.js'
import { NO_CREDENTIAL, refusal, scopePermits, type AuthLevel, type CredentialResult } from './principal.js'
import { SESSION_COOKIE, sessionCookies } from './sessionCookie.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route; absent: the route does its own checks (admin) or needs none (health). */
    auth?: AuthLevel
    /** Counted against the caller's order-path rate limit (DESIGN.md §10). */
    orderRateLimited?: boolean
  }
  interface FastifyRequest {
    credential: CredentialResult
  }
}

export function installAuth(app: FastifyInstance, identity: Identity): void {
  // Declared without a default (Fastify refuses shared object defaults); the hook sets it on every request.
  app.decorateRequest('credential')
  app.addHook('preParsing', async (req, reply, payload) => {
    req.credential = NO_CREDENTIAL
    const { auth, orderRateLimited } = req.routeOptions.config
    if (auth === undefined) return payload
    // Node refused the rest of this request (a Transfer-Encoding it cannot read, say), answered it and
    // closed the connection: the peer's address is gone, and the route must not run.
    if (req.ip === undefined) throw new DomainError('INVALID_REQUEST', 'The connection closed before the request was read')
    // On the order path a cached API key's revocation marker is read by the rate charge's script: one
    // Redis round trip for both. Only for a key the route's level admits, so a key refused for its scope
    // is refused as before, uncharged; a revoked key is never charged.
    let charged: RateDecision | undefined
    const isRevoked: RevocationCheck | undefined = orderRateLimited
      ? async (key) => {
          if (!scopePermits(key.scope, auth)) return identity.revocations.isRevoked(key.id)
          const d = await identity.chargeOrderRateUnlessRevoked(key.userId, key.id)
          if (d === null) return true
          charged = d
          return false
        }
      : undefined
    req.credential = await identity.credentials.resolve({
      authorization: req.headers.authorization,
      sessionCookie: req.cookies[SESSION_COOKIE],
      ip: req.ip,
      userAgent: req.headers['user-agent'] ?? null,
      isRevoked,
    })
    const denied = refusal(req.credential, auth)
    if (denied) throw denied
    if (orderRateLimited) await chargeOrderRate(req, reply, identity, charged)
    return payload
  })
}

/** Charges the caller's pool (unless `charged` says it was already, with the key's marker) and answers with the pool's headers. */
async function chargeOrderRate(req: FastifyRequest, reply: FastifyReply, identity: Identity, charged: RateDecision | undefined): Promise<void> {
  const principal = req.credential.principal
  if (!principal) throw new Error(`${req.url}: an order-rate-limited route must require a credential`)
  const d = charged ?? (await identity.chargeOrderRate(principal.userId))
  reply.header('X-RateLimit-Limit', d.limit)
  reply.header('X-RateLimit-Remaining', d.remaining)
  // Seconds until the pool is full again (the IETF RateLimit draft's delta-seconds, not a timestamp).
  reply.header('X-RateLimit-Reset', Math.ceil(d.resetMs / 1000))
  if (!d.allowed) {
    reply.header('Retry-After', Math.ceil(d.retryAfterMs / 1000))
    throw new DomainError('ORDER_RATE_LIMIT', `Order rate limit of ${d.limit} requests per minute exceeded; retry in ${d.retryAfterMs} ms`, {
      retryAfterMs: d.retryAfterMs,
    })
  }
}

/** The GraphQL context's view of a request the hook has seen. */
export function callerOf(req: FastifyRequest, reply: FastifyReply, config: Config): Caller {
  return {
    credential: req.credential,
    ip: normalizeIp(req.ip),
    userAgent: req.headers['user-agent'] ?? null,
    cookies: sessionCookies(reply, config),
  }
}
