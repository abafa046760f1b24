// A seeded generator of mixed trading commands for randomized tests: orders of every kind on spot,
// perpetuals and futures, cancels and modifies (of live and dead orders), quotes and bulk quotes,
// transfers, faucet calls, marks moving, and a share of plainly invalid requests.
import { parseLinearOrder, type OrderSpec } from '../../src/domain/orders.js'
import { mulberry32, type Rng } from '../../src/domain/prng.js'
import type { Command, CommandEnvelope } from '../../src/engine/commands.js'
import type { EngineState } from '../../src/engine/state.js'
import type { AssetClass, MarketSpec } from '../../src/domain/market.js'
import { catalogAt } from './engineFixtures.js'

const USDC = 1_000_000n
export const HOUSE = 'house'

export class RandomTrading {
  private readonly rng: Rng
  private seq = 0
  readonly users: string[]
  markets: MarketSpec[]
  private readonly mids = new Map<string, number>()
  now: number
  /** Every market listed, the generated families' relabelled to `oneAssetClass` when given. */
  private readonly catalog: (t?: number) => MarketSpec[]

  /** `oneAssetClass` lists both generated families (BTC, XAUT) in that asset class: the catalog has one
   * family per class, so only then does the portfolio margin's correlation credit between families apply. */
  constructor(seed: number, t0: number, userCount = 20, oneAssetClass?: AssetClass) {
    this.rng = mulberry32(seed)
    this.now = t0
    this.catalog = (t) => catalogAt(t).map((m) => (oneAssetClass && (m.family === 'BTC' || m.family === 'XAUT') ? { ...m, assetClass: oneAssetClass } : m))
    this.markets = this.catalog().filter((m) => m.type !== 'option' && (m.family === 'BTC' || m.family === 'XAUT'))
    this.users = Array.from({ length: userCount }, (_, i) => `user-${String(i).padStart(2, '0')}`)
    for (const m of this.markets) this.mids.set(m.id, m.family === 'BTC' ? 95_000 : 4_000)
  }

