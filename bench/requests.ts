// Owns the REST request-check benchmark: what checking a request against its route's zod schemas and
// building the operation's variables costs on the order path (a typical order body; a bulk quote of 50),
// and what a refused body costs (the error with details.issues). Pure CPU, no server.
// Run alone: npm run bench -- requests
import { checkRequest } from '../src/rest/executor.js'
import type { RestRequest, RestRoute } from '../src/rest/route.js'
import { restRoutes } from '../src/rest/routes.js'

const route = (method: string, path: string): RestRoute => restRoutes.find((r) => r.method === method && r.path === path)!

/** Microseconds per call, over `n` calls after a warm-up. */
function perCall(n: number, f: () => unknown): number {
  for (let i = 0; i < n / 4; i++) f()
  const start = process.hrtime.bigint()
  for (let i = 0; i < n; i++) f()
  return Number(process.hrtime.bigint() - start) / n / 1_000
}

const req = (body: unknown): RestRequest => ({ params: {}, query: {}, body })

export async function benchRequests(): Promise<void> {
  const order = route('POST', '/perps/orders')
  const bulk = route('POST', '/perps/quotes/bulk')
  const orderReq = req({ marketId: 'BTC-PERP', side: 'buy', type: 'limit', price: '90000', quantity: '0.01', clientOrderId: 'my-1', timeInForce: 'gtc', postOnly: false })
  const bulkReq = req({
    marketId: 'BTC-PERP',
    quoteId: 'q',
    cancelAll: true,
    quotes: Array.from({ length: 50 }, (_, i) => ({ side: i % 2 ? 'sell' : 'buy', price: String(90_000 + i), quantity: '0.01', clientOrderId: `c${i}` })),
  })
  const badReq = req({ marketId: 'BTC-PERP', side: 'long', price: 90_000, quantity: '0.01' })
  const lines: Array<[string, number]> = [
    ['order body: check + variables', perCall(400_000, () => order.variables!(checkRequest(order, orderReq)))],
    ['bulk quote of 50: check + variables', perCall(20_000, () => bulk.variables!(checkRequest(bulk, bulkReq)))],
    [
      'refused order body (details.issues)',
      perCall(100_000, () => {
        try {
          checkRequest(order, badReq)
        } catch (err) {
          return err
        }
      }),
    ],
  ]
  console.log('REST request checks (zod schemas), µs per request:')
  for (const [name, us] of lines) console.log(`  ${name.padEnd(40)} ${us.toFixed(2)}`)
}
