// The whole engine (accounts, margin, fees, ledger, events; no I/O) on the book benchmark's seeded
// stream: every limit becomes a PlaceOrder, every cancel a CancelOrder, every market order a market
// PlaceOrder, by 50 funded users. Four commands in five are on BTC-PERP; the fifth is on one of four
// BTC options (in and at the money, calls and puts of the March expiry), each driven by a book
// stream of its own moved onto the option's price, so that option orders carry their premium, fee and
// option margin checks. Changes are handed over every 500 commands, as the runner's batches do, and
// dropped. The perpetual's stream alone, at the same length, runs in the same process as a ceiling.
import { CATALOG } from '../src/config/catalog.js'
import { plannedMarkets } from '../src/domain/listing.js'
import type { MarketSpec } from '../src/domain/market.js'
import type { OrderSpec } from '../src/domain/orders.js'
import { BUY } from '../src/engine/book/types.js'
import type { Command, CommandEnvelope } from '../src/engine/commands.js'
import { Engine } from '../src/engine/engine.js'
import { generateBookStream, type BookCommand } from './bookStream.js'
import { collectGarbage, fmt, median, percentile, printLine } from './report.js'

const T0 = Date.UTC(2026, 10, 21, 12)
const BATCH = 500
const PASSES = 5
const MARKET = 'BTC-PERP'
/** One command in OPTION_EVERY is an option command. */
const OPTION_EVERY = 5
/** The options traded, and where each one's book sits, in option ticks (near its theoretical value at
 * spot 100,000: the book stream's mid moves onto it). */
const OPTIONS: ReadonlyArray<{ strike: string; type: 'C' | 'P'; center: number }> = [
  { strike: '80000', type: 'C', center: 2_200 },
  { strike: '100000', type: 'C', center: 1_200 },
  { strike: '100000', type: 'P', center: 1_100 },
  { strike: '120000', type: 'P', center: 2_300 },
]
/** The book stream's starting mid (bookStream.ts START_MID): option prices are offsets from it. */
const STREAM_MID = 1_000_000

const listed = (): MarketSpec[] =>
  plannedMarkets(CATALOG, { nowMs: T0, spotRef: () => '100000', defaultStaleMarkMs: 5_000 })
    // The benchmark's clock runs 1 ms per command; keep marks from going stale over a million commands.
    .map((m) => ({ ...m, staleMarkMs: 1e12 }))

/** The option markets of OPTIONS: the expiry a week before the second BTC quarterly (its future is the forward). */
function optionIds(markets: readonly MarketSpec[]): string[] {
  const second = markets.filter((m) => m.family === 'BTC' && m.type === 'future').sort((a, b) => a.expiryMs! - b.expiryMs!)[1]!
  const expiry = new Date(second.expiryMs! - 7 * 86_400_000).toISOString().slice(0, 10)
  return OPTIONS.map((o) => `BTC-${expiry}-${o.strike}-${o.type}`)
}

function setup(owners: Iterable<string>): Engine {
  const engine = new Engine()
  const markets = listed()
  const apply = (cmd: CommandEnvelope['cmd']) => {
    const r = engine.apply({ id: 'setup', ts: T0, cmd })
    if (!r.ok) throw new Error(`${cmd.type}: ${r.code} ${r.message}`)
  }
  apply({ type: 'ListMarkets', markets })
  // The BTC futures (the perpetual's index, the options' forwards) and spot (the options' index).
  const btc = markets.filter((m) => m.family === 'BTC' && (m.type === 'future' || m.type === 'spot'))
  apply({ type: 'UpdateMarks', marks: btc.map((m) => ({ marketId: m.id, price: '100000', source: 'bench', sourceTs: T0 })) })
  for (const owner of owners) {
    apply({ type: 'Faucet', userId: owner, amountMicro: '20000000000000', dailyCapMicro: '20000000000000' })
    apply({ type: 'Transfer', userId: owner, from: 'wallet', to: 'perps', amountMicro: '10000000000000' })
    apply({ type: 'Transfer', userId: owner, from: 'wallet', to: 'options', amountMicro: '10000000000000' })
  }
  engine.takeChanges()
  return engine
}

