// The whole engine (accounts, margin, fees, ledger, events; no I/O) on the book benchmark's seeded
// stream: every limit becomes a PlaceOrder, every cancel a CancelOrder, every market order a market
// PlaceOrder, all on BTC-PERP by 50 funded users. Changes are handed over every 500 commands, as
// the runner's batches do, and dropped.
import { CATALOG } from '../src/config/catalog.js'
import { plannedMarkets } from '../src/domain/listing.js'
import type { OrderSpec } from '../src/domain/orders.js'
import { BUY } from '../src/engine/book/types.js'
import type { CommandEnvelope } from '../src/engine/commands.js'
import { Engine } from '../src/engine/engine.js'
import { generateBookStream, type BookCommand } from './bookStream.js'
import { collectGarbage, fmt, median, percentile, printLine } from './report.js'

const T0 = Date.UTC(2026, 10, 21, 12)
const BATCH = 500
const PASSES = 5
const MARKET = 'BTC-PERP'

function setup(owners: Iterable<string>): Engine {
  const engine = new Engine()
  const markets = plannedMarkets(CATALOG, { nowMs: T0, spotRef: () => '100000', defaultStaleMarkMs: 5_000 })
    // The benchmark's clock runs 1 ms per command; keep marks from going stale over a million commands.
    .map((m) => ({ ...m, staleMarkMs: 1e12 }))
  const apply = (cmd: CommandEnvelope['cmd']) => {
    const r = engine.apply({ id: 'setup', ts: T0, cmd })
    if (!r.ok) throw new Error(`${cmd.type}: ${r.code} ${r.message}`)
  }
  apply({ type: 'ListMarkets', markets })
  const front = markets.filter((m) => m.family === 'BTC' && m.type === 'future').sort((a, b) => a.expiryMs! - b.expiryMs!)[0]!
  apply({ type: 'UpdateMarks', marks: [{ marketId: front.id, price: '100000', source: 'bench', sourceTs: T0 }] })
  for (const owner of owners) {
    apply({ type: 'Faucet', userId: owner, amountMicro: '10000000000000', dailyCapMicro: '10000000000000' })
    apply({ type: 'Transfer', userId: owner, from: 'wallet', to: 'perps', amountMicro: '10000000000000' })
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

/** Envelopes for `cmds`, one engine millisecond apart from `t0`. */
function toEnvelopes(cmds: readonly BookCommand[], t0: number): CommandEnvelope[] {
  return cmds.map((c, i): CommandEnvelope => {
    const ts = t0 + i
    if (c.type === 'cancel') return { id: `c${i}`, ts, cmd: { type: 'CancelOrder', userId: c.owner, orderId: c.id } }
    const order: OrderSpec = {
      id: c.id, marketId: MARKET, clientOrderId: null, side: c.side === BUY ? 'buy' : 'sell',
      type: c.type === 'limit' ? 'limit' : 'market', timeInForce: c.type === 'limit' ? 'gtc' : 'ioc',
      priceTicks: c.type === 'limit' ? c.price : null, lots: c.lots, postOnly: false, reduceOnly: false,
      marginMode: 'cross', stopTicks: null, takeProfitTicks: null, stopLossTicks: null, quoteId: null,
    }
    return { id: `c${i}`, ts, cmd: { type: 'PlaceOrder', userId: c.owner, order } }
  })
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

export async function benchEngine(count = 1_000_000): Promise<void> {
  const stream = generateBookStream({ count, seed: 7 })
  const owners = new Set([...stream.prefill, ...stream.commands].map((c) => c.owner))
  const prefill = toEnvelopes(stream.prefill, T0)
  const encoded = toEnvelopes(stream.commands, T0 + prefill.length).map((env) => JSON.stringify(env))
  const n = encoded.length

  // Throughput: the median of PASSES passes, each on a fresh engine.
  const passes: Array<{ rate: number; refused: number; events: number; resting: number }> = []
  for (let pass = 0; pass < PASSES; pass++) {
    const engine = prefilled(owners, prefill)
    // The engines of earlier passes are garbage by now: collect them here, not inside this pass's timing.
    collectGarbage()
    let refused = 0
    const { ms, events } = runBatches(engine, encoded, (env) => {
      if (!engine.apply(env).ok) refused++
    })
    passes.push({ rate: n / (ms / 1000), refused, events, resting: engine.state.orders.size })
  }
  const rates = median(passes.map((p) => p.rate))
  const { refused, events, resting } = passes[0]!

  // Latency pass on a fresh engine (timers off the throughput figure).
  const engine = prefilled(owners, prefill)
  collectGarbage()
  const lat = new Float64Array(n)
  let k = 0
  runBatches(engine, encoded, (env) => {
    const s = process.hrtime.bigint()
    engine.apply(env)
    lat[k++] = Number(process.hrtime.bigint() - s) / 1000
  })
  lat.sort()
  printLine(
    'engine (accounts, margin, fees, ledger, events; no I/O)',
    `${fmt(rates.median)} cmd/s (median of ${PASSES} passes: ${rates.sorted.map((r) => fmt(r)).join(' / ')})  p50 ${percentile(lat, 0.5).toFixed(2)} µs  p99 ${percentile(lat, 0.99).toFixed(2)} µs  ` +
      `(${fmt(n)} commands, ${fmt(refused)} refused, ${fmt(events)} events, ${fmt(resting)} resting at the end)`,
  )
}
