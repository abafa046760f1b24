// What the engine role counts: commands applied (rate() of it is commands per second), the size of each
// batch and the time its PostgreSQL commit took, and, read when scraped, whether this instance leads and
// how far the leader is behind the command stream: the age of the oldest command it has not committed
// yet, by Redis' clock (the clock that stamped the command's stream id), 0 when it is caught up.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client'
import { scrapeReading } from './registry.js'

export interface EngineProbe {
  readonly isLeader: boolean
  /** Seconds since the oldest uncommitted command was appended; 0 when none waits. */
  lagSeconds(): Promise<number>
}

const BATCH_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000]
const COMMIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

export class EngineMetrics {
  private readonly batchSize: Histogram
  private readonly commitSeconds: Histogram
  private readonly commands: Counter

  constructor(registers: Registry[], probe: EngineProbe) {
    this.batchSize = new Histogram({ name: 'exchange_engine_batch_size', help: 'Commands per engine batch (one PostgreSQL transaction)', buckets: BATCH_BUCKETS, registers })
    this.commitSeconds = new Histogram({
      name: 'exchange_engine_commit_duration_seconds',
      help: "Time to commit one batch's effects to PostgreSQL",
      buckets: COMMIT_BUCKETS,
      registers,
    })
    this.commands = new Counter({ name: 'exchange_engine_commands_total', help: 'Commands applied and committed by the engine leader', registers })
    new Gauge({
      name: 'exchange_engine_leader',
      help: '1 while this engine instance leads (holds the lease), 0 on a standby',
      registers,
      collect() {
        this.set(probe.isLeader ? 1 : 0)
      },
    })
    const lag = scrapeReading(() => (probe.isLeader ? probe.lagSeconds() : Promise.resolve(0)))
    new Gauge({
      name: 'exchange_engine_stream_lag_seconds',
      help: 'Age of the oldest command in the stream the leader has not committed yet (0: caught up; 0 on a standby; NaN: Redis did not answer)',
      registers,
      async collect() {
        this.set((await lag()) ?? Number.NaN)
      },
    })
  }

  /** One committed batch. */
  committed(size: number, commitSeconds: number): void {
    this.batchSize.observe(size)
    this.commitSeconds.observe(commitSeconds)
    this.commands.inc(size)
  }
}
