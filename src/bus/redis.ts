// Redis connections. A missing or unreachable Redis is reported in one line that says how to start it.
import { Redis } from 'ioredis'

export class RedisUnavailableError extends Error {}

function redacted(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@')
}

/** Opens a connection and waits until it is ready; fails fast (no retry loop) when Redis is down. */
export async function connectRedis(url: string, name: string): Promise<Redis> {
  const redis = new Redis(url, {
    connectionName: name,
    lazyConnect: true,
    maxRetriesPerRequest: null,
    enableAutoPipelining: true,
    retryStrategy: (times) => Math.min(times * 100, 2_000),
  })
  // Without a listener ioredis prints every reconnect error; connection loss is handled by callers.
  redis.on('error', () => {})
  try {
    await redis.connect()
  } catch (err) {
    redis.disconnect()
    throw new RedisUnavailableError(
      `Redis at ${redacted(url)} is unreachable (${(err as Error).message}); start it with ` +
        '`docker compose up -d redis` or `redis-server --daemonize yes`, or set REDIS_URL',
    )
  }
  return redis
}
