// Owns the slow-consumer rule, for every transport (the spec's SSE routes, the /ws sockets, graphql-ws and
// the queue GraphQL subscriptions are pulled from): a frame is written only while the consumer's unsent
// bytes stay within STREAM_MAX_BUFFER_BYTES. Past it, a stream that can start again from a snapshot skips
// frames until its backlog has drained, then asks for a fresh snapshot (conflation); any other stream is
// given up, and the transport ends it with SLOW_CONSUMER. Server memory per subscriber stays bounded
// either way. A transport says only how its backlog is measured and how it learns that it drained.
import type { Logger } from 'pino'
import { DomainError } from '../domain/errors.js'

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

/** A consumer's unsent bytes, as its transport holds them. */
export interface Backlog {
  bytes(): number
  /** Calls `drained` once the backlog is at most `bytes`, or may drop it at once; returns a cancel. */
  whenBelow(bytes: number, drained: () => void): () => void
}

export interface SlowConsumerOptions {
  maxBytes: number
  meter: SlowConsumerMeter
  /** Fresh snapshot on demand; null for event streams. */
  resync: (() => void) | null
  /** The consumer is too slow for a stream that cannot skip: the transport ends it. */
  giveUp(): void
  /** Where the decisions are logged (info), with what names the stream. */
  log?: { logger: Logger; at: string; fields?: Record<string, unknown> }
}

export class SlowConsumerGate {
  private stale = false
  private cancelWait: (() => void) | null = null
  private closed = false

  constructor(
    private readonly backlog: Backlog,
    private readonly o: SlowConsumerOptions,
  ) {}

  /** Whether the next frame may be written now; past the limit, starts skipping or gives the stream up. */
  admit(): boolean {
    if (this.closed) return false
    if (this.stale) {
      this.o.meter.conflated(1)
      return false
    }
    const buffered = this.backlog.bytes()
    if (buffered <= this.o.maxBytes) return true
    const resync = this.o.resync
    if (!resync) {
      this.note(buffered, 'slow stream consumer disconnected')
      this.o.meter.dropped()
      this.o.giveUp()
      return false
    }
    this.note(buffered, 'slow stream consumer conflated')
    this.o.meter.conflated(1)
    this.stale = true
    const cancel = this.backlog.whenBelow(this.o.maxBytes / 2, () => {
      this.cancelWait = null
      this.stale = false
      if (!this.closed) resync()
    })
    // A backlog that dropped itself at once has already resumed.
    if (this.stale) this.cancelWait = cancel
    return false
  }

  close(): void {
    this.closed = true
    this.cancelWait?.()
    this.cancelWait = null
  }

  private note(bufferedBytes: number, msg: string): void {
    const log = this.o.log
    if (log) log.logger.info({ at: log.at, ...log.fields, bufferedBytes }, msg)
  }
}
