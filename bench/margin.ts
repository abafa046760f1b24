// The margin check's cost per order as an account's portfolio grows: an account holding 1, 10 or 100
// cross positions (perpetuals and futures across the three families, on a synthetic catalog listing 33
// quarterlies per family) is asked, again and again, whether one more limit order fits. Figures are the
// check alone (checkOrderMargin: the portfolio's initial requirement before and after) and the whole PlaceOrder command that
// runs it, the order resting and cancelled again so the portfolio stays the same. Then the options
// bucket: an account holding 50 BTC option positions, long and short, across strikes and all four
// expiries, asked the same of one more option order: the check alone (checkOptionOrders: the options
// bucket before and after, 18 scenarios), PreviewOrder (the whole admission, changing nothing) and
// PlaceOrder.
import { CATALOG, familyCatalog, smileFor } from '../src/config/catalog.js'
import { D } from '../src/domain/decimal.js'
import { plannedMarkets } from '../src/domain/listing.js'
import { optionForward, optionTheo } from '../src/domain/pricing/optionTheo.js'
import type { MarketSpec } from '../src/domain/market.js'
import type { OrderSpec } from '../src/domain/orders.js'
import type { Command } from '../src/engine/commands.js'
import type { EngineState } from '../src/engine/state.js'
import { Engine } from '../src/engine/engine.js'
import { checkOrderMargin } from '../src/engine/margin.js'
import { checkOptionOrders } from '../src/engine/optionMargin.js'
import { percentile, printLine } from './report.js'

const T0 = Date.UTC(2026, 10, 21, 12)
const SPOT_PRICE: Record<string, string> = { BTC: '100000', XAUT: '4000', WTIOIL: '65' }
const CHECKS = 20_000
const MAKER = 'bench-maker'
const TRADER = 'bench-trader'

let seq = 0
function run(engine: Engine, cmd: Command): void {
  const r = engine.apply({ id: `b${++seq}`, ts: T0, cmd })
  if (!r.ok) throw new Error(`${cmd.type}: ${r.code} ${r.message}`)
}

/** An engine with `markets` listed, spot and futures marked at SPOT_PRICE, and the maker and the trader
 * funded in `bucket`. */
function listedEngine(markets: MarketSpec[], bucket: 'perps' | 'options'): Engine {
  const engine = new Engine()
  run(engine, { type: 'ListMarkets', markets })
  const pushed = markets.filter((m) => m.type === 'spot' || m.type === 'future')
  run(engine, { type: 'UpdateMarks', marks: pushed.map((m) => ({ marketId: m.id, price: SPOT_PRICE[m.family]!, source: 'bench', sourceTs: T0 })) })
  for (const user of [MAKER, TRADER]) {
    run(engine, { type: 'Faucet', userId: user, amountMicro: '100000000000000', dailyCapMicro: '100000000000000' })
    run(engine, { type: 'Transfer', userId: user, from: 'wallet', to: bucket, amountMicro: '100000000000000' })
  }
  return engine
}

function order(marketId: string, side: 'buy' | 'sell', priceTicks: number | null, lots = 1): OrderSpec {
  return {
    id: `o${++seq}`, marketId, clientOrderId: null, side, type: priceTicks === null ? 'market' : 'limit',
    timeInForce: priceTicks === null ? 'ioc' : 'gtc', priceTicks, lots, postOnly: false, reduceOnly: false,
    marginMode: 'cross', stopTicks: null, takeProfitTicks: null, stopLossTicks: null, quoteId: null,
  }
}

/** Linear derivatives of the synthetic catalog, perpetuals first, then futures by expiry, round-robin over families. */
function setup(): { engine: Engine; derivatives: MarketSpec[] } {
  const catalog = CATALOG.map((f) => ({ ...f, futuresListed: 33 }))
  const markets = plannedMarkets(catalog, { nowMs: T0, spotRef: (f) => SPOT_PRICE[f]!, defaultStaleMarkMs: 5_000 })
    .filter((m) => m.type !== 'option')
    .map((m) => ({ ...m, staleMarkMs: 1e12 }))
  const engine = listedEngine(markets, 'perps')
  const byFamily = CATALOG.map((f) =>
    markets.filter((m) => m.family === f.family && m.type !== 'spot').sort((a, b) => (a.expiryMs ?? 0) - (b.expiryMs ?? 0)),
  )
  const derivatives: MarketSpec[] = []
  for (let i = 0; derivatives.length < byFamily.flat().length; i++) for (const list of byFamily) if (list[i]) derivatives.push(list[i]!)
  return { engine, derivatives }
}

