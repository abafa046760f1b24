// The producer side of the engine's command stream, used by API nodes, the scheduler and the indexer.
// submit() appends a command and resolves with the engine's reply, which the engine publishes on this
// node's reply channel only after the command's effects are committed to PostgreSQL. A reply that does
// not come in time (the engine failing over, PostgreSQL away) is not taken as a refusal: the command may
// be committed already or still be applied later, so the node's timeout handler finds out what it can.
import type { Redis } from 'ioredis'
import { systemClock, type Clock } from '../domain/clock.js'
import { DomainError } from '../domain/errors.js'
import { newId } from '../domain/ids.js'
import type { Command, CommandEnvelope, Reply } from '../engine/commands.js'
import type { Replied, ReplyOf } from '../engine/replies.js'
import type { RedisKeys } from './keys.js'
import { defineScript } from './script.js'
import { TurnBatch, type ItemAnswer } from './turnBatch.js'

// The epoch and the appends in one script: each envelope appended atomically with the epoch it was
// appended under, as a MULTI of GET and XADD was, but the submits of one loop turn share one script
// call (one command for ioredis to build, one reply to read), in the order they were submitted,
// written directly rather than through the auto-pipeline (TurnBatch).
// KEYS[1] the stream epoch, KEYS[2] the command stream; ARGV the envelopes. Returns {epoch or nil,
// stream id or error per envelope}: an XADD that fails fails its own submit only, as it did alone.
const appendWithEpoch = defineScript(`
local out = {redis.call('GET', KEYS[1])}
for i = 1, #ARGV do out[i + 1] = redis.pcall('XADD', KEYS[2], '*', 'c', ARGV[i]) end
return out
`, { direct: true })

export interface SubmitOptions {
  correlationId?: string
  /** Command time; defaults to the bus's clock. Tests use it to drive the engine clock. */
  ts?: number
}

interface Pending {
  resolve(reply: Reply): void
  timer: NodeJS.Timeout | null
}

/** A command appended to the stream: where, and under which stream epoch. */
export interface Submitted {
  env: CommandEnvelope
  streamId: string
  /** The stream epoch when it was appended; null before any engine has run on this Redis. */
  epoch: string | null
}

/** What a caller is told when the engine's reply did not come in time. */
export type ReplyTimeoutHandler = (s: Submitted) => Promise<Reply>

export class CommandBus {
  private readonly pending = new Map<string, Pending>()
  private readonly channel: string
  /** The appends of one loop turn, one script call. */
  private readonly appends = new TurnBatch<string, [epoch: string | null, streamId: string]>(async (envelopes) => {
    const out = (await appendWithEpoch(this.redis, [this.keys.epoch, this.keys.commands], envelopes)) as [string | null, ...Array<string | Error>]
    const epoch = out[0]
    const answers: Array<ItemAnswer<[string | null, string]>> = []
    for (let i = 1; i < out.length; i++) {
      const id = out[i]!
      answers.push(typeof id === 'string' ? [epoch, id] : id)
    }
    return answers
  })

  private constructor(
    private readonly redis: Redis,
    private readonly sub: Redis,
    private readonly keys: RedisKeys,
    readonly nodeId: string,
    private readonly timeoutMs: number,
    private readonly onTimeout: ReplyTimeoutHandler,
    private readonly clock: Clock,
  ) {
    this.channel = keys.replies(nodeId)
  }

  /** `sub` becomes a subscriber connection and must not be used for anything else. */
  static async start(
    redis: Redis,
    sub: Redis,
    keys: RedisKeys,
    nodeId: string,
    timeoutMs: number,
    onTimeout: ReplyTimeoutHandler,
    clock: Clock = systemClock,
  ): Promise<CommandBus> {
    const bus = new CommandBus(redis, sub, keys, nodeId, timeoutMs, onTimeout, clock)
    sub.on('message', (channel: string, message: string) => {
      if (channel === bus.channel) bus.onReplies(message)
    })
    await sub.subscribe(bus.channel)
    return bus
  }

