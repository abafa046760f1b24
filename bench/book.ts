// Owns the order-book benchmark: throughput and per-command latency of OrderBook on the seeded stream,
// and the throughput of the nodejs-order-book package on the same stream for comparison.
// Run alone: npm run bench -- book
import { OrderBook as ReferenceBook, SelfTradePreventionMode, Side as ReferenceSide } from 'nodejs-order-book'
import { OrderBook } from '../src/engine/book/orderBook.js'
import { BUY } from '../src/engine/book/types.js'
import { BookDriver, generateBookStream, NULL_SINK, type BookCommand } from './bookStream.js'
import { collectGarbage, fmt, median, percentile } from './report.js'

const COUNT = 1_000_000
const SEED = 42
// Medians of five passes each, the book's alternating with the reference's: one book pass takes a fraction
// of a second, and a moment of contention on this shared machine (it slows the cache-bound book more
// than the reference) would otherwise decide the figure and the ratio.
const THROUGHPUT_PASSES = 5
const REFERENCE_PASSES = 5

/** A fresh OrderBook with the prefill applied, ready for the timed commands. */
function prefilled(prefill: BookCommand[]): BookDriver {
  const driver = new BookDriver(new OrderBook(), NULL_SINK)
  for (let i = 0; i < prefill.length; i++) driver.apply(prefill[i] as BookCommand)
  return driver
}

/** Commands per second over the whole stream, no per-command timers. */
function throughput(prefill: BookCommand[], commands: BookCommand[]): number {
  const driver = prefilled(prefill)
  collectGarbage()
  const start = performance.now()
  for (let i = 0; i < commands.length; i++) driver.apply(commands[i] as BookCommand)
  return commands.length / ((performance.now() - start) / 1_000)
}

/** Per-command latencies in µs, sorted ascending. */
function latencies(prefill: BookCommand[], commands: BookCommand[]): Float64Array {
  const driver = prefilled(prefill)
  const samples = new Float64Array(commands.length)
  collectGarbage()
  for (let i = 0; i < commands.length; i++) {
    const cmd = commands[i] as BookCommand
    const start = performance.now()
    driver.apply(cmd)
    samples[i] = (performance.now() - start) * 1_000
  }
  return samples.sort()
}

/** What a latency sample reads for an empty command: the timer's own cost, included in every sample. */
function timerOverheadMicros(): number {
  const rounds = 1_000_000
  let total = 0
  for (let i = 0; i < rounds; i++) {
    const start = performance.now()
    total += performance.now() - start
  }
  return (total * 1_000) / rounds
}

/** The same stream through nodejs-order-book: its own cancel-resting STP mode matches ours. */
function referenceThroughput(prefill: BookCommand[], commands: BookCommand[]): { rate: number; resting: number } {
  const book = new ReferenceBook()
  const stpMode = SelfTradePreventionMode.EXPIRE_MAKER
  const apply = (cmd: BookCommand): void => {
    if (cmd.type === 'cancel') {
      book.cancel(cmd.id)
      return
    }
    const side = cmd.side === BUY ? ReferenceSide.BUY : ReferenceSide.SELL
    if (cmd.type === 'limit') book.limit({ id: cmd.id, side, size: cmd.lots, price: cmd.price, accountId: cmd.owner, stpMode })
    else book.market({ side, size: cmd.lots, accountId: cmd.owner, stpMode })
  }
  for (let i = 0; i < prefill.length; i++) apply(prefill[i] as BookCommand)
  collectGarbage()
  const start = performance.now()
  for (let i = 0; i < commands.length; i++) apply(commands[i] as BookCommand)
  const rate = commands.length / ((performance.now() - start) / 1_000)
  const snapshot = book.snapshot()
  let resting = 0
  for (const level of [...snapshot.bids, ...snapshot.asks]) resting += level.orders.length
  return { rate, resting }
}

export async function benchBook(): Promise<void> {
  const genStart = performance.now()
  const { prefill, commands } = generateBookStream({ count: COUNT, seed: SEED })
  const mix = { limit: 0, cancel: 0, market: 0 }
  for (const cmd of commands) mix[cmd.type]++
  console.log(
    `stream: ${fmt(commands.length)} commands after ${fmt(prefill.length)} prefill ` +
      `(limit ${fmt(mix.limit)}, cancel ${fmt(mix.cancel)}, market ${fmt(mix.market)}; seed ${SEED}; ` +
      `generated in ${fmt(performance.now() - genStart)} ms)`,
  )

  // Warm-up on its own book so the JIT has settled before anything is timed.
  const warm = prefilled(prefill)
  for (let i = 0; i < commands.length; i++) warm.apply(commands[i] as BookCommand)
  const resting = warm.book.size
  warm.book.validateInternalState()

  const rates: number[] = []
  const referenceRates: number[] = []
  let referenceResting = 0
  for (let pass = 0; pass < THROUGHPUT_PASSES; pass++) {
    rates.push(throughput(prefill, commands))
    if (pass < REFERENCE_PASSES) {
      const reference = referenceThroughput(prefill, commands)
      referenceRates.push(reference.rate)
      referenceResting = reference.resting
    }
  }
  const book = median(rates)
  const reference = median(referenceRates)

  const sorted = latencies(prefill, commands)
  const timer = timerOverheadMicros()
  const us = (v: number) => fmt(v, v < 10 ? 2 : 1)
  console.log(
    `book: ${fmt(book.median)} cmd/s (median of ${THROUGHPUT_PASSES} passes: ${book.sorted.map((r) => fmt(r)).join(' / ')})  ` +
      `p50 ${us(percentile(sorted, 0.5))} µs  p99 ${us(percentile(sorted, 0.99))} µs  ` +
      `p99.9 ${us(percentile(sorted, 0.999))} µs  max ${us(sorted[sorted.length - 1] as number)} µs`,
  )
  console.log(`latency samples include ~${us(timer)} µs of timer cost each`)
  console.log(`resting orders at the end: ${fmt(resting)}`)

  console.log(
    `reference nodejs-order-book: ${fmt(reference.median)} cmd/s (median of ${REFERENCE_PASSES} passes: ${reference.sorted.map((r) => fmt(r)).join(' / ')}; ` +
      `resting at the end: ${fmt(referenceResting)})`,
  )
  console.log(`ratio: ${fmt(book.median / reference.median, 1)}x`)
}