/** The trader buys one lot from the maker in each of the first n derivatives. */
function openPositions(engine: Engine, derivatives: readonly MarketSpec[], n: number): void {
  for (const m of derivatives.slice(0, n)) {
    const mark = engine.state.markTicks.get(m.id)!.ticks
    run(engine, { type: 'PlaceOrder', userId: MAKER, order: order(m.id, 'sell', mark) })
    run(engine, { type: 'PlaceOrder', userId: TRADER, order: order(m.id, 'buy', null) })
  }
  engine.takeChanges()
}

export async function benchMargin(): Promise<void> {
  for (const n of [1, 10, 100]) {
    const { engine, derivatives } = setup()
    openPositions(engine, derivatives, n)
    const account = engine.state.accounts.get(TRADER)!
    const held = [...account.positions.values()].filter((p) => p.lots !== 0).length
    if (held !== n) throw new Error(`expected ${n} positions, have ${held}`)
    const target = derivatives[0]!
    const market = engine.state.markets.get(target.id)!
    // A bid at the bottom of the price band: rests, never trades.
    const bid = engine.state.markTicks.get(target.id)!.bandLow + 1

    const check = new Float64Array(CHECKS)
    for (let i = 0; i < CHECKS; i++) {
      const s = process.hrtime.bigint()
      checkOrderMargin(account, [{ market, side: 'buy', lots: 1, priceTicks: bid }], false)
      check[i] = Number(process.hrtime.bigint() - s) / 1000
    }
    const place = new Float64Array(CHECKS)
    for (let i = 0; i < CHECKS; i++) {
      const spec = order(target.id, 'buy', bid)
      const s = process.hrtime.bigint()
      const r = engine.apply({ id: `p${i}`, ts: T0, cmd: { type: 'PlaceOrder', userId: TRADER, order: spec } })
      place[i] = Number(process.hrtime.bigint() - s) / 1000
      if (!r.ok) throw new Error(`PlaceOrder: ${r.code} ${r.message}`)
      run(engine, { type: 'CancelOrder', userId: TRADER, orderId: spec.id })
      if (i % 500 === 499) engine.takeChanges()
    }
    check.sort()
    place.sort()
    printLine(
      `margin check, account with ${n} position${n === 1 ? '' : 's'}`,
      `check p50 ${percentile(check, 0.5).toFixed(2)} µs  p99 ${percentile(check, 0.99).toFixed(2)} µs  ` +
        `PlaceOrder p50 ${percentile(place, 0.5).toFixed(2)} µs  p99 ${percentile(place, 0.99).toFixed(2)} µs`,
    )
  }
  await benchOptionMargin()
}

const OPTION_POSITIONS = 50
const DAY_MS = 86_400_000

/** An option's theoretical price in ticks at the engine's marks (where the maker rests, inside the band). */
function theoTicks(state: EngineState, m: MarketSpec): number {
  const fam = familyCatalog(m.family)!
  const price = (id: string | undefined) => (id && state.marks.get(id) ? { price: Number(state.marks.get(id)!.price), sourceTs: T0 } : null)
  const future = [...state.markets.values()].find((x) => x.spec.family === m.family && x.spec.type === 'future' && x.spec.expiryMs === m.expiryMs! + 7 * DAY_MS)
  const spot = price(fam.spotId)!
  const forward = optionForward({ nowMs: T0, expiryMs: m.expiryMs!, rate: fam.rate, spot, matchingFuture: price(future?.spec.id) })!
  const theo = optionTheo({
    nowMs: T0, expiryMs: m.expiryMs!, strike: Number(m.strike), isCall: m.optionType === 'call', forward: forward.price, indexSpot: spot.price,
    rate: fam.rate, smile: smileFor(fam.options!, (m.expiryMs! - T0) / DAY_MS), tick: D(m.tickSize),
  })
  return Math.max(1, theo.price.div(m.tickSize).round().toNumber())
}


