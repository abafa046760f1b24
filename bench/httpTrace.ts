// Where an order's time goes, for the HTTP placement benchmark (HTTP_BENCH_TRACE=1): timers wrapped
// around the stages of the path from outside, so the application carries no probes. The bench's server
// entry installs them before the exchange starts and serves GET /bench/trace, which answers the
// figures gathered since the previous call (and starts a new window).
//   API node:  request start → auth (credential) → order-rate charge → body parsed (preHandler) →
//              handler (GraphQL execute, around the engine round trip) → answer serialized and sent
//   bus:       XADD with the epoch read (MULTI) → reply received (the engine round trip)
//   engine:    XREAD (blocking) → JSON.parse of each envelope, Engine.apply → per batch: sealed (its
//              transaction's and publication's text), the PostgreSQL commit, then mirrors, events and
//              replies published to Redis
//   process:   event-loop delay (monitorEventLoopDelay)
import { monitorEventLoopDelay } from 'node:perf_hooks'
import type { FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import { CredentialResolver } from '../src/auth/credentials.js'
import { Identity } from '../src/auth/identity.js'
import { CommandBus } from '../src/bus/commandBus.js'
import { Engine } from '../src/engine/engine.js'
import { EngineRunner } from '../src/roles/engine/runner.js'
import { TRACE_PATH } from './httpRoutes.js'


/** Durations (ms) of one stage in the current window. */
class Series {
  values: number[] = []
  add(ms: number): void {
    this.values.push(ms)
  }
  summary(): { n: number; mean: number; p50: number; p99: number; total: number } {
    const v = this.values.sort((a, b) => a - b)
    const total = v.reduce((s, x) => s + x, 0)
    const at = (q: number) => v[Math.min(v.length - 1, Math.floor(q * v.length))] ?? 0
    return { n: v.length, mean: v.length ? total / v.length : 0, p50: at(0.5), p99: at(0.99), total }
  }
}

const series = new Map<string, Series>()
const record = (name: string, ms: number) => {
  let s = series.get(name)
  if (!s) series.set(name, (s = new Series()))
  s.add(ms)
}
const loop = monitorEventLoopDelay({ resolution: 5 })
let windowStart = performance.now()

/** Wraps an async method of a prototype with a timer. */
function timeAsync(proto: object, method: string, name: string): void {
  const p = proto as Record<string, (...args: unknown[]) => Promise<unknown>>
  const original = p[method]!
  p[method] = async function (this: unknown, ...args: unknown[]) {
    const t0 = performance.now()
    try {
      return await original.apply(this, args)
    } finally {
      record(name, performance.now() - t0)
    }
  }
}

function timeSync(proto: object, method: string, name: string): void {
  const p = proto as Record<string, (...args: unknown[]) => unknown>
  const original = p[method]!
  p[method] = function (this: unknown, ...args: unknown[]) {
    const t0 = performance.now()
    try {
      return original.apply(this, args)
    } finally {
      record(name, performance.now() - t0)
    }
  }
}

/** Installs the timers; call before the exchange starts. */
export function installTrace(): void {
  loop.enable()
  timeAsync(CredentialResolver.prototype, 'resolve', 'api: credential resolved (API key: cache + revocation marker; on the order path with the charge)')
  timeAsync(Identity.prototype, 'chargeOrderRate', 'api: order-rate charge (Lua GCRA; sessions)')
  timeAsync(Identity.prototype, 'chargeOrderRateUnlessRevoked', 'api: order-rate charge with the key\'s revocation marker (one Lua script)')
  timeAsync(CommandBus.prototype, 'appendTracked', 'bus: XADD (one script with the epoch GET)')
  timeAsync(CommandBus.prototype, 'submit', 'bus: submit → reply (engine round trip)')
  const runner = EngineRunner.prototype as unknown as Record<string, (...args: any[]) => any>
  // A batch: its size, the sealing of it, its commit, its publication (queued behind the previous
  // batch's: the wait is in "sealed to published"); each command's wait in the stream (its id's ms to
  // when it is applied).
  const process = runner['process']!
  const sealedAt = new WeakMap<object, number>()
  runner['process'] = async function (this: unknown, sealed: { commands: number }) {
    sealedAt.set(sealed, performance.now())
    record('engine: batch size (commands)', sealed.commands)
    await process.call(this, sealed)
  }
  const publish = runner['publish']!
  runner['publish'] = async function (this: unknown, sealed: object) {
    const t0 = performance.now()
    await publish.call(this, sealed)
    const t1 = performance.now()
    record('engine: publish per batch (mirrors, events, replies)', t1 - t0)
    record('engine: batch, sealed to published', t1 - (sealedAt.get(sealed) ?? t0))
  }
  const kick = runner['kick']!
  runner['kick'] = function (this: { inFlight: unknown }) {
    const before = this.inFlight
    const t0 = performance.now()
    kick.call(this)
    if (this.inFlight !== before && this.inFlight) record('engine: seal per batch (changes → transaction and publication text)', performance.now() - t0)
  }
  const applyEntry = runner['applyEntry']!
  runner['applyEntry'] = function (this: unknown, ...args: unknown[]) {
    const id = args[1] as string
    record('engine: command wait in the stream (XADD → applied, ms clock)', Date.now() - Number(id.slice(0, id.indexOf('-'))))
    const t0 = performance.now()
    try {
      return applyEntry.apply(this, args)
    } finally {
      record('engine: per command, JSON.parse + apply', performance.now() - t0)
    }
  }
  timeSync(Engine.prototype, 'apply', 'engine: per command, Engine.apply')
  timeAsync(EngineRunner.prototype, 'commit', 'engine: PostgreSQL commit per batch')
  const xread = Redis.prototype.xread as (...args: unknown[]) => Promise<unknown>
  ;(Redis.prototype as unknown as { xread: typeof xread }).xread = async function (this: Redis, ...args: unknown[]) {
    const t0 = performance.now()
    const res = await xread.apply(this, args)
    record(res ? 'engine: XREAD BLOCK that returned entries' : 'engine: XREAD BLOCK that timed out', performance.now() - t0)
    return res
  }
}

/** Per-request phases from Fastify's hooks, and the trace route. */
export function registerTrace(app: FastifyInstance): void {
  const starts = new WeakMap<object, number[]>()
  app.addHook('onRequest', async (req) => {
    starts.set(req, [performance.now()])
  })
  app.addHook('preHandler', async (req) => {
    starts.get(req)?.push(performance.now())
  })
  app.addHook('onSend', async (req) => {
    starts.get(req)?.push(performance.now())
  })
  app.addHook('onResponse', async (req) => {
    const t = starts.get(req)
    if (!t || t.length < 3 || req.url === TRACE_PATH) return
    const kind = req.url.startsWith('/graphql') ? 'graphql' : req.url.startsWith('/bench') ? 'ceiling' : 'rest'
    record(`http ${kind}: onRequest → preHandler (auth, rate, body)`, t[1]! - t[0]!)
    record(`http ${kind}: handler (${kind === 'ceiling' ? 'canned answer' : 'GraphQL execute + engine round trip'})`, t[2]! - t[1]!)
    record(`http ${kind}: onSend → response written`, performance.now() - t[2]!)
    record(`http ${kind}: whole request inside the server`, performance.now() - t[0]!)
  })
  app.get(TRACE_PATH, async () => {
    const seconds = (performance.now() - windowStart) / 1000
    const out = {
      seconds,
      eventLoopDelayMs: { p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6, mean: loop.mean / 1e6 },
      series: Object.fromEntries([...series].map(([k, s]) => [k, s.summary()])),
    }
    series.clear()
    loop.reset()
    windowStart = performance.now()
    return out
  })
}
