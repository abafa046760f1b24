// The exchange process of the HTTP placement benchmark (bench/http.ts), started as `npm start` starts
// src/main.ts: configuration from the environment, the roles it names, a bundle run by node with the
// same flags; plus the bench's ceiling route (bench/httpCeiling.ts). It prints one JSON line
// `{"ready":url|null}` once started, and stops on SIGTERM.
import { loadConfig } from '../src/config/env.js'
import { startExchange } from '../src/server.js'
import { registerCeiling } from './httpCeiling.js'

const exchange = await startExchange(loadConfig(), { extraRoutes: registerCeiling })
console.log(JSON.stringify({ ready: exchange.url }))
process.on('SIGTERM', () => {
  exchange.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  )
})
