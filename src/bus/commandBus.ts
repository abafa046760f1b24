// The producer side of the engine's command stream, used by API nodes, the scheduler and the indexer.
// submit() appends a command and resolves with the engine's reply, which the engine publishes on this
// node's reply channel only after the command's effects are committed to PostgreSQL.
import type { Redis } from 'ioredis'
import { systemClock, type Clock } from '../domain/clock.js'
import { DomainError } from '../domain/errors.js'
import { newId } from '../domain/ids.js'
import type { Command, CommandEnvelope, Reply } from '../engine/commands.js'
import type { RedisKeys } from './keys.js'

export interface SubmitOptions {
  correlationId?: string
  /** Command time; defaults to the bus's clock. Tests use it to drive the engine clock. */
  ts?: number
}

interface Pending {
  resolve(reply: Reply): void
  timer: NodeJS.Timeout
}

export class CommandBus {
  private readonly pending = new Map<string, Pending>()
  private readonly channel: string

  private constructor(
    private readonly redis: Redis,
    private readonly sub: Redis,
    private readonly keys: RedisKeys,
    readonly nodeId: string,
    private readonly timeoutMs: number,
    private readonly clock: Clock,
  ) {
    this.channel = keys.replies(nodeId)
  }

  /** `sub` becomes a subscriber connection and must not be used for anything else. */
  static async start(redis: Redis, sub: Redis, keys: RedisKeys, nodeId: string, timeoutMs: number, clock: Clock = systemClock): Promise<CommandBus> {
    const bus = new CommandBus(redis, sub, keys, nodeId, timeoutMs, clock)
    sub.on('message', (channel: string, message: string) => {
      if (channel === bus.channel) bus.onReplies(message)
    })
    await sub.subscribe(bus.channel)
    return bus
  }

  /** Appends the command and waits for its committed result. Times out as UPSTREAM_DEGRADED. */
  async submit(cmd: Command, opts: SubmitOptions = {}): Promise<Reply> {
    const env = this.envelope(cmd, opts, true)
    const result = new Promise<Reply>((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(env.id)
        resolve({ ok: false, code: 'UPSTREAM_DEGRADED', message: 'The engine did not answer in time; retry shortly' })
      }, this.timeoutMs)
      this.pending.set(env.id, { resolve, timer })
    })
    try {
      await this.append(env)
    } catch (err) {
      const p = this.pending.get(env.id)
      if (p) clearTimeout(p.timer)
      this.pending.delete(env.id)
      throw err
    }
    return result
  }

  /** Like submit(), but returns the value or throws the reply's error as a DomainError. */
  async execute<T = unknown>(cmd: Command, opts: SubmitOptions = {}): Promise<T> {
    const reply = await this.submit(cmd, opts)
    if (reply.ok) return reply.value as T
    if (reply.code === 'INTERNAL_ERROR') throw new Error(`engine: ${reply.message}`)
    throw new DomainError(reply.code, reply.message, reply.details)
  }

  /** Appends a command nobody waits for (feeds, schedules). Returns its stream id. */
  async send(cmd: Command, opts: SubmitOptions = {}): Promise<string> {
    return this.append(this.envelope(cmd, opts, false))
  }

  async close(): Promise<void> {
    for (const p of this.pending.values()) clearTimeout(p.timer)
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

  private onReplies(message: string): void {
    let batch: Array<{ id: string; reply: Reply }>
    try {
      batch = JSON.parse(message)
    } catch {
      return
    }
    for (const { id, reply } of batch) {
      const p = this.pending.get(id)
      if (!p) continue // a replayed reply for a request already answered or timed out
      clearTimeout(p.timer)
      this.pending.delete(id)
      p.resolve(reply)
    }
  }
}
