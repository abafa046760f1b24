// The engine process's own CPU per command, I/O shell included: the stream read, the envelopes' JSON,
// Engine.apply, the PostgreSQL group commit, the mirrors, events and replies published to Redis.
// Case (d) of the HTTP bench measures the same process, but its batches form from what arrives, so
// their size (and each command's share of a batch's fixed costs) follows the load on the host; here
// every batch holds ENGINE_IO_BATCH commands (default 25, about what (d) forms on a quiet host), which
// makes the figure comparable from run to run on a shared machine.
//
// The engine runs as in production: the bench's server entry (bench/httpServer.ts) with ROLES=engine,
// on a fresh database and Redis prefix. The command stream is written before it starts: the markets,
// marks and two funded users, then PASSES passes of PASS_COMMANDS commands shaped as case (a) is
// (REST envelopes with a replyTo: a post-only bid at one of 500 prices below the mark, and the cancel
// of the order placed 32 commands before, so 32 rest on the book). Nobody listens for the replies; they
// are published all the same. Snapshots are off (their cost grows with the run's state, and is not a
// command's). The bench polls the stored offset and reads the process's CPU time
// (/proc) as each pass's last command is committed.
//   npm run bench -- engineIo      (ENGINE_IO_BATCH=…, ENGINE_IO_PASSES=…, ENGINE_IO_COMMANDS=… per pass)
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'
import { CATALOG } from '../src/config/catalog.js'
import { redisKeys } from '../src/bus/keys.js'
import { compareStreamIds } from '../src/bus/streamIds.js'
import { newId } from '../src/domain/ids.js'
import { plannedMarkets } from '../src/domain/listing.js'
import type { CommandEnvelope } from '../src/engine/commands.js'
import { dropDatabase, withDatabase } from '../src/store/migrate.js'
import { createPool } from '../src/store/pg.js'
import { fmt, median, printLine } from './report.js'

const BATCH = Number(process.env.ENGINE_IO_BATCH ?? 25)
const PASSES = Number(process.env.ENGINE_IO_PASSES ?? 5)
const PASS_COMMANDS = Number(process.env.ENGINE_IO_COMMANDS ?? 10_000)
const RESTING = 32
const MID = 100_000
const PERP = 'BTC-PERP'

const compiled = import.meta.url.endsWith('.mjs')
const SERVER = fileURLToPath(new URL(compiled ? './httpServer.mjs' : './httpServer.ts', import.meta.url))

function cpuSeconds(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return { user: Number(f[11]) / 100, system: Number(f[12]) / 100 }
}

/** The stream: set-up commands, then the passes; returns the stream id that ends each pass. */
async function writeStream(redis: Redis, stream: string): Promise<{ setupEnd: string; passEnds: string[] }> {
  let ts = Date.now()
  const replyTo = `bench:${process.pid}:engineIo`
  const append = async (cmds: Array<CommandEnvelope['cmd']>): Promise<string> => {
    const p = redis.pipeline()
    for (const cmd of cmds) {
      const env: CommandEnvelope = { id: newId(), ts: ts++, cmd, correlationId: newId(), replyTo }
      p.xadd(stream, '*', 'c', JSON.stringify(env))
    }
    const res = await p.exec()
    return res!.at(-1)![1] as string
  }
  const markets = plannedMarkets(CATALOG, { nowMs: ts, spotRef: () => String(MID), defaultStaleMarkMs: 3_600_000 })
  const users = [newId(), newId()]
  const setup: Array<CommandEnvelope['cmd']> = [
    { type: 'ListMarkets', markets },
    { type: 'UpdateMarks', marks: markets.filter((m) => m.id.startsWith('BTC-USDC-')).map((m) => ({ marketId: m.id, price: String(MID), source: 'push', sourceTs: ts })) },
  ]
  for (const userId of users) {
    setup.push({ type: 'Faucet', userId, amountMicro: '1000000000000000', dailyCapMicro: '1000000000000000' })
    setup.push({ type: 'Transfer', userId, from: 'wallet', to: 'perps', amountMicro: '500000000000000' })
  }
  const setupEnd = await append(setup)
  const passEnds: string[] = []
  const open: Array<[userId: string, orderId: string]> = []
  let step = 0
  for (let pass = 0; pass < PASSES; pass++) {
    let last = ''
    for (let done = 0; done < PASS_COMMANDS; ) {
      const chunk: Array<CommandEnvelope['cmd']> = []
      for (; chunk.length < 1_000 && done < PASS_COMMANDS; done++) {
        if (open.length >= RESTING && step % 2 === 1) {
          const [userId, orderId] = open.shift()!
          chunk.push({ type: 'CancelOrder', userId, orderId, kind: 'linear' } as CommandEnvelope['cmd'])
        } else {
          const userId = users[step % 4 < 2 ? 0 : 1]!
          const id = newId()
          open.push([userId, id])
          const priceTicks = (MID - 1_000) * 10 - (step % 500)
          chunk.push({
            type: 'PlaceOrder', userId, kind: 'linear',
            order: {
              id, marketId: PERP, clientOrderId: null, side: 'buy', type: 'limit', timeInForce: 'gtc', priceTicks, lots: 1, postOnly: true,
              reduceOnly: false, marginMode: 'cross', stopTicks: null, takeProfitTicks: null, stopLossTicks: null, quoteId: null,
            },
          } as CommandEnvelope['cmd'])
        }
        step++
      }
      last = await append(chunk)
    }
    passEnds.push(last)
  }
  return { setupEnd, passEnds }
}

