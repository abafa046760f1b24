// Test-only fault points (ENGINE_FAULT, refused unless NODE_ENV=test): the engine process kills itself at
// an exact point of a batch, so process-level tests reproduce a crash between commit and publish without
// racing a signal against the batch loop.
// A fault fires once, at the first such point after a test arms it (sets the Redis key engineFault).
import type { Redis } from 'ioredis'
import type { RedisKeys } from '../../bus/keys.js'
import type { EngineFault } from '../../config/env.js'
import type { EngineRunnerOptions } from './runner.js'

export function engineFaultHooks(_fault: EngineFault, redis: Redis, keys: RedisKeys): Pick<EngineRunnerOptions, 'afterCommit'> {
  const fire = (signal: NodeJS.Signals) => async () => {
    if (await redis.getdel(keys.engineFault)) process.kill(process.pid, signal)
  }
  // committed, nothing published
  return { afterCommit: fire('SIGKILL') }
}
