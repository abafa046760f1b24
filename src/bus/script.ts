// Lua scripts run by SHA: sent as EVALSHA, with a transparent fallback to EVAL (which also caches the
// script in Redis) when Redis has not seen it or has forgotten it. Built-in commands only, not ioredis'
// defineCommand: a command defined on a connection after an auto-pipeline was opened on it is missing
// from that pipeline, and ioredis then fails the call and throws an uncaught exception.
import { createHash } from 'node:crypto'
import { Command, type Redis } from 'ioredis'

export type Script = (redis: Redis, keys: readonly string[], args: ReadonlyArray<string | number>) => Promise<unknown>

/**
 * `direct`: each call is written on the connection at once, past ioredis's auto-pipeline, whose
 * pipeline, promises and callbacks per command cost more than the script call itself. For callers that
 * already gather a loop iteration's calls into one (TurnBatch); anyone else gains from the auto-pipeline.
 */
export function defineScript(lua: string, opts: { direct?: boolean } = {}): Script {
  const sha = createHash('sha1').update(lua).digest('hex')
  if (opts.direct) {
    return async (redis, keys, args) => {
      try {
        return await sendDirect(redis, 'evalsha', sha, keys, args)
      } catch (err) {
        if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err
        return sendDirect(redis, 'eval', lua, keys, args)
      }
    }
  }
  return async (redis, keys, args) => {
    try {
      return await redis.evalsha(sha, keys.length, ...keys, ...args)
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err
      return redis.eval(lua, keys.length, ...keys, ...args)
    }
  }
}

/** A command as ioredis's own methods send it without auto-pipelining (offline queue, reconnects and all). */
function sendDirect(redis: Redis, name: 'evalsha' | 'eval', head: string, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
  const command = new Command(name, [head, keys.length, ...keys, ...args], { keyPrefix: redis.options.keyPrefix, replyEncoding: 'utf8' })
  void redis.sendCommand(command)
  return command.promise
}
