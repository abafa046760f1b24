// Owns this API node's one reading of the engine's event bus: a single dedicated Redis subscriber
// connection, opened on first use, with reference-counted channels (`{p}ev:{stream}` is subscribed when
// its first local consumer arrives and unsubscribed after the last leaves). Each message is parsed once
// and the same Frame handed to every local consumer. Replay reads the capped log `{p}evlog:{stream}`,
// whose entry ids are `0-{eventSeq}` (src/bus/eventLog.ts).
import type { Redis } from 'ioredis'
import type { Logger } from 'pino'
import type { RedisKeys } from '../bus/keys.js'
import { connectRedis } from '../bus/redis.js'
import { parsedFrame, type Frame } from './frame.js'

export type FrameListener = (frame: Frame) => void

interface Channel {
  readonly stream: string
  readonly listeners: Set<FrameListener>
  /** Settles once Redis confirmed the SUBSCRIBE: from then on every event of the stream reaches us. */
  readonly ready: Promise<unknown>
}

export interface EventHubDeps {
  redisUrl: string
  /** The node's command connection (XRANGE); the hub opens its own subscriber connection. */
  redis: Redis
  keys: RedisKeys
  log: Logger
}

export class EventHub {
  private sub: Promise<Redis> | null = null
  private closed = false
  /** By channel name. */
  private readonly channels = new Map<string, Channel>()

  constructor(private readonly d: EventHubDeps) {}

  /** Live events of `stream` from the moment the returned promise settles; call the result to stop. */
  async listen(stream: string, listener: FrameListener): Promise<() => void> {
    if (this.closed) throw new Error('event hub is closed')
    const name = this.d.keys.eventChannel(stream)
    let channel = this.channels.get(name)
    if (!channel) {
      const ready = this.connection().then((sub) => sub.subscribe(name))
      channel = { stream, listeners: new Set(), ready }
      this.channels.set(name, channel)
    }
    const c = channel
    c.listeners.add(listener)
    const stop = () => {
      if (!c.listeners.delete(listener) || c.listeners.size > 0) return
      if (this.channels.get(name) === c) this.channels.delete(name)
      // A new listener arriving meanwhile subscribes again after this, on the same ordered connection.
      void this.connection()
        .then((sub) => sub.unsubscribe(name))
        .catch(() => {})
    }
    try {
      await c.ready
    } catch (err) {
      stop()
      throw err
    }
    return stop
  }

  /** Local consumers listening, over all channels (what open subscriptions hold on this node). */
  get listenerCount(): number {
    let n = 0
    for (const c of this.channels.values()) n += c.listeners.size
    return n
  }

  /** Logged events with afterSeq < eventSeq < beforeSeq (to the end of the log without beforeSeq). */
  async range(stream: string, afterSeq: number, beforeSeq?: number): Promise<Frame[]> {
    const end = beforeSeq === undefined ? '+' : `(0-${beforeSeq}`
    if (beforeSeq !== undefined && beforeSeq <= afterSeq + 1) return []
    const entries = await this.d.redis.xrange(this.d.keys.eventLog(stream), `(0-${afterSeq}`, end)
    return entries.map(([, fields]) => parsedFrame(fields[1]!))
  }

  /** Sequence of the newest logged event of the stream; null when its log is empty. */
  async lastSeq(stream: string): Promise<number | null> {
    const [entry] = await this.d.redis.xrevrange(this.d.keys.eventLog(stream), '+', '-', 'COUNT', 1)
    return entry ? Number(entry[0].slice(2)) : null
  }

  async close(): Promise<void> {
    this.closed = true
    this.channels.clear()
    const sub = this.sub
    this.sub = null
    if (sub) (await sub.catch(() => null))?.disconnect()
  }

  private connection(): Promise<Redis> {
    if (!this.sub) {
      const sub = connectRedis(this.d.redisUrl, 'stream-events').then((r) => {
        r.on('message', (channel: string, message: string) => this.deliver(channel, message))
        return r
      })
      // A failed connect is retried by the next listener.
      sub.catch(() => {
        if (this.sub === sub) this.sub = null
      })
      this.sub = sub
    }
    return this.sub
  }

  private deliver(channelName: string, message: string): void {
    const channel = this.channels.get(channelName)
    if (!channel) return
    let frame: Frame
    try {
      frame = parsedFrame(message)
    } catch (err) {
      this.d.log.warn({ err, channel: channelName }, 'malformed event on the bus')
      return
    }
    for (const listener of channel.listeners) {
      try {
        listener(frame)
      } catch (err) {
        this.d.log.error({ err, stream: channel.stream }, 'stream consumer failed')
      }
    }
  }
}
