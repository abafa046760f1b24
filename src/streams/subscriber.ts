// Owns the contract between stream sources and transports: a source is opened with a Subscriber it pushes
// frames to; the transport (SSE, the /ws sockets, GraphQL's src/graphql/frameQueue.ts) writes them within
// the slow-consumer rule (src/streams/slowConsumer.ts).
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
