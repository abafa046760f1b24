// A seeded generator of mixed trading commands for randomized tests: orders of every kind on spot,
// perpetuals, futures and options, cancels and modifies (of live and dead orders), quotes and bulk
// quotes, transfers, faucet calls, marks moving, option expiries crossed, market-maker protection
// configured (in and out of range), tripped and reset, and a share of plainly invalid requests.
import { familyCatalog, smileFor } from '../../src/config/catalog.js'
import { DAY_MS, WEEK_MS } from '../../src/domain/calendar.js'
import { D } from '../../src/domain/decimal.js'
import { parseLinearOrder, type OrderSpec } from '../../src/domain/orders.js'
import { optionForward, optionTheo } from '../../src/domain/pricing/optionTheo.js'
import { mulberry32, type Rng } from '../../src/domain/prng.js'
import type { Command, CommandEnvelope } from '../../src/engine/commands.js'
import type { EngineState } from '../../src/engine/state.js'
import type { AssetClass, MarketSpec } from '../../src/domain/market.js'
import { catalogAt } from './engineFixtures.js'

const USDC = 1_000_000n
export const HOUSE = 'house'

export class RandomTrading {
  private readonly rng: Rng
  /** Market-maker protection's draws. */
  private readonly mmpRng: Rng
  /** Money on chain's draws: deposits, withdrawals and their outcomes. */
  private readonly chainRng: Rng
  private chainSeq = 0
  private readonly credited: Array<{ txHash: string; logIndex: number; userId: string }> = []
  private seq = 0
  readonly users: string[]
  markets: MarketSpec[]
  private readonly mids = new Map<string, number>()
  now: number
  /** Every market listed, the generated families' relabelled to `oneAssetClass` when given. */
  private readonly catalog: (t?: number) => MarketSpec[]

  /** `oneAssetClass` lists both generated families (BTC, XAUT) in that asset class: the catalog has one
   * family per class, so only then does the portfolio margin's correlation credit between families apply. */
  /** The option markets traded: near-the-money BTC strikes of the first weekly expiry (synthetic
   * forward) and of the expiry on the second quarterly (the future's forward, alive past the first). */
  options: MarketSpec[]
  /** Every option market listed and not yet expired, which expiries crossed settle. */
  private listedOptions: MarketSpec[]

