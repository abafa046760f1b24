// Owns the transport of GraphQL subscriptions: a stream of src/streams handed out as an async iterator
// over a bounded queue (yoga's SSE, graphql's own execution), or pushed frame by frame to graphql-ws's
// sockets. The queue keeps the slow-consumer rule (src/streams/slowConsumer.ts) on its own bytes: past
// the limit a snapshot stream drops its queue and starts again from a fresh snapshot; any other ends
// with SLOW_CONSUMER.
import type { Frame } from '../streams/frame.js'
import { slowConsumer, SlowConsumerGate, UNMETERED, type Backlog, type SlowConsumerMeter } from '../streams/slowConsumer.js'
import type { OpenStream, StreamOpener, Subscriber } from '../streams/subscriber.js'

/**
 * A subscription's frames for GraphQL: pulled as an async iterator (yoga's SSE, graphql's own execution),
 * or pushed to a sink as they come once direct() is called (graphql-ws's fan-out, src/graphql/graphqlWs.ts).
 */
export class FrameQueue implements Subscriber, AsyncIterableIterator<Frame> {
  private readonly queue: Frame[] = []
  private bytes = 0
  private waiter: { resolve(r: IteratorResult<Frame>): void; reject(err: unknown): void } | null = null
  private done = false
  private error: unknown = null
  private sink: ((f: Frame) => void) | null = null
  private settle: { resolve(): void; reject(err: unknown): void } | null = null
  /** The size of the frame being admitted. */
  private incoming = 0
  private gate: SlowConsumerGate
  stream: OpenStream | null = null

  get ended(): boolean {
    return this.done
  }

  constructor(
    private readonly maxBytes: number,
    private readonly meter: SlowConsumerMeter,
  ) {
    this.gate = this.gateFor(null)
  }

  /** The stream opened: from now on, one that can resync is conflated rather than given up. */
  opened(stream: OpenStream): void {
    this.stream = stream
    this.gate = this.gateFor(stream.resync)
  }

  frame(f: Frame): void {
    if (this.done) return
    if (this.sink) return this.sink(f)
    if (this.waiter) {
      const w = this.waiter
      this.waiter = null
      w.resolve({ value: f, done: false })
      return
    }
    this.incoming = f.json.length
    if (!this.gate.admit()) return
    this.queue.push(f)
    this.bytes += f.json.length
  }

  /** The backlog is the queue with the frame that would join it; conflation drops the queue at once. */
  private gateFor(resync: (() => void) | null): SlowConsumerGate {
    const backlog: Backlog = {
      bytes: () => this.bytes + this.incoming,
      whenBelow: (_bytes, drained) => {
        this.meter.conflated(this.queue.length)
        this.queue.length = 0
        this.bytes = 0
        drained()
        return () => {}
      },
    }
    return new SlowConsumerGate(backlog, { maxBytes: this.maxBytes, meter: this.meter, resync, giveUp: () => this.end(slowConsumer()) })
  }

  end(err?: unknown): void {
    if (this.done) return
    this.done = true
    this.queue.length = 0
    this.stream?.close()
    if (this.settle) {
      if (err === undefined) this.settle.resolve()
      else this.settle.reject(err)
      return
    }
    const w = this.waiter
    this.waiter = null
    if (w) {
      if (err === undefined) w.resolve({ value: undefined, done: true })
      else w.reject(err)
    } else if (err !== undefined) {
      this.error = err
    }
  }

  next(): Promise<IteratorResult<Frame>> {
    const f = this.queue.shift()
    if (f) {
      this.bytes -= f.json.length
      return Promise.resolve({ value: f, done: false })
    }
    if (this.error !== null) {
      const err = this.error
      this.error = null
      return Promise.reject(err)
    }
    if (this.done) return Promise.resolve({ value: undefined, done: true })
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject }
    })
  }

  return(): Promise<IteratorResult<Frame>> {
    this.end()
    return Promise.resolve({ value: undefined, done: true })
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Frame> {
    return this
  }

  /**
   * Push mode: the queued frames, then every new one, go to `sink` at once (which then owns
   * backpressure). Settles when the stream ends: resolved when closed, rejected with why it failed.
   */
  direct(sink: (f: Frame) => void): Promise<void> {
    this.sink = sink
    this.bytes = 0
    for (const f of this.queue.splice(0)) sink(f)
    return new Promise((resolve, reject) => {
      if (this.error !== null) reject(this.error)
      else if (this.done) resolve()
      else this.settle = { resolve, reject }
    })
  }
}

/** Opens the stream and hands its frames out as an async iterator (what GraphQL subscriptions return). */
export async function frameIterator(open: StreamOpener, maxBytes: number, meter: SlowConsumerMeter = UNMETERED): Promise<AsyncIterableIterator<Frame>> {
  const q = new FrameQueue(maxBytes, meter)
  const stream = await open(q)
  q.opened(stream)
  // Ended while opening (revoked at once): nothing else will close it.
  if (q.ended) stream.close()
  return q
}