export async function benchEngineIo(): Promise<void> {
  const hex = randomBytes(4).toString('hex')
  const databaseUrl = withDatabase(process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres', `exch_bench_engio_${hex}`)
  const prefix = `bench:engio:${hex}:`
  const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379'
  const keys = redisKeys(prefix)
  const redis = new Redis(redisUrl)
  const { setupEnd, passEnds } = await writeStream(redis, keys.commands)

  const flags = ['--max-semi-space-size=128', '--no-allocation-site-pretenuring', '--enable-source-maps', ...(compiled ? [] : ['--import', 'tsx'])]
  if (process.env.HTTP_BENCH_CPU_PROF) flags.push('--cpu-prof', `--cpu-prof-dir=${process.env.HTTP_BENCH_CPU_PROF}`)
  const env = {
    NODE_ENV: 'production', JWT_SECRET: randomBytes(32).toString('hex'), ADMIN_TOKEN: randomBytes(8).toString('hex'), HOST: '127.0.0.1', PORT: '0',
    DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, SIM_MAKER: 'false', MARK_FEED: 'push', MARK_STALE_MS: '3600000',
    PRUNE_UNFILLED_ORDERS_AFTER_MS: '0', LOG_LEVEL: 'warn', ROLES: 'engine', ENGINE_BATCH_MAX: String(BATCH),
    // No snapshot during the passes: its cost grows with the state (every order the run placed), which
    // would make each pass dearer than the one before.
    ENGINE_SNAPSHOT_EVERY: '10000000', ENGINE_SNAPSHOT_MS: '3600000',
  }
  const child = spawn(process.execPath, [...flags, SERVER], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => (line.startsWith('{"ready"') ? resolve() : line.trim() && console.log(line)))
    void exited.then(() => reject(new Error('engine process exited before it was ready')))
  })
  const pool = await createPool(databaseUrl, { max: 1 })
  const committed = async (id: string) => {
    for (;;) {
      const { rows } = await pool.query<{ lastStreamId: string }>(`SELECT "lastStreamId" FROM engine_offsets`)
      if (rows.some((r) => r.lastStreamId && compareStreamIds(r.lastStreamId, id) >= 0)) return
      await new Promise((r) => setTimeout(r, 20))
    }
  }
  const perCommand: number[] = []
  const userShare: number[] = []
  try {
    await committed(setupEnd)
    let cpu = cpuSeconds(child.pid!)
    let t = performance.now()
    for (const end of passEnds) {
      await committed(end)
      const now = cpuSeconds(child.pid!)
      const t1 = performance.now()
      const used = now.user - cpu.user + (now.system - cpu.system)
      perCommand.push((used / PASS_COMMANDS) * 1e6)
      userShare.push((now.user - cpu.user) / used)
      printLine(`  pass`, `${fmt((used / PASS_COMMANDS) * 1e6, 1)} µs CPU a command (${fmt((100 * (now.user - cpu.user)) / used)}% user), ${fmt(PASS_COMMANDS / ((t1 - t) / 1000))} commands/s`)
      cpu = now
      t = t1
    }
  } finally {
    child.kill('SIGTERM')
    await exited
    await pool.end()
    let cursor = '0'
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
      if (found.length > 0) await redis.del(...found)
      cursor = next
    } while (cursor !== '0')
    redis.disconnect()
    await dropDatabase(databaseUrl)
  }
  // The first pass warms the JIT up and is left out of the median.
  const m = median(perCommand.slice(1))
  printLine(
    `engine process, batches of ${BATCH} (case (a)'s commands)`,
    `${fmt(m.median, 1)} µs CPU a command, median of passes 2–${PASSES} (${m.sorted.map((v) => fmt(v, 1)).join(', ')})`,
  )
}
