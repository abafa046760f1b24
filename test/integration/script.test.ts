// Lua scripts on an auto-pipelining connection: a script first used while other commands are queued in
// the same tick must run, without failing the call or throwing an uncaught exception. Scripts written
// directly (past the auto-pipeline) answer as the pipelined ones do: strings, not Buffers.
import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectRedis } from '../../src/bus/redis.js'
import { defineScript } from '../../src/bus/script.js'
import { REDIS_URL } from '../support/exchange.js'

let redis: Redis
beforeAll(async () => {
  redis = await connectRedis(REDIS_URL, 'script-test')
})
afterAll(() => redis?.disconnect())

describe.each([{ direct: false }, { direct: true }])('defineScript %o', (opts) => {
  it('runs a script first used in the same tick as other pipelined commands', async () => {
    const uncaught: unknown[] = []
    const onUncaught = (err: unknown) => uncaught.push(err)
    process.on('uncaughtException', onUncaught)
    try {
      // A script text of its own, so Redis has never seen it.
      const script = defineScript(`-- ${randomUUID()}\nreturn ARGV[1]`, opts)
      const results = await Promise.all([redis.ping(), script(redis, [], ['x']), redis.ping(), script(redis, [], ['y'])])
      expect(results).toEqual(['PONG', 'x', 'PONG', 'y'])
      await new Promise((resolve) => setImmediate(resolve))
    } finally {
      process.off('uncaughtException', onUncaught)
    }
    expect(uncaught).toEqual([])
  })

  it('falls back to EVAL when Redis has flushed its script cache, and passes errors through', async () => {
    const script = defineScript(`return redis.call('INCRBY', KEYS[1], ARGV[1])`, opts)
    const key = `script-test:${Math.random()}`
    expect(await script(redis, [key], [2])).toBe(2)
    await redis.script('FLUSH')
    expect(await script(redis, [key], [3])).toBe(5)
    await redis.del(key)
    expect(await defineScript(`return {KEYS[1], ARGV[1], 7}`, opts)(redis, ['k'], ['é'])).toEqual(['k', 'é', 7])
    await expect(defineScript(`return redis.call('NOPE')`, opts)(redis, [], [])).rejects.toThrow(/Unknown Redis command|unknown command/i)
  })
})