/** A set-up engine with the prefill applied, its changes handed over in batches as the runner does. */
function prefilled(owners: Iterable<string>, prefill: readonly CommandEnvelope[]): Engine {
  const engine = setup(owners)
  for (let i = 0; i < prefill.length; i++) {
    engine.apply(prefill[i]!)
    if ((i + 1) % BATCH === 0) engine.takeChanges()
  }
  engine.takeChanges()
  return engine
}

/** A book command on a market: `option` moves its price from the stream's mid onto `center` and gives
 * the command the option kind (and its order ids a prefix of their own). */
interface Routed {
  c: BookCommand
  marketId: string
  option: { center: number; prefix: string } | null
}

function toCommand(r: Routed): Command {
  const { c, option } = r
  const id = option ? `${option.prefix}${c.id}` : c.id
  const kind = option ? { kind: 'option' as const } : {}
  if (c.type === 'cancel') return { type: 'CancelOrder', userId: c.owner, orderId: id, ...kind } as Command
  const price = c.type !== 'limit' ? null : option ? Math.max(1, c.price - STREAM_MID + option.center) : c.price
  const order: OrderSpec = {
    id, marketId: r.marketId, clientOrderId: null, side: c.side === BUY ? 'buy' : 'sell',
    type: c.type === 'limit' ? 'limit' : 'market', timeInForce: c.type === 'limit' ? 'gtc' : 'ioc',
    priceTicks: price, lots: c.lots, postOnly: false, reduceOnly: false,
    marginMode: 'cross', stopTicks: null, takeProfitTicks: null, stopLossTicks: null, quoteId: null,
  }
  return { type: 'PlaceOrder', userId: c.owner, order, ...kind } as Command
}

/** Envelopes for `cmds`, one engine millisecond apart from `t0`. */
function toEnvelopes(cmds: readonly Routed[], t0: number): CommandEnvelope[] {
  return cmds.map((r, i): CommandEnvelope => ({ id: `c${i}`, ts: t0 + i, cmd: toCommand(r) }))
}

/**
 * The mixed stream: the perpetual's book stream with, every OPTION_EVERY-th command, the next command
 * of the option streams in turn (each option's prefill ahead of everything, as the perpetual's is).
 */
function mixedStream(count: number, optionEvery: number): { prefill: Routed[]; commands: Routed[]; owners: Set<string> } {
  const optionCount = Math.floor(count / optionEvery)
  const perp = generateBookStream({ count: count - optionCount, seed: 7 })
  const ids = optionIds(listed())
  const options = (optionCount === 0 ? [] : OPTIONS).map((o, k) => {
    const stream = generateBookStream({ count: Math.ceil(optionCount / OPTIONS.length), seed: 8 + k, restingTarget: 2_000 })
    const route = (c: BookCommand): Routed => ({ c, marketId: ids[k]!, option: { center: o.center, prefix: `x${k}-` } })
    return { prefill: stream.prefill.map(route), commands: stream.commands.map(route) }
  })
  const prefill = [...perp.prefill.map((c): Routed => ({ c, marketId: MARKET, option: null })), ...options.flatMap((o) => o.prefill)]
  const commands: Routed[] = []
  let p = 0
  let k = 0
  const next = new Array<number>(OPTIONS.length).fill(0)
  for (let i = 0; i < count; i++) {
    if (i % optionEvery === optionEvery - 1) {
      const o = k++ % OPTIONS.length
      commands.push(options[o]!.commands[next[o]!++]!)
    } else commands.push({ c: perp.commands[p++]!, marketId: MARKET, option: null })
  }
  const owners = new Set([...prefill, ...commands].map((r) => r.c.owner))
  return { prefill, commands, owners }
}

/**
 * Runs the measured stream through `engine` batch by batch. Each batch's envelopes are decoded from
 * their JSON just before it is applied, as the runner parses each entry it reads (so, as there, the
 * commands' strings are fresh, not a million objects built long before). Decoding is not timed: it
 * belongs to I/O. Only the apply() calls and the hand-over of changes are timed.
 */
