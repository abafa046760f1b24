// The engine role: the I/O shell around the pure engine. One instance leads (Redis lease + a fencing
// token claimed in PostgreSQL); the others wait as hot standbys. The leader
//   1. recovers: snapshot from Redis (or a rebuild from PostgreSQL), then replays the commands whose
//      effects PostgreSQL already has, re-sending their events and replies without writing anything;
//   2. loops: XREAD → apply each command; and, one batch at a time, in order: seal what the commands
//      applied since the last batch changed → one PostgreSQL transaction with the batch's effects, its
//      last stream id and the fencing token → mirrors, events, replies → a snapshot now and then.
//      Reading and applying go on while a batch commits (group commit): the batch in flight was sealed,
//      written out from the state as it left it, so the state may move on. One batch commits at a time,
//      in order; the next seals when the one before has committed (whatever was applied meanwhile), and
//      nothing of a batch is sent before its COMMIT returns. Replies to this process's own API skip Redis.
// A connection lost while committing is ridden out in place: the stored offset says whether the COMMIT
// happened, and the batch is retried (still fenced) only if it did not. Any other failure while leading,
// or a database away for longer than a lease, drops the in-memory state, gives up the lease and starts
// over from what is durable.
import { performance } from 'node:perf_hooks'
import type { Redis } from 'ioredis'
import type pg from 'pg'
import type { Logger } from 'pino'
import type { Registry } from 'prom-client'
import { loadSnapshot, saveSnapshot, streamEpoch } from '../../bus/engineSnapshots.js'
import { publishBatch, rewriteMirrors, sealPublication, sendPublication, type LocalReply, type SealedPublication } from '../../bus/engineOutbox.js'
import type { RedisKeys } from '../../bus/keys.js'
import { Lease } from '../../bus/lease.js'
import { compareStreamIds } from '../../bus/streamIds.js'
import { newId } from '../../domain/ids.js'
import { EngineMetrics } from '../../metrics/engineMetrics.js'
import { registersFor } from '../../metrics/registry.js'
import type { CommandEnvelope } from '../../engine/commands.js'
import { Engine } from '../../engine/engine.js'
import { restoreSnapshot, serializeSnapshot } from '../../engine/snapshot.js'
import { commitSealed, FencedOutError, sealBatch, type SealedBatch } from '../../store/batchWriter.js'
import { loadState } from '../../store/engineRebuild.js'
import { batchOutcome, claimFencingToken, readOffset } from '../../store/engineOffsets.js'
import { isConnectionLoss, isLockTimeout } from '../../store/pg.js'

export interface EngineRunnerOptions {
  redis: Redis
  /** A connection of its own: XREAD BLOCK holds it. */
  blocking: Redis
  /** The engine's own pool: its sessions carry the idle-in-transaction and lock timeouts failover relies on. */
  pool: pg.Pool
  keys: RedisKeys
  log: Logger
  instanceId: string
  batchMax: number
  snapshotEvery: number
  snapshotMs: number
  leaseMs: number
  /** Where the engine's metric families go (src/metrics/engineMetrics.ts); none: counted unseen. */
  registry?: Registry
  /** Test seam: awaited after a batch is applied in memory and before it is committed. */
  beforeCommit?: (streamId: string) => Promise<void>
  /** Test seam: awaited inside the batch's transaction, once the fencing update holds the offset row. */
  inCommit?: (streamId: string) => Promise<void>
  /** Test seam: awaited once the batch is committed, before anything of it is published. */
  afterCommit?: (streamId: string) => Promise<void>
  /** Called when a batch is refused because a newer leader holds the fencing token. */
  onFencedOut?: (streamId: string) => void
}

type Entry = [id: string, fields: string[]]

/** A batch applied in memory and sealed: everything its commit and publication need, nothing live. */
interface Sealed {
  lastId: string
  commands: number
  transaction: SealedBatch
  publication: SealedPublication
}

/** Where replies to this process's own API go without Redis (see sealPublication). */
export interface LocalReplies {
  node: string
  deliver(replies: LocalReply[]): void
}

/** What the engine's PostgreSQL sessions call themselves in pg_stat_activity. */
export const ENGINE_APPLICATION_NAME = 'exchange-engine'

