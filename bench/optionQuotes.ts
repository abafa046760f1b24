// A market maker's option requote through the whole engine (admission, the options bucket's margin with
// its 18 scenarios, amend in place, market-maker protection; no I/O): 50 BTC options nearest the money,
// each requoted by one PlaceQuotes (cancelAll with amend, two bids and two asks, as the simulator sends),
// with the index and the futures moving between rounds so every round prices new valuations. Prints the
// latency of one bulk quote and of the round of 50 (p50, p99).
import { CATALOG } from '../src/config/catalog.js'
import { plannedMarkets } from '../src/domain/listing.js'
import { parseLinearOrder } from '../src/domain/orders.js'
import type { Command } from '../src/engine/commands.js'
import { Engine } from '../src/engine/engine.js'
import { valuationOf } from '../src/engine/optionPricing.js'
import { collectGarbage, fmt, percentile, printLine } from './report.js'

const T0 = Date.UTC(2026, 10, 21, 12)
const OPTIONS = 50
const ROUNDS = 400
const MM = 'mm'

export function benchOptionQuotes(): void {
  const engine = new Engine()
  let now = T0
  const apply = (cmd: Command) => {
    const r = engine.apply({ id: 'b', ts: now, cmd })
    if (!r.ok) throw new Error(`${cmd.type}: ${r.code} ${r.message}`)
  }
  const markets = plannedMarkets(CATALOG, { nowMs: T0, spotRef: () => '95000', defaultStaleMarkMs: 5_000 })
  apply({ type: 'ListMarkets', markets })
  const curve = markets.filter((m) => m.family === 'BTC' && (m.type === 'spot' || m.type === 'future'))
  const marks = (price: number) => apply({ type: 'UpdateMarks', marks: curve.map((m) => ({ marketId: m.id, price: price.toFixed(1), source: 'bench', sourceTs: now })) })
  marks(95_000)
  apply({ type: 'Faucet', userId: MM, amountMicro: '100000000000000', dailyCapMicro: '100000000000000' })
  apply({ type: 'Transfer', userId: MM, from: 'wallet', to: 'options', amountMicro: '100000000000000' })
  apply({ type: 'SetMmpConfig', userId: MM, underlying: 'BTC', intervalMs: 1_000, frozenMs: 3_000, quantityLimit: 25_000_000, deltaLimit: 10_000_000 })
  const options = markets
    .filter((m) => m.type === 'option')
    .sort((a, b) => Math.abs(Number(a.strike) - 95_000) - Math.abs(Number(b.strike) - 95_000) || a.expiryMs! - b.expiryMs!)
    .slice(0, OPTIONS)
  engine.takeChanges()

  let seq = 0
  const perQuote: number[] = []
  const perRound: number[] = []
  let price = 95_000
  for (let round = 0; round < ROUNDS; round++) {
    now += 1_000
    price *= 1 + (((round * 7919) % 11) - 5) / 10_000
    marks(price)
    // Quotes built outside the timing: the simulator's client does this work, not the engine.
    const commands = options.map((spec): Command => {
      const theo = Math.max(0.0010, Number(valuationOf(engine.state, engine.state.markets.get(spec.id)!)!.lotValue) / 1e6 / 0.01 / price)
      const legs: Array<['buy' | 'sell', number]> = [['buy', theo - 0.0030], ['buy', theo - 0.0045], ['sell', theo + 0.0030], ['sell', theo + 0.0045]]
      return {
        type: 'PlaceQuotes', userId: MM, marketId: spec.id, quoteId: 'sim', cancelFirst: true, amend: true, kind: 'option',
        orders: legs.filter(([, p]) => p >= 0.0001).map(([side, p]) => parseLinearOrder({ side, price: p.toFixed(4), quantity: '0.5', postOnly: true }, spec, `o${++seq}`, 'sim')),
      }
    })
    collectGarbage()
    const roundStart = performance.now()
    for (const cmd of commands) {
      const t = performance.now()
      const r = engine.apply({ id: 'q', ts: now, replyTo: 'bench', cmd })
      perQuote.push(performance.now() - t)
      if (!r.ok) throw new Error(`PlaceQuotes: ${r.code} ${r.message}`)
    }
    perRound.push(performance.now() - roundStart)
    engine.takeChanges()
  }
  const q = perQuote.sort((a, b) => a - b)
  const r = perRound.sort((a, b) => a - b)
  printLine(`optionQuotes: one bulk quote (4 orders, amend, ${fmt(q.length)} quotes)`, `p50 ${fmt(percentile(q, 0.5) * 1_000, 0)} µs, p99 ${fmt(percentile(q, 0.99) * 1_000, 0)} µs`)
  printLine(`optionQuotes: requoting ${OPTIONS} options (${ROUNDS} rounds)`, `p50 ${fmt(percentile(r, 0.5), 2)} ms, p99 ${fmt(percentile(r, 0.99), 2)} ms`)
}
