// Publishing engine events: each event is appended to its stream's capped replay log under the id
// `0-{eventSeq}` and, only if that append succeeded, published live. Redis refuses an id that is not
// above the log's last one, so re-publishing a batch after a crash (replay) delivers nothing twice.
import type { Redis } from 'ioredis'
import { eventId, type EngineEvent } from '../engine/events.js'
import type { RedisKeys } from './keys.js'
import { defineScript } from './script.js'

export const REPLAY_FRAMES = 5_000

/** One event's publication in Lua, for this module's script and the engine outbox's (engineOutbox.ts):
 * appended to its log under 0-{seq}, published live only if the log took it. Returns 1 when published. */
export const PUBLISH_EVENT_LUA = `local function publishEvent(log, maxlen, channel, seq, envelope)
  local ok = redis.pcall('XADD', log, 'MAXLEN', '~', maxlen, '0-' .. seq, 'e', envelope)
  if type(ok) == 'table' and ok.err then return 0 end
  redis.call('PUBLISH', channel, envelope)
  return 1
end
`

// KEYS[i]            replay log (a stream) of event i
// ARGV[1]            approximate MAXLEN of every log
// ARGV[3i-1..3i+1]   event i's live channel, eventSeq (its log id is 0-eventSeq) and envelope JSON
// Returns the number of events published (the others were already in their log).
const publish = defineScript(`${PUBLISH_EVENT_LUA}local published = 0
for i = 1, #KEYS do
  local base = 1 + 3 * (i - 1)
  published = published + publishEvent(KEYS[i], ARGV[1], ARGV[base + 1], ARGV[base + 2], ARGV[base + 3])
end
return published`)

/** The spec's envelope, as every transport sends it: the engine's event with its id, without its stream. */
export type EventEnvelope = Omit<EngineEvent, 'stream'> & { eventId: string }

export function toEnvelope(e: EngineEvent): EventEnvelope {
  return {
    eventId: eventId(e),
    eventType: e.eventType,
    eventSeq: e.eventSeq,
    engineTs: e.engineTs,
    sourceTs: e.sourceTs,
    correlationId: e.correlationId,
    causationId: e.causationId,
    payload: e.payload,
  }
}

const jsonNumber = (n: number) => (Number.isFinite(n) ? String(n) : 'null')
const jsonStringOrNull = (v: string | null) => (v === null ? 'null' : JSON.stringify(v))

/** `JSON.stringify(toEnvelope(e))`, written without building the envelope object: the engine writes every
 * event once per batch. An event with a field the spec does not know (undefined) takes the general way. */
export function envelopeJson(e: EngineEvent): string {
  const payload = JSON.stringify(e.payload) as string | undefined
  if (payload === undefined || e.sourceTs === undefined || e.correlationId === undefined || e.causationId === undefined) {
    return JSON.stringify(toEnvelope(e))
  }
  const seq = jsonNumber(e.eventSeq)
  const ts = jsonNumber(e.engineTs)
  return `{"eventId":${JSON.stringify(eventId(e))},"eventType":${JSON.stringify(e.eventType)},"eventSeq":${seq},"engineTs":${ts},` +
    `"sourceTs":${e.sourceTs === null ? 'null' : jsonNumber(e.sourceTs)},"correlationId":${jsonStringOrNull(e.correlationId)},` +
    `"causationId":${jsonStringOrNull(e.causationId)},"payload":${payload}}`
}

/** Publishes events in order; returns how many were new. */
export async function publishEvents(redis: Redis, keys: RedisKeys, events: readonly EngineEvent[]): Promise<number> {
  if (events.length === 0) return 0
  const logKeys: string[] = []
  const args: Array<string | number> = [REPLAY_FRAMES]
  for (const e of events) {
    logKeys.push(keys.eventLog(e.stream))
    args.push(keys.eventChannel(e.stream), e.eventSeq, envelopeJson(e))
  }
  return (await publish(redis, logKeys, args)) as number
}
