// The operator's pause of the simulated mark feed, `{p}feed:paused` (src/bus/keys.ts): set and cleared
// by `POST /admin/feed` on any API node, read by whichever node's scheduler runs the feed. The only
// code that reads or writes it.
import type { Redis } from 'ioredis'
import type { RedisKeys } from './keys.js'

export class FeedPause {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async set(paused: boolean): Promise<void> {
    if (paused) await this.redis.set(this.keys.feedPaused, '1')
    else await this.redis.del(this.keys.feedPaused)
  }

  async isPaused(): Promise<boolean> {
    return (await this.redis.exists(this.keys.feedPaused)) === 1
  }
}
