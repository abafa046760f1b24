// Entry point: parse the configuration, start the roles, stop cleanly on SIGINT/SIGTERM. A missing
// PostgreSQL or Redis, an HTTP port that cannot be bound, or an invalid setting, ends the process with
// one line that says what to do.
import { ConfigError, loadConfig } from './config/env.js'
import { RedisUnavailableError } from './bus/redis.js'
import { PortUnavailableError } from './http/port.js'
import { startExchange } from './server.js'
import { PostgresUnavailableError } from './store/pg.js'

async function main(): Promise<void> {
  const config = loadConfig()
  const offset = config.clockOffsetMs
  const exchange = await startExchange(config, offset === 0 ? {} : { clock: () => Date.now() + offset })
  let stopping = false
  const shutdown = (signal: string) => {
    if (stopping) return
    stopping = true
    exchange.log.info({ signal }, 'stopping')
    exchange.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  }
  process.on('SIGINT', () => shutdown('SIGINT'))
  process.on('SIGTERM', () => shutdown('SIGTERM'))
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof PostgresUnavailableError || err instanceof RedisUnavailableError || err instanceof PortUnavailableError) {
    console.error(err.message)
  } else {
    console.error(err)
  }
  process.exit(1)
})