const BLOCK_MS = 200
/** Backoff between attempts to reach PostgreSQL again after a lost connection. */
const RETRY_MIN_MS = 50
const RETRY_MAX_MS = 1_000

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export class EngineRunner {
  /** The live engine while leading; null as a standby. */
  engine: Engine | null = null
  private readonly lease: Lease
  private readonly metrics: EngineMetrics
  private stopping = false
  private crashed = false
  private leading = false
  private token = ''
  private epoch = ''
  /** The last command read and applied (the XREAD cursor); ahead of committedId while a batch is open or in flight. */
  private lastId = '0-0'
  private committedId = '0-0'
  /** Commands applied since the last seal. */
  private open = 0
  /** The sealed batch being committed, if any. */
  private inFlight: Promise<void> | null = null
  /** Settles once every publication sent so far has (their failures go to `failure`). */
  private published: Promise<void> = Promise.resolve()
  /** Why the batch in flight failed: the leader steps down. */
  private failure: { err: unknown } | null = null
  private localReplies: LocalReplies | null = null
  private sinceSnapshot = 0
  private lastSnapshotAt = 0
  private loop: Promise<void> | null = null
  private renewTimer: NodeJS.Timeout | null = null
  private wakeStandby: (() => void) | null = null

  constructor(private readonly o: EngineRunnerOptions) {
    this.lease = new Lease(o.redis, o.keys.engineLease, o.instanceId, o.leaseMs)
    this.metrics = new EngineMetrics(registersFor(o.registry ?? null), this)
  }

  /** Replies to `node` are handed to `deliver` in-process, once their batch is committed and published. */
  replyLocally(local: LocalReplies): void {
    this.localReplies = local
  }

  get isLeader(): boolean {
    return this.leading
  }

  /** Id of the last command whose effects are committed. */
  get committed(): string {
    return this.committedId
  }

  /** Seconds since the oldest command not committed yet was appended, by Redis' clock; 0 when none waits. */
  async lagSeconds(): Promise<number> {
    const { redis, keys } = this.o
    const [next, [seconds, micros]] = await Promise.all([redis.xrange(keys.commands, `(${this.committedId}`, '+', 'COUNT', 1), redis.time()])
    const id = next[0]?.[0]
    if (id === undefined) return 0
    const nowMs = Number(seconds) * 1000 + Number(micros) / 1000
    return Math.max(0, nowMs - Number(id.slice(0, id.indexOf('-')))) / 1000
  }

  start(): void {
    if (this.loop) return
    this.o.log.info({ instance: this.o.instanceId }, 'engine started; leading or standing by')
    this.loop = this.run()
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
        // Another instance may be able to do better (say, this one lost its route to PostgreSQL).
        await this.lease.release().catch(() => {})
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
    const token = await this.claim()
    if (token === null) return this.stepDown()
    this.token = token
    this.o.log.info({ instance: this.o.instanceId, fencingToken: this.token }, 'engine leading')
    await this.recover()
    this.failure = null
    this.published = Promise.resolve()
    // The commit the last XREAD overlapped: one read per batch in flight, as one per batch in a serial loop
    // (a read is a round trip, ~30 µs of this process's CPU; reading on while one commit lasts only cut
    // batches into more, smaller ones).
    let readDuring: Promise<void> | null = null
    try {
      while (!this.stopping && this.leading && !this.failure) {
        // A full open batch, or one read already in this commit's time, waits for it (which then takes it).
        if (this.inFlight && (this.open >= this.o.batchMax || readDuring === this.inFlight)) {
          await this.inFlight
          continue
        }
        if (this.snapshotDue()) {
          await this.settle()
          if (this.failure || this.crashed) break
          await this.snapshot()
          continue
        }
        readDuring = this.inFlight
        const res = (await this.o.blocking.xread(
          'COUNT', this.o.batchMax - this.open, 'BLOCK', BLOCK_MS, 'STREAMS', this.o.keys.commands, this.lastId,
        )) as Array<[string, Entry[]]> | null
        if (this.crashed) return
        const entries = res?.[0]?.[1]
        if (!entries || entries.length === 0 || this.failure || !this.leading) continue
        const engine = this.engine!
        for (const [id, fields] of entries) this.applyEntry(engine, id, fields)
        this.open += entries.length
        this.lastId = entries[entries.length - 1]![0]
        this.kick()
      }
      // Graceful: the commands applied are committed and answered before the lease is given up.
      if (this.stopping && this.leading && !this.crashed) await this.settle()
    } finally {
      // Nothing of this leadership may still be committing or publishing when the next one starts.
      while (this.inFlight) await this.inFlight
      await this.published
      this.open = 0
    }
    // (Set by the batch in flight, which the compiler cannot see.)
    const failure = this.failure as { err: unknown } | null
    if (failure) throw failure.err
    this.stepDown()
  }

  /** Seals the open batch and starts committing it, unless a batch is in flight (it kicks again when done). */
  private kick(): void {
    if (this.inFlight || this.open === 0 || this.failure || this.crashed || !this.leading) return
    const engine = this.engine!
    const changes = engine.takeChanges()
    const at = { epoch: this.epoch, streamId: this.lastId, fencingToken: this.token }
    const sealed: Sealed = {
      lastId: this.lastId,
      commands: this.open,
      transaction: sealBatch(engine.state, changes, at),
      publication: sealPublication(this.o.keys, engine.state, changes, this.localReplies?.node ?? null),
    }
    this.open = 0
    this.inFlight = this.process(sealed).then(
      () => {
        this.inFlight = null
        this.kick()
      },
      (err: unknown) => {
        this.inFlight = null
        this.failure = { err }
      },
    )
  }

  /** Until nothing applied is uncommitted or unpublished (or a batch failed). */
  private async settle(): Promise<void> {
    for (;;) {
      this.kick()
      if (this.inFlight) {
        await this.inFlight
        continue
      }
      const published = this.published
      await published
      if (published === this.published) return
    }
  }

  /**
   * Takes the next fencing token. A deposed leader frozen inside a batch holds the offset row's lock until
   * PostgreSQL ends its idle transaction; each attempt waits at most the pool's lock_timeout, and the claim
   * is retried while the lease is still ours.
   */
  private async claim(): Promise<string | null> {
    for (;;) {
      try {
        return await claimFencingToken(this.o.pool)
      } catch (err) {
        if (!isLockTimeout(err)) throw err
        if (!this.leading || this.stopping) return null
        this.o.log.warn({ at: 'EngineRunner#claim' }, 'the offset row is locked by a previous leader; claiming again')
      }
    }
  }

  private stepDown(): void {
    if (this.renewTimer) clearInterval(this.renewTimer)
    this.renewTimer = null
    this.leading = false
    this.engine = null
  }

  /**
   * Commits one sealed batch, then sends its publication at once, as the serial loop did: the next batch
   * may commit while this one publishes. Publications still go out in commit order (one connection, each
   * written as its COMMIT returns), and a batch committed is published in the same turn, so a kill leaves
   * no wider window of committed but unpublished batches than one (recovery's replay re-sends that one).
   */
  private async process(sealed: Sealed): Promise<void> {
    const { lastId, commands, transaction } = sealed
    await this.o.beforeCommit?.(lastId)
    if (this.crashed) return
    const commitStart = performance.now()
    if ((await this.commit(transaction, lastId)) === 'fenced-out') {
      this.o.log.warn({ at: 'EngineRunner#process', streamId: lastId }, 'batch refused: a newer leader holds the fencing token; stepping down')
      this.leading = false
      this.o.onFencedOut?.(lastId)
      return
    }
    this.committedId = lastId
    this.metrics.committed(commands, (performance.now() - commitStart) / 1000)
    await this.o.afterCommit?.(lastId)
    if (this.crashed) return
    const publishing = this.publish(sealed)
    publishing.catch((err: unknown) => {
      this.failure ??= { err }
    })
    this.published = Promise.allSettled([this.published, publishing]).then(() => {})
  }

  private async publish({ commands, publication }: Sealed): Promise<void> {
    await sendPublication(this.o.redis, publication)
    if (publication.local.length > 0) this.localReplies?.deliver(publication.local)
    this.sinceSnapshot += commands
  }

  /**
   * Commits the batch, riding out a lost connection: the COMMIT may or may not have happened, so before
   * any retry the stored offset is read (the batch's last stream id is written in its own transaction).
   * Committed → done, never applied twice; not committed → the same batch again, still fenced; another
   * token → fenced out. Gives up on an uncommitted batch (throws, so the leader steps down) once the lease
   * is lost, the runner stops, or PostgreSQL has been unreachable for a lease period.
   */
  private async commit(transaction: SealedBatch, lastId: string): Promise<'committed' | 'fenced-out'> {
    const at = { epoch: this.epoch, streamId: lastId, fencingToken: this.token }
    const inCommit = this.o.inCommit ? () => this.o.inCommit!(lastId) : undefined
    const giveUpAt = Date.now() + this.o.leaseMs
    let delay = RETRY_MIN_MS
    for (;;) {
      try {
        await commitSealed(this.o.pool, transaction, inCommit)
        return 'committed'
      } catch (err) {
        if (err instanceof FencedOutError) return 'fenced-out'
        if (!isConnectionLoss(err)) throw err
        this.o.log.warn({ err, at: 'EngineRunner#commit', streamId: lastId }, 'connection lost while committing; reading the stored offset')
      }
      for (;;) {
        await sleep(delay)
        delay = Math.min(delay * 2, RETRY_MAX_MS)
        const giveUp = () => this.stopping || !this.leading || Date.now() > giveUpAt
        let offset
        try {
          offset = await readOffset(this.o.pool)
        } catch (err) {
          if (!isConnectionLoss(err)) throw err
          if (giveUp()) throw new Error(`batch ${lastId} unresolved: PostgreSQL unreachable for a lease period, lease lost or stopping`)
          continue
        }
        const outcome = batchOutcome(offset, { ...at, previousId: this.committedId })
        this.o.log.info({ at: 'EngineRunner#commit', streamId: lastId, outcome }, 'batch resolved from the stored offset')
        if (outcome === 'committed') return 'committed'
        if (outcome === 'fenced-out') return 'fenced-out'
        if (outcome === 'diverged') throw new Error(`the stored offset moved past ${this.committedId} under fencing token ${this.token}`)
        if (giveUp()) throw new Error(`batch ${lastId} not committed, and no longer retried: lease lost or stopping`)
        break
      }
    }
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
    /** Where the snapshot the state was restored from stands; null when loaded from PostgreSQL. */
    let restoredAt: string | null = null
    if (snap && snap.epoch === this.epoch && compareStreamIds(snap.streamId, committed) <= 0) {
      this.engine = new Engine(restoreSnapshot(snap.state))
      from = restoredAt = snap.streamId
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
    // A snapshot at the recovered point before any new batch: a batch is published only once its COMMIT
    // returns, so a leader that dies may leave committed batches unpublished (one, or two while the next
    // commits), and only a replay from an earlier snapshot sends their events and replies; a state loaded
    // from PostgreSQL is already past them. (It leaves the stream untrimmed: the periodic ones trim.)
    if (restoredAt !== committed) await this.snapshot(false)
    this.sinceSnapshot = 0
    this.lastSnapshotAt = Date.now()
    log.info({ epoch: this.epoch, from, committed, markets: this.engine.state.markets.size }, 'engine recovered')
  }

  private snapshotDue(): boolean {
    if (this.sinceSnapshot === 0) return false
    return this.sinceSnapshot >= this.o.snapshotEvery || Date.now() - this.lastSnapshotAt >= this.o.snapshotMs
  }

  /** Saves the state as of the last committed batch and, unless told not to, trims the stream below it:
   * only with nothing applied uncommitted or unpublished (after settle()), when the state is the committed one. */
  private async snapshot(trim = true): Promise<void> {
    if (!this.engine) return
    await saveSnapshot(this.o.redis, this.o.keys, this.epoch, this.committedId, serializeSnapshot(this.engine.state))
    if (trim && this.committedId !== '0-0') await this.o.redis.xtrim(this.o.keys.commands, 'MINID', this.committedId)
    this.sinceSnapshot = 0
    this.lastSnapshotAt = Date.now()
  }
}