function runBatches(engine: Engine, encoded: readonly string[], applyOne: (env: CommandEnvelope) => void): { ms: number; events: number } {
  let ms = 0
  let events = 0
  const batch: CommandEnvelope[] = []
  for (let from = 0; from < encoded.length; from += BATCH) {
    batch.length = 0
    for (let i = from; i < from + BATCH && i < encoded.length; i++) batch.push(JSON.parse(encoded[i]!) as CommandEnvelope)
    const start = performance.now()
    for (let i = 0; i < batch.length; i++) applyOne(batch[i]!)
    events += engine.takeChanges().events.length
    ms += performance.now() - start
  }
  return { ms, events }
}

/** A stream ready to run: its prefill, its commands as the runner reads them, and its owners. */
interface Prepared {
  owners: Set<string>
  prefill: CommandEnvelope[]
  encoded: string[]
  optionCommands: number
}

function prepare(count: number, optionEvery: number): Prepared {
  const stream = mixedStream(count, optionEvery)
  const prefill = toEnvelopes(stream.prefill, T0)
  const encoded = toEnvelopes(stream.commands, T0 + prefill.length).map((env) => JSON.stringify(env))
  return { owners: stream.owners, prefill, encoded, optionCommands: stream.commands.filter((r) => r.option !== null).length }
}

interface Pass {
  rate: number
  refused: number
  optionRefused: number
  codes: Map<string, number>
  events: number
  resting: number
}

/** One throughput pass on a fresh engine. */
function pass(s: Prepared): Pass {
  const engine = prefilled(s.owners, s.prefill)
  // The engines of earlier passes are garbage by now: collect them here, not inside this pass's timing.
  collectGarbage()
  let refused = 0
  let optionRefused = 0
  const codes = new Map<string, number>()
  const { ms, events } = runBatches(engine, s.encoded, (env) => {
    const r = engine.apply(env)
    if (!r.ok) {
      refused++
      if ((env.cmd as { kind?: string }).kind === 'option') {
        optionRefused++
        codes.set(r.code, (codes.get(r.code) ?? 0) + 1)
      }
    }
  })
  return { rate: s.encoded.length / (ms / 1000), refused, optionRefused, codes, events, resting: engine.state.orders.size }
}

/**
 * The mix (one command in OPTION_EVERY on options) and, as its ceiling in the same run, the perpetual's
 * stream alone at the same length: passes alternate between the two, so a host that slows down part way
 * slows both, and the ratio says what the option commands cost wherever it runs.
 */
export async function benchEngine(count = 1_000_000): Promise<void> {
  const mix = prepare(count, OPTION_EVERY)
  const linear = prepare(count, Infinity)
  const n = mix.encoded.length

  const passes: Pass[] = []
  const linearRates: number[] = []
  for (let i = 0; i < PASSES; i++) {
    passes.push(pass(mix))
    linearRates.push(pass(linear).rate)
  }
  const rates = median(passes.map((p) => p.rate))
  const linearRate = median(linearRates)
  const { refused, optionRefused, codes, events, resting } = passes[0]!

  // Latency pass on a fresh engine (timers off the throughput figure).
  const engine = prefilled(mix.owners, mix.prefill)
  collectGarbage()
  const lat = new Float64Array(n)
  let k = 0
  runBatches(engine, mix.encoded, (env) => {
    const s = process.hrtime.bigint()
    engine.apply(env)
    lat[k++] = Number(process.hrtime.bigint() - s) / 1000
  })
  lat.sort()
  printLine(
    'engine (accounts, margin, fees, ledger, events; no I/O)',
    `${fmt(rates.median)} cmd/s (median of ${PASSES} passes: ${rates.sorted.map((r) => fmt(r)).join(' / ')})  p50 ${percentile(lat, 0.5).toFixed(2)} µs  p99 ${percentile(lat, 0.99).toFixed(2)} µs  ` +
      `(${fmt(n)} commands, ${fmt(mix.optionCommands)} on options, ${fmt(refused)} refused (${fmt(optionRefused)} option: ` +
      `${[...codes].map(([c, k]) => `${c} ${fmt(k)}`).join(', ') || 'none'}), ${fmt(events)} events, ${fmt(resting)} resting at the end)`,
  )
  printLine(
    '  the perpetual alone, same length (ceiling)',
    `${fmt(linearRate.median)} cmd/s (${linearRate.sorted.map((r) => fmt(r)).join(' / ')}); the mix runs at ${(rates.median / linearRate.median).toFixed(2)} of it`,
  )
}
