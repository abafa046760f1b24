// The order-path rate limit (DESIGN.md §10): GCRA, a token bucket kept as one number per user in
// Redis, checked and advanced by one Lua script so every API node draws on the same pool atomically.
// The pool holds a full period's allowance (`limit` requests) and refills one request every
// period / limit, so `limit` calls in quick succession pass and the next one waits one interval.
import type { Redis } from 'ioredis'
import { defineScript } from './script.js'
import { TurnBatch } from './turnBatch.js'

// One charge, for a user's pool:
//   pool     the user's pool (`rate:order:{userId}`): its theoretical arrival time (TAT), unix ms, float
//   marker   optional: the revocation marker of the API key the request came with; when it exists the
//            call is refused before anything is charged (returns {-1, 0, 0, 0}). So a cached key's
//            marker and the charge cost one round trip, not two.
//   interval emission interval ms: period / limit, may be fractional
//   period   period ms: the burst tolerance, a full period's allowance
//   now      unix ms; empty to use Redis' own clock (one clock for every node), and then the key
//            expires when its pool is full again. Only tests give a time: a TTL runs on Redis' clock, which
//            a pinned clock does not follow, so their keys do not expire (the test clears its prefix).
// Returns  {allowed 1|0, remaining, retryAfterMs, resetMs}, integers (Lua numbers are truncated on
//          return, so they are rounded here): `remaining` requests could pass right now, `retryAfterMs`
//          until the next one may (0 when allowed), `resetMs` until the pool is full again.
// A refused call does not advance the TAT, so retrying early costs nothing.
// The charges of one loop turn go as one script call (TurnBatch), each charged in turn as separate calls
// were, each with its own clock reading, and each answered alone: a charge that fails fails alone.
// ARGV[1] the number of charges; then per charge: its number of keys (1, or 2 with a marker), interval,
// period, now. KEYS: per charge its pool, then its marker if any. Returns one answer per charge.
const gcra = defineScript(`
local function charge(pool, marker, interval, period, nowArg)
  if marker and redis.call('EXISTS', marker) == 1 then
    return {-1, 0, 0, 0}
  end
  local now = tonumber(nowArg)
  if not now then
    local t = redis.call('TIME')
    now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
  end
  local tat = tonumber(redis.call('GET', pool) or '0')
  if tat < now then tat = now end
  local new_tat = tat + interval
  -- The epsilon absorbs float error in period / limit, so exactly \`limit\` calls fit in the burst.
  if new_tat - now > period + 1e-6 then
    return {0, 0, math.ceil(new_tat - period - now), math.ceil(tat - now)}
  end
  if nowArg == '' then
    redis.call('SET', pool, string.format('%.6f', new_tat), 'PX', math.ceil(new_tat - now))
  else
    redis.call('SET', pool, string.format('%.6f', new_tat))
  end
  local remaining = math.floor((period - (new_tat - now)) / interval + 1e-6)
  return {1, remaining, 0, math.ceil(new_tat - now)}
end
local out = {}
local k = 1
local a = 2
for i = 1, tonumber(ARGV[1]) do
  local nkeys = tonumber(ARGV[a])
  local marker = nil
  if nkeys == 2 then marker = KEYS[k + 1] end
  local ok, r = pcall(charge, KEYS[k], marker, tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), ARGV[a + 3])
  if ok then out[i] = r else out[i] = redis.error_reply(type(r) == 'table' and r.err or tostring(r)) end
  k = k + nkeys
  a = a + 4
end
return out
`, { direct: true })

interface Charge {
  pool: string
  marker: string | null
  interval: number
  now: string
}

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
  /** The charges of one loop turn, one script call. */
  private readonly charges = new TurnBatch<Charge, number[]>(async (charges) => {
    const keys: string[] = []
    const args: Array<string | number> = [charges.length]
    for (const c of charges) {
      keys.push(c.pool)
      if (c.marker !== null) keys.push(c.marker)
      args.push(c.marker === null ? 1 : 2, c.interval, RATE_PERIOD_MS, c.now)
    }
    return (await gcra(this.redis, keys, args)) as Array<number[] | Error>
  })

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
    const r = await this.charges.add({ pool: this.keyOf(userId), marker, interval: RATE_PERIOD_MS / limit, now })
    if (r[0] === -1) return null
    return { allowed: r[0] === 1, limit, remaining: r[1] ?? 0, retryAfterMs: r[2] ?? 0, resetMs: r[3] ?? 0 }
  }
}
