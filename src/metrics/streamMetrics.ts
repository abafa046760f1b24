// The stream families of an API node: open subscribers per stream (each opened stream counts until it is
// closed, whatever carries it), and what the transports do with slow consumers: frames a conflating
// stream skipped (a fresh snapshot replaces them) and streams given up (SLOW_CONSUMER).
import { Counter, Gauge, type Registry } from 'prom-client'
import type { SlowConsumerMeter } from '../streams/slowConsumer.js'

/** The transports that hold frames for a consumer: the spec's SSE routes, the /ws sockets, graphql-ws,
 * and the queue GraphQL subscriptions are pulled from (it fills only under yoga's SSE: graphql-ws writes
 * each frame straight to its socket). */
const TRANSPORTS = { sse: 'sse', ws: 'ws', graphqlWs: 'graphql-ws', graphqlSse: 'graphql-sse' } as const
type Transport = keyof typeof TRANSPORTS

export interface SubscriberCount {
  inc(): void
  dec(): void
}

export class StreamMetrics {
  readonly slowConsumers: Readonly<Record<Transport, SlowConsumerMeter>>
  private readonly subscribers: Gauge<'stream'>

  constructor(registers: Registry[]) {
    this.subscribers = new Gauge({ name: 'exchange_stream_subscribers', help: 'Open stream subscriptions on this API node, by stream', labelNames: ['stream'], registers })
    const conflated = new Counter({
      name: 'exchange_stream_conflated_frames_total',
      help: 'Frames a slow consumer skipped; it was sent a fresh snapshot instead',
      labelNames: ['transport'],
      registers,
    })
    const dropped = new Counter({
      name: 'exchange_stream_slow_consumer_drops_total',
      help: 'Streams ended with SLOW_CONSUMER: their consumer fell behind and the stream cannot resync',
      labelNames: ['transport'],
      registers,
    })
    const meter = (transport: string): SlowConsumerMeter => {
      const c = conflated.labels(transport)
      const d = dropped.labels(transport)
      c.inc(0)
      d.inc(0)
      return { conflated: (frames) => c.inc(frames), dropped: () => d.inc() }
    }
    this.slowConsumers = {
      sse: meter(TRANSPORTS.sse),
      ws: meter(TRANSPORTS.ws),
      graphqlWs: meter(TRANSPORTS.graphqlWs),
      graphqlSse: meter(TRANSPORTS.graphqlSse),
    }
  }

  /** The open-subscriber count of one stream (book, prices, trades, ...), shown from 0. */
  subscriberCount(stream: string): SubscriberCount {
    const count = this.subscribers.labels(stream)
    count.inc(0)
    return count
  }
}
