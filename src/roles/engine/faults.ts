// Test-only fault points (ENGINE_FAULT, refused unless NODE_ENV=test): the engine process kills or
// stops itself at an exact point of a batch, so process-level tests reproduce a crash between commit and
// publish, or a leader frozen inside its transaction, without racing a signal against the batch loop.
// A fault fires once, at the first such point after a test arms it (sets the Redis key engineFault).
import type { Redis } from 'ioredis'
import type { RedisKeys } from '../../bus/keys.js'
import type { EngineFault } from '../../config/env.js'
import type { EngineRunnerOptions } from './runner.js'

export function engineFaultHooks(fault: EngineFault, redis: Redis, keys: RedisKeys): Pick<EngineRunnerOptions, 'inCommit' | 'afterCommit'> {
  const fire = (signal: NodeJS.Signals) => async () => {
    if (await redis.getdel(keys.engineFault)) process.kill(process.pid, signal)
  }
  // after-commit: committed, nothing published; in-commit: the fencing update holds the offset row's lock
  return fault === 'kill-after-commit' ? { afterCommit: fire('SIGKILL') } : { inCommit: fire('SIGSTOP') }
}
