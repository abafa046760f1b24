// Lua scripts run by SHA: each is registered on a connection once (ioredis defineCommand), then sent
// as EVALSHA with a transparent fallback to EVAL when Redis has forgotten it.
import { createHash } from 'node:crypto'
import type { Redis } from 'ioredis'

export type Script = (redis: Redis, keys: readonly string[], args: ReadonlyArray<string | number>) => Promise<unknown>

export function defineScript(lua: string): Script {
  const name = `lua_${createHash('sha1').update(lua).digest('hex').slice(0, 16)}`
  return (redis, keys, args) => {
    const r = redis as unknown as Record<string, (...a: Array<string | number>) => Promise<unknown>>
    if (typeof r[name] !== 'function') redis.defineCommand(name, { lua })
    return r[name]!(keys.length, ...keys, ...args)
  }
}