  constructor(seed: number, t0: number, userCount = 20, oneAssetClass?: AssetClass) {
    this.rng = mulberry32(seed)
    this.mmpRng = mulberry32(seed ^ 0x6d6d70)
    this.chainRng = mulberry32(seed ^ 0x636861)
    this.now = t0
    this.catalog = (t) => catalogAt(t).map((m) => (oneAssetClass && (m.family === 'BTC' || m.family === 'XAUT') ? { ...m, assetClass: oneAssetClass } : m))
    this.markets = this.catalog().filter((m) => m.type !== 'option' && (m.family === 'BTC' || m.family === 'XAUT'))
    this.users = Array.from({ length: userCount }, (_, i) => `user-${String(i).padStart(2, '0')}`)
    for (const m of this.markets) this.mids.set(m.id, m.family === 'BTC' ? 95_000 : 4_000)
    this.listedOptions = this.catalog().filter((m) => m.type === 'option')
    const futures = this.markets.filter((m) => m.family === 'BTC' && m.type === 'future').sort((a, b) => a.expiryMs! - b.expiryMs!)
    const expiries = [...new Set(this.listedOptions.map((m) => m.expiryMs!))].sort((a, b) => a - b)
    const traded = new Set([expiries[0], futures[1]!.expiryMs! - WEEK_MS])
    this.options = this.listedOptions.filter((m) => traded.has(m.expiryMs!) && Number(m.strike) >= 85_000 && Number(m.strike) <= 105_000)
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
      out.push(this.env({ type: 'Faucet', userId: u, amountMicro: String(130_000n * USDC), dailyCapMicro: String(130_000n * USDC) }))
      out.push(this.env({ type: 'Transfer', userId: u, from: 'wallet', to: 'perps', amountMicro: String(60_000n * USDC) }))
      out.push(this.env({ type: 'Transfer', userId: u, from: 'wallet', to: 'spot', amountMicro: String(40_000n * USDC) }))
      out.push(this.env({ type: 'Transfer', userId: u, from: 'wallet', to: 'options', amountMicro: String(30_000n * USDC) }))
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

  /** The option's theoretical price in ticks at the generator's mids and clock (what the engine marks it at, near enough). */
  private theoTicks(m: MarketSpec): number {
    const fam = familyCatalog(m.family)!
    const spot = this.mids.get(fam.spotId)!
    const future = this.markets.find((x) => x.family === m.family && x.type === 'future' && x.expiryMs === m.expiryMs! + WEEK_MS)
    const at = (price: number) => ({ price, sourceTs: this.now })
    const forward = optionForward({ nowMs: this.now, expiryMs: m.expiryMs!, rate: fam.rate, spot: at(spot), matchingFuture: future ? at(this.mids.get(future.id)!) : null })!
    const theo = optionTheo({
      nowMs: this.now, expiryMs: m.expiryMs!, strike: Number(m.strike), isCall: m.optionType === 'call', forward: forward.price,
      indexSpot: spot, rate: fam.rate, smile: smileFor(fam.options!, (m.expiryMs! - this.now) / DAY_MS), tick: D(m.tickSize),
    })
    return Math.round(theo.price.div(m.tickSize).toNumber())
  }

  /** A price near the option's theo: inside the spread by up to a fifth of it, or crossing it. */
  private optionPriceTicks(m: MarketSpec, side: 'buy' | 'sell', cross: boolean): number {
    const theo = this.theoTicks(m)
    const off = 1 + Math.floor(this.rng() * Math.max(5, theo * 0.2))
    return Math.max(1, cross === (side === 'buy') ? theo + off : theo - off)
  }

  private optionPrice(m: MarketSpec, side: 'buy' | 'sell', cross = false): string {
    return D(this.optionPriceTicks(m, side, cross)).mul(m.tickSize).toFixed()
  }

  /** An option order: limit or market, gtc/ioc/fok, postOnly, reduceOnly against a position, buys and sells. */
  private optionSpec(userId: string, state: EngineState): OrderSpec {
    const m = this.pick(this.options)
    const r = this.rng()
    const side = this.rng() < 0.5 ? 'buy' : 'sell'
    const tif = r < 0.7 ? 'gtc' : r < 0.85 ? 'ioc' : 'fok'
    const type = this.rng() < 0.1 ? 'market' : 'limit'
    const pos = state.accounts.get(userId)?.positions.get(m.id)?.lots ?? 0
    const reduceOnly = pos !== 0 && this.rng() < 0.15
    const closing = reduceOnly ? (pos > 0 ? 'sell' : 'buy') : side
    const spec = parseLinearOrder(
      {
        marketId: m.id,
        side: closing,
        type,
        price: this.optionPrice(m, closing, this.rng() < 0.3),
        quantity: (0.01 * (1 + Math.floor(this.rng() * 50))).toFixed(2),
        timeInForce: type === 'market' && tif === 'gtc' ? 'ioc' : tif,
        postOnly: type === 'limit' && tif === 'gtc' && this.rng() < 0.15,
        reduceOnly,
        clientOrderId: this.rng() < 0.2 ? `c${Math.floor(this.rng() * 5_000)}` : undefined,
        marginMode: 'cross',
      },
      m,
      `o${++this.seq}`,
    )
    // Now and then (by the order counter, so the stream's draws stay as they were) a limit price two band
    // widths (a share of the forward, ≈ of the underlying) above where it was: outside the band, refused.
    if (spec.type !== 'limit' || this.seq % 40 !== 0) return spec
    return { ...spec, priceTicks: spec.priceTicks! + Math.ceil((2 * m.priceBandBps) / 10_000 / Number(m.tickSize)) }
  }

  /** The first expiry of the traded options, which `expireOptions()` crosses. */
  optionExpiry(): number {
    return Math.min(...this.options.map((m) => m.expiryMs!))
  }

  /** At 08:00 UTC of the first traded option expiry: its options expire and settle; trading goes on in the later ones. */
  expireOptions(): CommandEnvelope[] {
    return this.crossOptionExpiries(this.optionExpiry())
  }

  /** Every option expiry up to `t`, in order: the clock at it, marks, the expiring markets settled. */
  private crossOptionExpiries(t: number): CommandEnvelope[] {
    const out: CommandEnvelope[] = []
    for (const expiry of [...new Set(this.listedOptions.map((m) => m.expiryMs!))].sort((a, b) => a - b)) {
      if (expiry > t) break
      this.now = expiry
      out.push(this.marks())
      for (const m of this.listedOptions.filter((x) => x.expiryMs === expiry)) out.push(this.env({ type: 'ExpireMarket', marketId: m.id }))
      this.listedOptions = this.listedOptions.filter((x) => x.expiryMs !== expiry)
      this.options = this.options.filter((x) => x.expiryMs !== expiry)
      out.push(this.env({ type: 'Tick' }))
    }
    return out
  }

  /** The front futures of the generated families, which `expire()` settles. */
  frontFutures(): MarketSpec[] {
    return ['BTC', 'XAUT'].map((f) => this.markets.filter((m) => m.family === f && m.type === 'future').sort((a, b) => a.expiryMs! - b.expiryMs!)[0]!)
  }

  /** Moves the clock (time travel) and re-marks every market at once, so trading can go on. */
  jumpTo(t: number): CommandEnvelope[] {
    // Option expiries on the way settle at their time, as the scheduler would have.
    const crossed = this.crossOptionExpiries(t)
    this.now = t
    return [...crossed, this.marks(), this.env({ type: 'Tick' })]
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

  /**
   * A market-maker protection configuration on BTC: intervals and freezes from short to long, limits
   * (millionths of BTC) mostly small, so that random sweeps trip them; now and then one out of range
   * (no limit with an interval, an interval or a freeze too long, a negative or fractional figure).
   */
  private mmpConfig(userId: string): Command {
    const rng = this.mmpRng
    const intervalMs = [0, 500, 2_000, 10_000][Math.floor(rng() * 4)]!
    const frozenMs = [0, 1_000, 5_000][Math.floor(rng() * 3)]!
    const quantityLimit = rng() < 0.3 ? 0 : 10_000 * Math.floor(rng() ** 3 * 501)
    const deltaLimit = rng() < 0.4 ? 0 : Math.floor(rng() ** 3 * 3_000_001)
    const cmd = { type: 'SetMmpConfig', userId, underlying: 'BTC', intervalMs, frozenMs, quantityLimit, deltaLimit } as const
    const bad = rng()
    if (bad < 0.03) return { ...cmd, intervalMs: 3_600_001 }
    if (bad < 0.06) return { ...cmd, frozenMs: 86_400_001 }
    if (bad < 0.08) return { ...cmd, intervalMs: -500 }
    if (bad < 0.1) return { ...cmd, quantityLimit: quantityLimit + 0.5 }
    return cmd
  }

  /**
   * Now and then (1.5% of calls) a market-maker protection command, at the clock as it is: a configuration
   * or a reset. From draws of their own and in between `next()`'s commands, so the rest of the stream,
   * its clock and its time travel fall as they did without them.
   */
  nextMmp(): CommandEnvelope | null {
    if (this.mmpRng() >= 0.015) return null
    const userId = this.users[Math.floor(this.mmpRng() * this.users.length)]!
    return this.env(this.mmpRng() < 0.7 ? this.mmpConfig(userId) : { type: 'ResetMmp', userId, underlying: 'BTC' })
  }

  /**
   * Now and then (1.5% of calls) money crossing the chain, at the clock as it is: a final deposit (now and
   * then one already credited, which changes nothing), a withdrawal request (some beyond what came in on
   * chain, refused WITHDRAWAL_NOT_ALLOWED, or beyond the wallet), or the end of a pending withdrawal,
   * completed or failed and refunded. From draws of their own, as nextMmp().
   */
  nextChain(state: EngineState): CommandEnvelope | null {
    const rng = this.chainRng
    if (rng() >= 0.015) return null
    const userId = this.users[Math.floor(rng() * this.users.length)]!
    const r = rng()
    const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`
    if (r < 0.4) {
      if (this.credited.length > 0 && rng() < 0.1) {
        const again = this.credited[Math.floor(rng() * this.credited.length)]!
        return this.env({ type: 'CreditDeposit', ...again, blockNumber: 1, fromAddress: ADDRESS, amountMicro: String(1_000n * USDC) })
      }
      const d = { txHash: hash(++this.chainSeq), logIndex: Math.floor(rng() * 3), userId }
      this.credited.push(d)
      return this.env({ type: 'CreditDeposit', ...d, blockNumber: this.chainSeq, fromAddress: ADDRESS, amountMicro: String(BigInt(1 + Math.floor(rng() * 3_000)) * USDC) })
    }
    const pending = [...state.withdrawals.keys()].sort()
    if (r < 0.7 || pending.length === 0) {
      const amount = BigInt(1 + Math.floor(rng() * 4_000)) * USDC
      return this.env({ type: 'RequestWithdrawal', userId, withdrawalId: `w${++this.chainSeq}`, amountMicro: String(amount), toAddress: ADDRESS })
    }
    const withdrawalId = pending[Math.floor(rng() * pending.length)]!
    return this.env(
      rng() < 0.7
        ? { type: 'CompleteWithdrawal', withdrawalId, txHash: hash(0xfeed00 + ++this.chainSeq) }
        : { type: 'FailWithdrawal', withdrawalId, txHash: null, reason: 'reverted' },
    )
  }

  /** The next command, given the state so far (to pick live orders to cancel or modify). */
  next(state: EngineState): CommandEnvelope {
    this.now += 1 + Math.floor(this.rng() * 20)
    const r = this.rng()
    const userId = this.pick(this.users)
    const open = [...state.orders.values()]
    // About a quarter of the orders, quotes and cancel-alls are on options.
    const option = this.options.length > 0 && this.rng() < 0.25
    const kindOf = (marketId: string): Kind => (state.markets.get(marketId)?.spec.type === 'option' ? 'option' : 'linear')
    if (r < 0.03) {
      // Mostly small moves; now and then a crash or a spike of 4%, which liquidates the overextended.
      // Spot and futures move, so the options' forwards (futures' marks and synthetic ones) move too.
      const shock = this.rng() < 0.03 ? (this.rng() < 0.5 ? -0.04 : 0.04) : (this.rng() - 0.5) * 0.006
      for (const m of this.markets) if (m.type !== 'perpetual') this.mids.set(m.id, this.mids.get(m.id)! * (1 + shock))
      return this.marks()
    }
    if (r < 0.04) return this.env({ type: 'Tick' })
    if (r < 0.6) {
      // A quarter of the option orders are under market-maker protection.
      if (option) return this.env({ type: 'PlaceOrder', userId, order: this.optionSpec(userId, state), kind: 'option', mmp: this.mmpRng() < 0.25 } as Command)
      return this.env({ type: 'PlaceOrder', userId, order: this.orderSpec(userId, state) })
    }
    if (r < 0.75) {
      const target = open.length > 0 && this.rng() < 0.9 ? this.pick(open) : null
      // Mostly the order's kind; now and then none (any kind), or the wrong one, which does not find it.
      const k = this.rng()
      const kind = target === null || k < 0.1 ? undefined : k < 0.15 ? (kindOf(target.marketId) === 'option' ? 'linear' : 'option') : kindOf(target.marketId)
      return this.env({ type: 'CancelOrder', userId: target?.userId ?? userId, orderId: target?.id ?? `o${Math.floor(this.rng() * this.seq)}`, kind } as Command)
    }
    if (r < 0.83 && open.length > 0) {
      const o = this.pick(open)
      const m = state.markets.get(o.marketId)!
      const moved = o.priceTicks! + Math.round((this.rng() - 0.5) * 20)
      const priceTicks = this.rng() < 0.5 ? (m.spec.type === 'option' ? Math.max(1, moved) : moved) : null
      const lots = priceTicks === null || this.rng() < 0.5 ? Math.max(m.minLots, o.filledLots + 1 + Math.floor(this.rng() * (o.lots + 20))) : null
      return this.env({ type: 'ModifyOrder', userId: o.userId, orderId: o.id, priceTicks, lots, kind: kindOf(o.marketId) } as Command)
    }
    if (r < 0.9) {
      const m = option ? this.pick(this.options) : this.pick(this.markets)
      const quoteId = `q${Math.floor(this.rng() * 50)}`
      const n = this.rng() < 0.5 ? 2 : 1 + Math.floor(this.rng() * 6)
      const orders = Array.from({ length: n }, (_, i) => {
        const side = n === 2 ? (i === 0 ? 'buy' : 'sell') : this.rng() < 0.5 ? 'buy' : 'sell'
        const price = option ? this.optionPrice(m, side) : this.price(m.id, 30, side)
        return parseLinearOrder({ marketId: m.id, side, price, quantity: m.minQuantity, postOnly: true }, m, `o${++this.seq}`, quoteId)
      })
      const cancelFirst = n !== 2 && this.rng() < 0.5
      // Half the replacing bulk quotes amend in place; chosen by the order counter, so the stream's draws stay as they were.
      const cmd = { type: 'PlaceQuotes', userId, marketId: m.id, quoteId, orders, cancelFirst, amend: cancelFirst && this.seq % 2 === 0 } as const
      return this.env(option ? ({ ...cmd, kind: 'option' } as Command) : cmd)
    }
    if (r < 0.93) {
      const marketId = this.rng() < 0.5 ? (option ? this.pick(this.options) : this.pick(this.markets)).id : null
      // One kind, or every kind when none is named; a market of the other kind is refused.
      const k = this.rng()
      const kind: Kind | undefined = k < 0.4 ? undefined : k < 0.95 ? (marketId ? kindOf(marketId) : option ? 'option' : 'linear') : marketId && kindOf(marketId) === 'option' ? 'linear' : 'option'
      return this.env({ type: 'CancelAll', userId, marketId, kind } as Command)
    }
    if (r < 0.98) {
      const buckets = ['wallet', 'spot', 'perps', 'options'] as const
      return this.env({ type: 'Transfer', userId, from: this.pick(buckets), to: this.pick(buckets), amountMicro: String(BigInt(1 + Math.floor(this.rng() * 5_000)) * USDC) })
    }
    return this.env({ type: 'Faucet', userId, amountMicro: String(BigInt(1 + Math.floor(this.rng() * 1_000)) * USDC), dailyCapMicro: String(100_000n * USDC) })
  }
}

type Kind = 'linear' | 'option'

/** The address deposits come from and withdrawals go to in the generated stream. */
const ADDRESS = '0x00000000000000000000000000000000000c0ffe'
