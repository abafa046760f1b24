// A route for the auth tests: the order path's access check and rate limit with nothing behind them, so
// credentials, scopes, CORS and the limiter are tested without placing orders. Registered by the test
// exchange (exchange.ts) through StartOptions.extraRoutes; the application never has it.
import type { FastifyInstance } from 'fastify'

export const ORDER_PATH = '/test/order-path'

export function registerOrderPathRoute(app: FastifyInstance): void {
  app.post(ORDER_PATH, { config: { auth: 'trade', orderRateLimited: true } }, async (req) => ({
    ok: true,
    userId: req.credential.principal?.userId,
  }))
}
