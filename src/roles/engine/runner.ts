// The engine role: the I/O shell around the pure engine. One instance leads (Redis lease + a fencing
// token claimed in PostgreSQL); the others wait as hot standbys. The leader
//   1. recovers: snapshot from Redis (or a rebuild from PostgreSQL), then replays the commands whose
//      effects PostgreSQL already has, re-sending their events and replies without writing anything;
//   2. loops: XREAD a batch → apply each command → one PostgreSQL transaction with the batch's effects,
//      its last stream id and the fencing token → mirrors, events, replies → a snapshot now and then.
// Any failure while leading drops the in-memory state and starts over from what is durable.
import type { Redis } from 'ioredis'
import type pg from 'pg'
import type { Logger } from 'pino'
import { loadSnapshot, saveSnapshot, streamEpoch } from '../../bus/engineSnapshots.js'
import { publishBatch, rewriteMirrors } from '../../bus/engineOutbox.js'
import type { RedisKeys } from '../../bus/keys.js'
import { Lease } from '../../bus/lease.js'
import { compareStreamIds } from '../../bus/streamIds.js'
import { newId } from '../../domain/ids.js'
import type { CommandEnvelope } from '../../engine/commands.js'
import { Engine } from '../../engine/engine.js'
import { restoreSnapshot, serializeSnapshot } from '../../engine/snapshot.js'
import { commitBatch, FencedOutError } from '../../store/batchWriter.js'
import { loadState } from '../../store/engineRebuild.js'
import { claimFencingToken, readOffset } from '../../store/engineOffsets.js'

export interface EngineRunnerOptions {
  redis: Redis
  /** A connection of its own: XREAD BLOCK holds it. */
  blocking: Redis
  pool: pg.Pool
  keys: RedisKeys
  log: Logger
  instanceId: string
  batchMax: number
  snapshotEvery: number
  snapshotMs: number
  leaseMs: number
  /** Test seam: awaited after a batch is applied in memory and before it is committed. */
  beforeCommit?: (streamId: string) => Promise<void>
  /** Called when a batch is refused because a newer leader holds the fencing token. */
  onFencedOut?: (streamId: string) => void
}

type Entry = [id: string, fields: string[]]

const BLOCK_MS = 200

export class EngineRunner {
  /** The live engine while leading; null as a standby. */
  engine: Engine | null = null
  private readonly lease: Lease
  private stopping = false
  private crashed = false
  private leading = false
  private token = ''
  private epoch = ''
  private lastId = '0-0'
  private committedId = '0-0'
  private sinceSnapshot = 0
  private lastSnapshotAt = 0
  private loop: Promise<void> | null = null
  private renewTimer: NodeJS.Timeout | null = null
  private wakeStandby: (() => void) | null = null

  constructor(private readonly o: EngineRunnerOptions) {
    this.lease = new Lease(o.redis, o.keys.engineLease, o.instanceId, o.leaseMs)
  }

  get isLeader(): boolean {
    return this.leading
  }

  /** Id of the last command whose effects are committed. */
  get committed(): string {
    return this.committedId
  }

  start(): void {
    this.loop ??= this.run()
  }

  /** Graceful: finishes the batch in hand, snapshots, gives up the lease. */
  async stop(): Promise<void> {
    this.stopping = true
    this.wakeStandby?.()
    await this.loop
    if (this.leading && !this.crashed) {
      await this.snapshot().catch((err) => this.o.log.warn({ err }, 'final snapshot failed'))
      await this.lease.release().catch(() => {})
    }
    this.stepDown()
  }

