// Owns the contract between stream sources and transports, and the transport for GraphQL: a source is
// opened with a Subscriber it pushes frames to; the transport decides what to do when its consumer falls
// behind. The GraphQL transport is an async iterator over a bounded queue: past the byte limit a stream
// that can start again from a snapshot drops its queue and does so (conflation); any other ends with
// SLOW_CONSUMER. Server memory per subscription stays bounded either way.
import { DomainError } from '../domain/errors.js'
import type { Frame } from './frame.js'

export interface Subscriber {
  frame(f: Frame): void
  /** The stream ended: revoked credential, slow consumer, or the bus failed. */
  end(err?: unknown): void
}

export interface OpenStream {
  close(): void
  /** Snapshot streams: drop the past and start again from a fresh snapshot. Null for event streams. */
  readonly resync: (() => void) | null
}

/** Validates its arguments (throwing the spec's DomainError before any frame) and starts the stream. */
export type StreamOpener = (sub: Subscriber) => Promise<OpenStream>

export const slowConsumer = () => new DomainError('SLOW_CONSUMER')

/**
 * What a transport reports of its slow consumers (src/metrics/streamMetrics.ts counts it per transport):
 * frames a conflating stream skipped (a fresh snapshot replaces them), and streams given up.
 */
export interface SlowConsumerMeter {
  conflated(frames: number): void
  dropped(): void
}

export const UNMETERED: SlowConsumerMeter = { conflated: () => {}, dropped: () => {} }

/**
 * A subscription's frames for GraphQL: pulled as an async iterator (yoga's SSE, graphql's own execution),
 * or pushed to a sink as they come once direct() is called (graphql-ws's fan-out, src/streams/graphqlWs.ts).
 */
export class FrameQueue implements Subscriber, AsyncIterableIterator<Frame> {
  private readonly queue: Frame[] = []
  private bytes = 0
  private waiter: { resolve(r: IteratorResult<Frame>): void; reject(err: unknown): void } | null = null
  private done = false
  private error: unknown = null
  private sink: ((f: Frame) => void) | null = null
  private settle: { resolve(): void; reject(err: unknown): void } | null = null
  stream: OpenStream | null = null

  get ended(): boolean {
    return this.done
  }

  constructor(
    private readonly maxBytes: number,
    private readonly meter: SlowConsumerMeter,
  ) {}

  frame(f: Frame): void {
    if (this.done) return
    if (this.sink) return this.sink(f)
    if (this.waiter) {
      const w = this.waiter
      this.waiter = null
      w.resolve({ value: f, done: false })
      return
    }
    this.queue.push(f)
    this.bytes += f.json.length
    if (this.bytes <= this.maxBytes) return
    const resync = this.stream?.resync
    if (resync) {
      this.meter.conflated(this.queue.length)
      this.queue.length = 0
      this.bytes = 0
      resync()
    } else {
      this.meter.dropped()
      this.end(slowConsumer())
    }
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
  q.stream = stream
  // Ended while opening (revoked at once): nothing else will close it.
  if (q.ended) stream.close()
  return q
}
