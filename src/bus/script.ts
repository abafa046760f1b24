// Lua scripts run by SHA: sent as EVALSHA, with a transparent fallback to EVAL (which also caches the
// script in Redis) when Redis has not seen it or has forgotten it. Built-in commands only, not ioredis'
// defineCommand: a command defined on a connection after an auto-pipeline was opened on it is missing
// from that pipeline, and ioredis then fails the call and throws an uncaught exception.
import { createHash } from 'node:crypto'
import type { Redis } from 'ioredis'

export type Script = (redis: Redis, keys: readonly string[], args: ReadonlyArray<string | number>) => Promise<unknown>

export function defineScript(lua: string): Script {
  const sha = createHash('sha1').update(lua).digest('hex')
  return async (redis, keys, args) => {
    try {
      return await redis.evalsha(sha, keys.length, ...keys, ...args)
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err
      return redis.eval(lua, keys.length, ...keys, ...args)
    }
  }
}
