// A leadership lease in Redis: SET NX PX to take it, compare-and-extend to keep it, compare-and-delete
// to give it up. Only the holder's own value can extend or release it, so a deposed leader cannot
// steal it back. The lease elects; the fencing token in PostgreSQL is what makes a late write harmless.
import type { Redis } from 'ioredis'
import { defineScript } from './script.js'

// KEYS[1] lease key; ARGV[1] owner; ARGV[2] ttl ms. Returns 1 when extended, 0 when not the owner.
const renew = defineScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`)

// KEYS[1] lease key; ARGV[1] owner. Returns 1 when released, 0 when not the owner.
const release = defineScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`)

export class Lease {
  constructor(
    private readonly redis: Redis,
    readonly key: string,
    readonly owner: string,
    readonly ttlMs: number,
  ) {}

  async tryAcquire(): Promise<boolean> {
    return (await this.redis.set(this.key, this.owner, 'PX', this.ttlMs, 'NX')) === 'OK'
  }

  async renew(): Promise<boolean> {
    return (await renew(this.redis, [this.key], [this.owner, this.ttlMs])) === 1
  }

  async release(): Promise<boolean> {
    return (await release(this.redis, [this.key], [this.owner])) === 1
  }

  async holder(): Promise<string | null> {
    return this.redis.get(this.key)
  }
}
