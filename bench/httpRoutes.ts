// The routes only the HTTP placement benchmark's server has (bench/httpServer.ts registers them; the
// application never does). The ceiling: an order-path route that does everything but reach the engine
// (credential, scope `trade`, the order-rate limit, body parsing, an order-sized JSON answer). The
// trace: the stage timers' figures (bench/httpTrace.ts, with HTTP_BENCH_TRACE=1). Both paths here, so
// the load generator's process imports no server code.
import type { FastifyInstance } from 'fastify'
import { newId } from '../src/domain/ids.js'

export const CEILING_PATH = '/bench/ceiling'
export const TRACE_PATH = '/bench/trace'

/** What POST /perps/orders answers for a resting order, field for field, so the ceiling encodes as much. */
function cannedOrder(userId: string, body: Record<string, unknown>) {
  const now = new Date().toISOString()
  return {
    id: newId(), userId, marketId: body['marketId'], clientOrderId: null, side: body['side'], type: 'limit', timeInForce: 'gtc',
    price: body['price'], quantity: body['quantity'], filledQuantity: '0', status: 'open', postOnly: body['postOnly'] ?? false,
    reduceOnly: false, marginMode: 'cross', stopPrice: null, takeProfitPrice: null, stopLossPrice: null, triggeredAt: null,
    parentOrderId: null, quoteId: null, cancelReason: null, createdAt: now, updatedAt: now,
  }
}

export function registerCeiling(app: FastifyInstance): void {
  app.post(CEILING_PATH, { config: { auth: 'trade', orderRateLimited: true } }, async (req) =>
    cannedOrder(req.credential.principal!.userId, (req.body ?? {}) as Record<string, unknown>),
  )
}