  /**
   * Simulates a process kill for tests: nothing more is committed, published, snapshotted or released;
   * the lease is left to lapse.
   */
  async crash(): Promise<void> {
    this.crashed = true
    this.stopping = true
    this.wakeStandby?.()
    this.o.blocking.disconnect()
    await this.loop?.catch(() => {})
    this.stepDown()
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      try {
        if (await this.lease.tryAcquire()) await this.lead()
        else await this.standby()
      } catch (err) {
        if (this.stopping) break
        this.o.log.error({ err, at: 'EngineRunner#run' }, 'engine failed while leading; recovering from durable state')
        this.stepDown()
        await this.standby()
      }
    }
  }

  private standby(): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wakeStandby = null
        resolve()
      }, Math.max(50, Math.floor(this.o.leaseMs / 4)))
      this.wakeStandby = () => {
        clearTimeout(t)
        resolve()
      }
    })
  }

  private async lead(): Promise<void> {
    this.leading = true
    this.renewTimer = setInterval(() => {
      this.lease.renew().then(
        (held) => {
          if (!held && this.leading) {
            this.o.log.warn({ at: 'EngineRunner#lead' }, 'engine lease lost; stepping down')
            this.leading = false
          }
        },
        () => {},
      )
    }, Math.max(50, Math.floor(this.o.leaseMs / 3)))
    this.token = await claimFencingToken(this.o.pool)
    this.o.log.info({ instance: this.o.instanceId, fencingToken: this.token }, 'engine leading')
    await this.recover()
    while (!this.stopping && this.leading) {
      const res = (await this.o.blocking.xread(
        'COUNT', this.o.batchMax, 'BLOCK', BLOCK_MS, 'STREAMS', this.o.keys.commands, this.lastId,
      )) as Array<[string, Entry[]]> | null
      if (this.crashed) return
      const entries = res?.[0]?.[1]
      if (entries && entries.length > 0) await this.process(entries)
      if (this.crashed) return
      await this.maybeSnapshot()
    }
    this.stepDown()
  }

  private stepDown(): void {
    if (this.renewTimer) clearInterval(this.renewTimer)
    this.renewTimer = null
    this.leading = false
    this.engine = null
  }

  /** Applies, commits, publishes one batch read from the stream. */
  private async process(entries: Entry[]): Promise<void> {
    const engine = this.engine!
    for (const [id, fields] of entries) this.applyEntry(engine, id, fields)
    const lastId = entries[entries.length - 1]![0]
    const changes = engine.takeChanges()
    await this.o.beforeCommit?.(lastId)
    if (this.crashed) return
    try {
      await commitBatch(this.o.pool, engine.state, changes, { epoch: this.epoch, streamId: lastId, fencingToken: this.token })
    } catch (err) {
      if (err instanceof FencedOutError) {
        this.o.log.warn({ at: 'EngineRunner#process', streamId: lastId }, 'batch refused: a newer leader holds the fencing token')
        this.leading = false
        this.o.onFencedOut?.(lastId)
        return
      }
      throw err
    }
    this.lastId = lastId
    this.committedId = lastId
    if (this.crashed) return
    await publishBatch(this.o.redis, this.o.keys, engine.state, changes)
    this.sinceSnapshot += entries.length
  }

  private applyEntry(engine: Engine, id: string, fields: string[]): void {
    const raw = fields[1]
    let env: CommandEnvelope
    try {
      env = JSON.parse(raw ?? '') as CommandEnvelope
    } catch {
      // Skipped identically on every replay, so determinism holds.
      this.o.log.error({ streamId: id }, 'unreadable command skipped')
      return
    }
    const reply = engine.apply(env)
    if (!reply.ok && reply.code === 'INTERNAL_ERROR') {
      this.o.log.error({ streamId: id, commandId: env.id, type: env.cmd?.type, error: reply.message }, 'command failed inside the engine')
    }
  }

  private async recover(): Promise<void> {
    const { redis, keys, pool, log } = this.o
    this.epoch = await streamEpoch(redis, keys, newId())
    const offset = await readOffset(pool)
    const committed = offset && offset.epoch === this.epoch ? offset.lastStreamId : '0-0'
    const snap = await loadSnapshot(redis, keys)
    let from: string
    if (snap && snap.epoch === this.epoch && compareStreamIds(snap.streamId, committed) <= 0) {
      this.engine = new Engine(restoreSnapshot(snap.state))
      from = snap.streamId
    } else {
      this.engine = new Engine(await loadState(pool))
      from = committed
    }
    // Replay what PostgreSQL has but the snapshot does not: no writes, events and replies re-sent
    // (the event log drops duplicates; waiting clients may still be there for their reply).
    let cursor = from
    while (compareStreamIds(cursor, committed) < 0) {
      const entries = (await redis.xrange(keys.commands, `(${cursor}`, committed, 'COUNT', this.o.batchMax)) as Entry[]
      if (entries.length === 0) {
        log.warn({ from: cursor, committed }, 'command stream lacks committed commands; rebuilding from PostgreSQL')
        this.engine = new Engine(await loadState(pool))
        break
      }
      for (const [id, fields] of entries) this.applyEntry(this.engine, id, fields)
      await publishBatch(redis, keys, this.engine.state, this.engine.takeChanges())
      cursor = entries[entries.length - 1]![0]
    }
    this.lastId = committed
    this.committedId = committed
    await rewriteMirrors(redis, keys, this.engine.state)
    this.sinceSnapshot = 0
    this.lastSnapshotAt = Date.now()
    log.info({ epoch: this.epoch, from, committed, markets: this.engine.state.markets.size }, 'engine recovered')
  }

  private async maybeSnapshot(): Promise<void> {
    if (this.sinceSnapshot === 0) return
    if (this.sinceSnapshot < this.o.snapshotEvery && Date.now() - this.lastSnapshotAt < this.o.snapshotMs) return
    await this.snapshot()
  }

  /** Saves the state as of the last committed batch and trims the stream below it. */
  private async snapshot(): Promise<void> {
    if (!this.engine || this.committedId === '0-0') return
    await saveSnapshot(this.o.redis, this.o.keys, this.epoch, this.committedId, serializeSnapshot(this.engine.state))
    await this.o.redis.xtrim(this.o.keys.commands, 'MINID', this.committedId)
    this.sinceSnapshot = 0
    this.lastSnapshotAt = Date.now()
  }
}
