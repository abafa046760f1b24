// Where the engine keeps its checkpoint in Redis: the serialized state as of one command-stream id,
// tagged with the stream's epoch so a snapshot from before a Redis wipe is never mixed with a new stream.
import type { Redis } from 'ioredis'
import type { EngineSnapshot } from '../engine/snapshot.js'
import type { RedisKeys } from './keys.js'

export interface StoredSnapshot {
  epoch: string
  streamId: string
  state: EngineSnapshot
}

export async function saveSnapshot(redis: Redis, keys: RedisKeys, epoch: string, streamId: string, stateJson: string): Promise<void> {
  // Built as text so the (possibly large) state is serialized once.
  await redis.set(keys.snapshot, `{"epoch":${JSON.stringify(epoch)},"streamId":${JSON.stringify(streamId)},"state":${stateJson}}`)
}

export async function loadSnapshot(redis: Redis, keys: RedisKeys): Promise<StoredSnapshot | null> {
  const raw = await redis.get(keys.snapshot)
  return raw ? (JSON.parse(raw) as StoredSnapshot) : null
}

/** The stream's epoch, created when absent (first start, or Redis lost its data). */
export async function streamEpoch(redis: Redis, keys: RedisKeys, fresh: string): Promise<string> {
  await redis.set(keys.epoch, fresh, 'NX')
  return (await redis.get(keys.epoch))!
}
