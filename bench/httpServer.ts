// The exchange process of the HTTP placement benchmark (bench/http.ts), started as `npm start` starts
// src/main.ts: configuration from the environment, the roles it names, a bundle run by node with the
// same flags; plus the bench's ceiling route (bench/httpRoutes.ts) and, with HTTP_BENCH_TRACE=1, the
// stage timers of bench/httpTrace.ts. It prints one JSON line `{"ready":url|null}` once started, and
// stops on SIGTERM.
import type { FastifyInstance } from 'fastify'
import { loadConfig } from '../src/config/env.js'
import { startExchange } from '../src/server.js'
import { registerCeiling } from './httpRoutes.js'

const trace = process.env.HTTP_BENCH_TRACE ? await import('./httpTrace.js') : null
trace?.installTrace()

const exchange = await startExchange(loadConfig(), {
  extraRoutes: (app: FastifyInstance) => {
    registerCeiling(app)
    trace?.registerTrace(app)
  },
})
console.log(JSON.stringify({ ready: exchange.url }))
process.on('SIGTERM', () => {
  exchange.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  )
})
