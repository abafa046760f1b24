// The order-path rate limit (DESIGN.md §10): GCRA, a token bucket kept as one number per user in
// Redis, checked and advanced by one Lua script so every API node draws on the same pool atomically.
// The pool holds a full period's allowance (`limit` requests) and refills one request every
// period / limit, so `limit` calls in quick succession pass and the next one waits one interval.
import type { Redis } from 'ioredis'
import { defineScript } from './script.js'

// KEYS[1]  the user's pool (`rate:order:{userId}`): its theoretical arrival time (TAT), unix ms, float
// KEYS[2]  optional: the revocation marker of the API key the request came with; when it exists the
//          call is refused before anything is charged (returns {-1, 0, 0, 0}). So a cached key's
//          marker and the charge cost one round trip, not two.
// ARGV[1]  emission interval ms: period / limit, may be fractional
// ARGV[2]  period ms: the burst tolerance, a full period's allowance
// ARGV[3]  now, unix ms; empty to use Redis' own clock (one clock for every node), and then the key
//          expires when its pool is full again. Only tests give a time: a TTL runs on Redis' clock, which
//          a pinned clock does not follow, so their keys do not expire (the test clears its prefix).
// Returns  {allowed 1|0, remaining, retryAfterMs, resetMs}, integers (Lua numbers are truncated on
//          return, so they are rounded here): `remaining` requests could pass right now, `retryAfterMs`
//          until the next one may (0 when allowed), `resetMs` until the pool is full again.
// A refused call does not advance the TAT, so retrying early costs nothing.
const gcra = defineScript(`
if KEYS[2] and redis.call('EXISTS', KEYS[2]) == 1 then
  return {-1, 0, 0, 0}
end
local interval = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
end
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local new_tat = tat + interval
-- The epsilon absorbs float error in period / limit, so exactly \`limit\` calls fit in the burst.
if new_tat - now > period + 1e-6 then
  return {0, 0, math.ceil(new_tat - period - now), math.ceil(tat - now)}
end
if ARGV[3] == '' then
  redis.call('SET', KEYS[1], string.format('%.6f', new_tat), 'PX', math.ceil(new_tat - now))
else
  redis.call('SET', KEYS[1], string.format('%.6f', new_tat))
end
local remaining = math.floor((period - (new_tat - now)) / interval + 1e-6)
return {1, remaining, 0, math.ceil(new_tat - now)}
`)

export interface RateDecision {
  allowed: boolean
  /** Requests per period for this caller. */
  limit: number
  remaining: number
  retryAfterMs: number
  /** Until the pool is full again. */
  resetMs: number
}

export const RATE_PERIOD_MS = 60_000

export class OrderRateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly keyOf: (userId: string) => string,
    /** Tests pin the clock; production leaves it to Redis so every node shares one. */
    private readonly clock?: () => number,
  ) {}

  /** Counts one order-path request of `userId` against `limit` per minute. */
  async consume(userId: string, limit: number): Promise<RateDecision> {
    return (await this.run(userId, limit, null))!
  }

  /** As consume(), unless the key `marker` exists in Redis: then nothing is charged and the answer is null. */
  async consumeUnless(marker: string, userId: string, limit: number): Promise<RateDecision | null> {
    return this.run(userId, limit, marker)
  }

  private async run(userId: string, limit: number, marker: string | null): Promise<RateDecision | null> {
    const now = this.clock ? String(this.clock()) : ''
    const keys = marker === null ? [this.keyOf(userId)] : [this.keyOf(userId), marker]
    const r = (await gcra(this.redis, keys, [RATE_PERIOD_MS / limit, RATE_PERIOD_MS, now])) as number[]
    if (r[0] === -1) return null
    return { allowed: r[0] === 1, limit, remaining: r[1] ?? 0, retryAfterMs: r[2] ?? 0, resetMs: r[3] ?? 0 }
  }
}
