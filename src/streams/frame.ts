// Owns the unit every stream transport sends: one event in the spec's envelope, parsed once and
// serialized once, whatever number of subscribers it goes to. SSE text is built on first use and kept,
// so a thousand SSE subscribers of a book cost one string, as a thousand WebSocket subscribers do.
import type { EventEnvelope } from '../bus/eventLog.js'
import { eventId, type EventType } from '../engine/events.js'

export interface Frame {
  /** The envelope; the same object for every subscriber (GraphQL results are memoized on it). */
  readonly env: EventEnvelope
  /** The envelope as JSON: what WebSocket subscribers receive and SSE `data:` carries. */
  readonly json: string
  /** The payload in this node's own shape, where GraphQL types want it and it differs from the wire's. */
  readonly data?: unknown
  /** `id:`/`event:`/`data:` block, built by sseText() on first use. */
  sse?: string
}

export const seqOf = (f: Frame): number => f.env.eventSeq

/** A frame from the JSON the engine published (the envelope as is). */
export function parsedFrame(json: string): Frame {
  return { env: JSON.parse(json) as EventEnvelope, json }
}

export interface FrameFields {
  eventType: EventType
  eventSeq: number
  engineTs: number
  sourceTs?: number | null
  correlationId?: string | null
  causationId?: string | null
  payload: unknown
  data?: unknown
}

/** A frame this node makes itself: snapshots, computed board and tick updates, resync notices. */
export function makeFrame(f: FrameFields): Frame {
  const env: EventEnvelope = {
    eventId: eventId(f),
    eventType: f.eventType,
    eventSeq: f.eventSeq,
    engineTs: f.engineTs,
    sourceTs: f.sourceTs ?? null,
    correlationId: f.correlationId ?? null,
    causationId: f.causationId ?? null,
    payload: f.payload,
  }
  return f.data === undefined ? { env, json: JSON.stringify(env) } : { env, json: JSON.stringify(env), data: f.data }
}

/**
 * Sent when a replay cannot be served (the client's sequence left the 5,000-frame buffer, or is from
 * another stream lifetime): the client refetches its state; events continue after `eventSeq`.
 */
export function resyncFrame(eventSeq: number, requestedFromSeq: number | null, now = Date.now()): Frame {
  return makeFrame({ eventType: 'ResyncRequired', eventSeq, engineTs: now, payload: { kind: 'resync', fromSeq: requestedFromSeq, resumesAfterSeq: eventSeq } })
}

/** The frame as one SSE event: `id` is the sequence, so a reconnecting EventSource sends Last-Event-ID. */
export function sseText(f: Frame): string {
  return (f.sse ??= `id: ${f.env.eventSeq}\nevent: ${f.env.eventType}\ndata: ${f.json}\n\n`)
}
