// Owns the auth invalidation channel every API node listens to: when a key is revoked, a session ends
// (logout) or a user's rate tier changes, each node drops what it cached and closes the private streams
// that credential opened at once. Delivery is best effort (pub/sub); what must be strict is made strict
// elsewhere (the revoked-key marker, the deleted session record), so a lost message only delays a cache
// drop or leaves an already open stream running.
import type { Redis } from 'ioredis'
import type { Logger } from 'pino'
import type { RedisKeys } from '../bus/keys.js'

export type AuthEvent =
  | { type: 'key-revoked'; keyId: string }
  | { type: 'session-ended'; sessionId: string }
  | { type: 'rate-tier'; userId: string }

export class AuthEvents {
  private readonly handlers: Array<(e: AuthEvent) => void> = []

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly log: Logger,
  ) {}

  on(handler: (e: AuthEvent) => void): void {
    this.handlers.push(handler)
  }

  /** Delivers to this node's handlers directly (no wait for the round trip) and to every other node. */
  async publish(event: AuthEvent): Promise<void> {
    this.deliver(event)
    await this.redis.publish(this.keys.authEvents, JSON.stringify(event))
  }

  /** `sub` becomes a subscriber connection for this channel only. */
  async listen(sub: Redis): Promise<void> {
    sub.on('message', (channel: string, message: string) => {
      if (channel !== this.keys.authEvents) return
      try {
        this.deliver(JSON.parse(message) as AuthEvent)
      } catch (err) {
        this.log.warn({ err }, 'malformed auth event')
      }
    })
    await sub.subscribe(this.keys.authEvents)
  }

  private deliver(event: AuthEvent): void {
    for (const h of this.handlers) h(event)
  }
}