  private pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rng() * xs.length)]!
  }

  private env(cmd: Command): CommandEnvelope {
    return { id: `r${++this.seq}`, ts: this.now, cmd, replyTo: 'test' }
  }

  /** Funding for every user plus the house's spot inventory, so trading can start. */
  setup(): CommandEnvelope[] {
    const out: CommandEnvelope[] = [this.env({ type: 'ListMarkets', markets: this.catalog() }), this.marks()]
    const spots = this.markets.filter((m) => m.type === 'spot')
    out.push(this.env({ type: 'Genesis', userId: HOUSE, usdcMicro: String(10_000_000n * USDC), holdings: spots.map((m) => ({ marketId: m.id, lots: m.family === 'BTC' ? 200_000 : 200_000 })) }))
    for (const u of [HOUSE, ...this.users]) {
      out.push(this.env({ type: 'Faucet', userId: u, amountMicro: String(100_000n * USDC), dailyCapMicro: String(100_000n * USDC) }))
      out.push(this.env({ type: 'Transfer', userId: u, from: 'wallet', to: 'perps', amountMicro: String(60_000n * USDC) }))
      out.push(this.env({ type: 'Transfer', userId: u, from: 'wallet', to: 'spot', amountMicro: String(40_000n * USDC) }))
    }
    return out
  }

  private marks(): CommandEnvelope {
    const marks = this.markets
      .filter((m) => m.type === 'spot' || m.type === 'future')
      .map((m) => {
        const mid = this.mids.get(m.id)!
        const decimals = m.tickSize.split('.')[1]?.length ?? 0
        return { marketId: m.id, price: mid.toFixed(decimals), source: 'sim', sourceTs: this.now }
      })
    return this.env({ type: 'UpdateMarks', marks })
  }

  private price(marketId: string, spreadTicks: number, side: 'buy' | 'sell', cross = false): string {
    const m = this.markets.find((x) => x.id === marketId)!
    const tick = Number(m.tickSize)
    const mid = this.mids.get(marketId)!
    const off = (1 + Math.floor(this.rng() * spreadTicks)) * tick
    const p = cross ? (side === 'buy' ? mid + off : mid - off) : side === 'buy' ? mid - off : mid + off
    const decimals = m.tickSize.split('.')[1]?.length ?? 0
    return (Math.round(p / tick) * tick).toFixed(decimals)
  }

  private orderSpec(userId: string, state: EngineState): OrderSpec {
    const m = this.pick(this.markets)
    const r = this.rng()
    const side = this.rng() < 0.5 ? 'buy' : 'sell'
    const tif = r < 0.75 ? 'gtc' : r < 0.88 ? 'ioc' : 'fok'
    const type = this.rng() < 0.1 ? 'market' : 'limit'
    const qty = m.family === 'BTC' ? (0.001 * (1 + Math.floor(this.rng() * 200))).toFixed(3) : (0.01 * (1 + Math.floor(this.rng() * 300))).toFixed(2)
    const pos = state.accounts.get(userId)?.positions.get(m.id)?.lots ?? 0
    const reduceOnly = pos !== 0 && this.rng() < 0.1
    const postOnly = type === 'limit' && tif === 'gtc' && this.rng() < 0.15
    const mid = this.mids.get(m.id)!
    const at = (f: number) => this.price(m.id, 1, 'buy', false).replace(/^.*$/, (mid * f).toFixed(m.tickSize.split('.')[1]?.length ?? 0))
    const conditional = m.type !== 'spot' ? this.rng() : 1
    // Some stops (beyond the mark, to be triggered by its moves), some orders carrying a take-profit
    // and a stop-loss; the checks refuse the ones on the wrong side.
    const stopPrice = conditional < 0.08 ? at(side === 'buy' ? 1.002 : 0.998) : undefined
    const takeProfitPrice = conditional >= 0.08 && conditional < 0.16 && !reduceOnly ? at(side === 'buy' ? 1.004 : 0.996) : undefined
    const stopLossPrice = takeProfitPrice ? at(side === 'buy' ? 0.996 : 1.004) : undefined
    return parseLinearOrder(
      {
        marketId: m.id,
        side: reduceOnly ? (pos > 0 ? 'sell' : 'buy') : side,
        type,
        price: this.price(m.id, 40, side, this.rng() < 0.25),
        quantity: qty,
        timeInForce: type === 'market' && tif === 'gtc' ? 'ioc' : tif,
        postOnly,
        reduceOnly,
        clientOrderId: this.rng() < 0.2 ? `c${Math.floor(this.rng() * 5_000)}` : undefined,
        marginMode: m.type !== 'spot' && this.rng() < 0.15 ? 'isolated' : 'cross',
        stopPrice,
        takeProfitPrice,
        stopLossPrice,
      },
      m,
      `o${++this.seq}`,
    )
  }

  /** The front futures of the generated families, which `expire()` settles. */
  frontFutures(): MarketSpec[] {
    return ['BTC', 'XAUT'].map((f) => this.markets.filter((m) => m.family === f && m.type === 'future').sort((a, b) => a.expiryMs! - b.expiryMs!)[0]!)
  }

  /** Moves the clock (time travel) and re-marks every market at once, so trading can go on. */
  jumpTo(t: number): CommandEnvelope[] {
    this.now = t
    return [this.marks(), this.env({ type: 'Tick' })]
  }

  /**
   * At the front futures' expiry: lists the next quarter (marked at its family's price) and expires the
   * front futures, which settle; trading then goes on with the new curve.
   */
  expire(): CommandEnvelope[] {
    const front = this.frontFutures()
    this.now = front[0]!.expiryMs!
    const listed = this.catalog(this.now).filter((m) => m.type === 'future' && (m.family === 'BTC' || m.family === 'XAUT') && !this.markets.some((x) => x.id === m.id))
    for (const m of listed) this.mids.set(m.id, this.mids.get(front.find((f) => f.family === m.family)!.id)!)
    const out = [this.env({ type: 'ListMarkets', markets: listed }), ...front.map((f) => this.env({ type: 'ExpireMarket', marketId: f.id }))]
    this.markets = [...this.markets.filter((m) => !front.includes(m)), ...listed]
    out.push(this.marks(), this.env({ type: 'Tick' }))
    return out
  }

  /** The next command, given the state so far (to pick live orders to cancel or modify). */
  next(state: EngineState): CommandEnvelope {
    this.now += 1 + Math.floor(this.rng() * 20)
    const r = this.rng()
    const userId = this.pick(this.users)
    const open = [...state.orders.values()]
    if (r < 0.03) {
      // Mostly small moves; now and then a crash or a spike of 4%, which liquidates the overextended.
      const shock = this.rng() < 0.03 ? (this.rng() < 0.5 ? -0.04 : 0.04) : (this.rng() - 0.5) * 0.006
      for (const m of this.markets) if (m.type !== 'perpetual') this.mids.set(m.id, this.mids.get(m.id)! * (1 + shock))
      return this.marks()
    }
    if (r < 0.04) return this.env({ type: 'Tick' })
    if (r < 0.6) return this.env({ type: 'PlaceOrder', userId, order: this.orderSpec(userId, state) })
    if (r < 0.75) {
      const target = open.length > 0 && this.rng() < 0.9 ? this.pick(open) : null
      return this.env({ type: 'CancelOrder', userId: target?.userId ?? userId, orderId: target?.id ?? `o${Math.floor(this.rng() * this.seq)}` })
    }
    if (r < 0.83 && open.length > 0) {
      const o = this.pick(open)
      const m = state.markets.get(o.marketId)!
      const priceTicks = this.rng() < 0.5 ? o.priceTicks! + Math.round((this.rng() - 0.5) * 20) : null
      const lots = priceTicks === null || this.rng() < 0.5 ? Math.max(m.minLots, o.filledLots + 1 + Math.floor(this.rng() * (o.lots + 20))) : null
      return this.env({ type: 'ModifyOrder', userId: o.userId, orderId: o.id, priceTicks, lots })
    }
    if (r < 0.9) {
      const m = this.pick(this.markets)
      const quoteId = `q${Math.floor(this.rng() * 50)}`
      const n = this.rng() < 0.5 ? 2 : 1 + Math.floor(this.rng() * 6)
      const orders = Array.from({ length: n }, (_, i) => {
        const side = n === 2 ? (i === 0 ? 'buy' : 'sell') : this.rng() < 0.5 ? 'buy' : 'sell'
        return parseLinearOrder({ marketId: m.id, side, price: this.price(m.id, 30, side), quantity: m.minQuantity, postOnly: true }, m, `o${++this.seq}`, quoteId)
      })
      const cancelFirst = n !== 2 && this.rng() < 0.5
      // Half the replacing bulk quotes amend in place; chosen by the order counter, so the stream's draws stay as they were.
      return this.env({ type: 'PlaceQuotes', userId, marketId: m.id, quoteId, orders, cancelFirst, amend: cancelFirst && this.seq % 2 === 0 })
    }
    if (r < 0.93) return this.env({ type: 'CancelAll', userId, marketId: this.rng() < 0.5 ? this.pick(this.markets).id : null })
    if (r < 0.98) {
      const buckets = ['wallet', 'spot', 'perps'] as const
      return this.env({ type: 'Transfer', userId, from: this.pick(buckets), to: this.pick(buckets), amountMicro: String(BigInt(1 + Math.floor(this.rng() * 5_000)) * USDC) })
    }
    return this.env({ type: 'Faucet', userId, amountMicro: String(BigInt(1 + Math.floor(this.rng() * 1_000)) * USDC), dailyCapMicro: String(100_000n * USDC) })
  }
}