  /**
   * Appends the command and waits for its committed result. Past the reply timeout the answer is the
   * timeout handler's (the committed outcome looked up, or OUTCOME_UNKNOWN); a reply arriving while it
   * looks still wins.
   */
  async submit(cmd: Command, opts: SubmitOptions = {}): Promise<Reply> {
    const env = this.envelope(cmd, opts, true)
    let resolve!: (reply: Reply) => void
    const result = new Promise<Reply>((r) => (resolve = r))
    const pending: Pending = { resolve, timer: null }
    // Registered before the append: the reply may come back before XADD's own answer does.
    this.pending.set(env.id, pending)
    let submitted: Submitted
    try {
      const [epoch, streamId] = await this.appendTracked(env)
      submitted = { env, streamId, epoch }
    } catch (err) {
      this.pending.delete(env.id)
      throw err
    }
    if (this.pending.get(env.id) === pending) pending.timer = setTimeout(() => void this.timedOut(submitted, pending), this.timeoutMs)
    return result
  }

  private async timedOut(s: Submitted, pending: Pending): Promise<void> {
    pending.timer = null
    let reply: Reply
    try {
      reply = await this.onTimeout(s)
    } catch {
      reply = { ok: false, code: 'OUTCOME_UNKNOWN', message: 'The engine did not answer in time', details: { commandId: s.env.id } }
    }
    if (this.pending.get(s.env.id) !== pending) return // the engine's own reply came meanwhile
    this.pending.delete(s.env.id)
    pending.resolve(reply)
  }

  /** Like submit(), but returns the value or throws the reply's error as a DomainError. */
  async execute<C extends Command>(cmd: C, opts: SubmitOptions = {}): Promise<Replied<ReplyOf<C>>> {
    const reply = await this.submit(cmd, opts)
    if (reply.ok) return reply.value as Replied<ReplyOf<C>>
    if (reply.code === 'INTERNAL_ERROR') throw new Error(`engine: ${reply.message}`)
    throw new DomainError(reply.code, reply.message, reply.details)
  }

  /** Appends a command nobody waits for (feeds, schedules). Returns its stream id. */
  async send(cmd: Command, opts: SubmitOptions = {}): Promise<string> {
    return this.append(this.envelope(cmd, opts, false))
  }

  async close(): Promise<void> {
    for (const p of this.pending.values()) if (p.timer) clearTimeout(p.timer)
    this.pending.clear()
    await this.sub.unsubscribe(this.channel).catch(() => {})
  }

  private envelope(cmd: Command, opts: SubmitOptions, reply: boolean): CommandEnvelope {
    const env: CommandEnvelope = { id: newId(), ts: opts.ts ?? this.clock(), cmd }
    if (opts.correlationId) env.correlationId = opts.correlationId
    if (reply) env.replyTo = this.nodeId
    return env
  }

  private async append(env: CommandEnvelope): Promise<string> {
    const id = await this.redis.xadd(this.keys.commands, '*', 'c', JSON.stringify(env))
    return id as string
  }

  /** Appends with the stream's epoch read atomically with it: a stream id means nothing without it. */
  private appendTracked(env: CommandEnvelope): Promise<[epoch: string | null, streamId: string]> {
    return this.appends.add(JSON.stringify(env))
  }

  private onReplies(message: string): void {
    let batch: Array<{ id: string; reply: Reply }>
    try {
      batch = JSON.parse(message)
    } catch {
      return
    }
    this.deliver(batch)
  }

  /**
   * Answers the waiting submits of a batch of replies: from this node's reply channel, or handed over
   * in-process by an engine leading in this very process (src/roles/engine/runner.ts), once committed
   * and published. The engine's replies are plain JSON values it never touches again, so its objects
   * are what the channel's JSON would have given (the randomized engine test holds it to that).
   */
  deliver(batch: ReadonlyArray<{ id: string; reply: unknown }>): void {
    for (const { id, reply } of batch as ReadonlyArray<{ id: string; reply: Reply }>) {
      const p = this.pending.get(id)
      if (!p) continue // a replayed reply for a request already answered or timed out
      if (p.timer) clearTimeout(p.timer)
      this.pending.delete(id)
      p.resolve(reply)
    }
  }
}