export async function benchOptionMargin(): Promise<void> {
  const markets = plannedMarkets(CATALOG, { nowMs: T0, spotRef: (f) => SPOT_PRICE[f]!, defaultStaleMarkMs: 5_000 }).map((m) => ({ ...m, staleMarkMs: 1e12 }))
  const engine = listedEngine(markets, 'options')
  // Strikes round-robin over the expiries, nearest the money first: 50 options across every expiry.
  const options = markets.filter((m) => m.type === 'option')
  const expiries = [...new Set(options.map((m) => m.expiryMs!))].sort((a, b) => a - b)
  const byExpiry = expiries.map((e) => options.filter((m) => m.expiryMs === e).sort((a, b) => Math.abs(Number(a.strike) - 100_000) - Math.abs(Number(b.strike) - 100_000)))
  const held: MarketSpec[] = []
  for (let i = 0; held.length < OPTION_POSITIONS; i++) for (const list of byExpiry) if (list[i] && held.length < OPTION_POSITIONS) held.push(list[i]!)
  // The trader buys in even ones and sells in odd ones, 1 to 5 lots, from the maker resting at the theo.
  held.forEach((m, i) => {
    const trader = i % 2 === 0 ? 'buy' : 'sell'
    const lots = 1 + (i % 5)
    run(engine, { type: 'PlaceOrder', userId: MAKER, order: order(m.id, trader === 'buy' ? 'sell' : 'buy', theoTicks(engine.state, m), lots), kind: 'option' })
    run(engine, { type: 'PlaceOrder', userId: TRADER, order: order(m.id, trader, null, lots), kind: 'option' })
  })
  engine.takeChanges()
  const account = engine.state.accounts.get(TRADER)!
  const positions = [...account.positions.values()].filter((p) => p.lots !== 0).length
  if (positions !== OPTION_POSITIONS) throw new Error(`expected ${OPTION_POSITIONS} option positions, have ${positions}`)

  // A sell one tick above the theo of a held option: rests (the maker's side is filled), adds to the grid.
  const target = held[1]!
  const ask = theoTicks(engine.state, target) + 1
  const market = engine.state.markets.get(target.id)!
  const check = new Float64Array(CHECKS)
  for (let i = 0; i < CHECKS; i++) {
    const s = process.hrtime.bigint()
    checkOptionOrders(engine.state, account, [{ market, side: 'sell', lots: 1, priceTicks: ask }])
    check[i] = Number(process.hrtime.bigint() - s) / 1000
  }
  const preview = new Float64Array(CHECKS)
  for (let i = 0; i < CHECKS; i++) {
    const s = process.hrtime.bigint()
    const r = engine.apply({ id: `v${i}`, ts: T0, cmd: { type: 'PreviewOrder', userId: TRADER, order: order(target.id, 'sell', ask), kind: 'option' } })
    preview[i] = Number(process.hrtime.bigint() - s) / 1000
    if (!r.ok || !(r.value as { approved: boolean }).approved) throw new Error(`PreviewOrder: ${JSON.stringify(r)}`)
  }
  const place = new Float64Array(CHECKS)
  for (let i = 0; i < CHECKS; i++) {
    const spec = order(target.id, 'sell', ask)
    const s = process.hrtime.bigint()
    const r = engine.apply({ id: `p${i}`, ts: T0, cmd: { type: 'PlaceOrder', userId: TRADER, order: spec, kind: 'option' } })
    place[i] = Number(process.hrtime.bigint() - s) / 1000
    if (!r.ok) throw new Error(`PlaceOrder: ${r.code} ${r.message}`)
    run(engine, { type: 'CancelOrder', userId: TRADER, orderId: spec.id, kind: 'option' })
    if (i % 500 === 499) engine.takeChanges()
  }
  check.sort()
  preview.sort()
  place.sort()
  printLine(
    `option margin check, account with ${OPTION_POSITIONS} option positions`,
    `check p50 ${percentile(check, 0.5).toFixed(2)} µs  p99 ${percentile(check, 0.99).toFixed(2)} µs  ` +
      `PreviewOrder p50 ${percentile(preview, 0.5).toFixed(2)} µs  p99 ${percentile(preview, 0.99).toFixed(2)} µs  ` +
      `PlaceOrder p50 ${percentile(place, 0.5).toFixed(2)} µs  p99 ${percentile(place, 0.99).toFixed(2)} µs  (${expiries.length} expiries)`,
  )
}
