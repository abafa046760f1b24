// The liquidity simulator (role maker, DESIGN.md §4): on a fresh install every active linear market gets a
// live two-sided book, trades and candles within seconds. Two ordinary users do it through the public
// HTTP API, as any outside bot would: the house (signed in with SIWE, trading with its own `trade` API
// key at the market-maker rate tier) moves a ladder around the mark on each market with one bulk quote
// (`cancelAll` with `amend`: atomic, one rate-limit unit, and its resting orders are amended in place,
// so requoting keeps order ids and rows instead of adding ten rows a ladder), and a small taker sends
// market orders now and then so the ladders trade. The house also quotes every BTC option within ±20%
// of its forward (optionQuotes.ts) through the options bulk-quote path, under market-maker protection
// of its own (POST /mmp/config). The engine sees nothing special: no back door.
//
// One instance quotes at a time across all processes (the `maker:lease`). Its orders are guarded by
// the dead man's switch, re-armed every round, so a crashed instance's ladders are cancelled within
// seconds; a clean stop cancels them at once and disarms the switch.
import type { Redis } from 'ioredis'
import type { Logger } from 'pino'
import { privateKeyToAccount } from 'viem/accounts'
import type { Identity } from '../../auth/identity.js'
import type { CommandBus } from '../../bus/commandBus.js'
import type { RedisKeys } from '../../bus/keys.js'
import { Lease } from '../../bus/lease.js'
import { ConfigError, ownOrigin, type Config } from '../../config/env.js'
import type { Clock } from '../../domain/clock.js'
import { DomainError } from '../../domain/errors.js'
import { fnv1a } from '../../domain/fnv1a.js'
import { mulberry32, type Rng } from '../../domain/prng.js'
import { LeasedLoops } from '../scheduler/leasedLoops.js'
import { ApiError, ExchangeClient } from './exchangeClient.js'
import { fundFromFaucet, genesisCommand, HOUSE_BUCKETS, needsGenesis, TAKER_BUCKETS, topUpBuckets } from './funding.js'
import { buildLadder, type LadderQuote } from './ladder.js'
import { DEFAULT_OPTION_QUOTES, optionQuotes, quotesOption, type QuotedOption } from './optionQuotes.js'
import { familyCatalog } from '../../config/catalog.js'
import { provisionTrader, type TraderCredential } from './signIn.js'
import { nextTakerOrder, type TakerPosition } from './taker.js'

/** API key names; an instance revokes the active keys of these names before creating its own. */
export const MAKER_KEY_NAME = 'sim-maker'
export const TAKER_KEY_NAME = 'sim-taker'
/** The quoteId of every ladder order. */
export const SIM_QUOTE_ID = 'sim-maker'
/** Share of the house's order-rate limit the ladders may use; the rest is headroom. */
const RATE_SHARE = 0.6
/** Chance per round that the taker sends an order. */
const TAKER_CHANCE = 0.5
/** How often the taker's funding is re-checked, in its own orders. */
const TAKER_FUNDING_EVERY = 100
const FUNDING_RETRY_MS = 60_000
const WARN_EVERY_MS = 30_000
const REQUEST_TIMEOUT_MS = 10_000

/** Codes that mean "not this market right now": skipped quietly, tried again on a later round. */
const SKIP_CODES = new Set(['MISSING_MARK_PRICE', 'STALE_MARK_PRICE', 'NO_RISK_ARRAY', 'MARKET_HALTED', 'POST_ONLY_WOULD_CROSS', 'INVALID_PRICE', 'INVALID_MARKET_ID', 'MMP_FROZEN'])
/** The house's market-maker protection on its option quotes: a burst of fills pulls them for a moment. */
export const HOUSE_MMP = { underlying: 'BTC', intervalMs: 1_000, frozenMs: 3_000, quantityLimit: '25', deltaLimit: '10' }
/** The options bucket the house keeps for its short options' margin. */
const HOUSE_OPTIONS_USDC = 5_000_000
/** Unchanged option quotes are sent again this often anyway: fills and protection trips end them unseen. */
const OPTION_RESEND_MS = 5_000
const OPTIONS_QUERY = /* GraphQL */ `query SimMakerOptions { optionsBoard(underlying: "BTC") { spotPrice expiryForwards { expiry forward }
  calls { marketId strikePrice expiry markPrice markIv } puts { marketId strikePrice expiry markPrice markIv } }
  markets(linear: false, family: "BTC", first: 500) { edges { node { marketId tradingStatus tickSize stepSize minQuantity } } } }`
const AUTH_CODES = new Set(['INVALID_TOKEN', 'KEY_REVOKED', 'MISSING_CREDENTIAL'])

export interface SimMakerOptions {
  config: Config
  commands: CommandBus
  identity: Identity
  redis: Redis
  keys: RedisKeys
  log: Logger
  instanceId: string
  /** Signs its sign-in messages at this time, the API's own clock. */
  clock: Clock
  /** The port this process's HTTP server is bound to, when the api role runs here. */
  ownPort: number | null
}

interface SimMarket {
  marketId: string
  type: 'spot' | 'perpetual' | 'future'
  active: boolean
  tickSize: string
  stepSize: string
  minQuantity: string
  priceBandLow: string | null
  priceBandHigh: string | null
  mark: { price: string; indexPrice: string | null; sourceTimestamp: string } | null
}

const MARKETS_QUERY = /* GraphQL */ `query SimMakerMarkets { markets(linear: true) { edges { node {
  marketId type tradingStatus tickSize stepSize minQuantity priceBandLow priceBandHigh mark { price indexPrice sourceTimestamp } } } } }`

/** MAKER_API_URL, else this process's own server: loopback for a wildcard or loopback bind. */
export function makerApiUrl(config: Config, ownPort: number | null): string {
  if (config.makerApiUrl) return config.makerApiUrl
  if (ownPort === null) throw new ConfigError('MAKER_API_URL is required when the maker role runs without the api role (or set SIM_MAKER=false)')
  return ownOrigin(config.host, ownPort)
}

export class SimMaker {
  private readonly loops: LeasedLoops
  private readonly api: ExchangeClient
  private readonly log: Logger
  private readonly rng: Rng
  private readonly deadmanMs: number
  private house: TraderCredential | null = null
  private taker: TraderCredential | null = null
  private houseFunded = false
  /** Set before the Genesis command goes out, so an unanswered one is never sent twice. */
  private genesisSent = false
  private takerFunded = false
  private takerFundingRetryAt = 0
  private takerOrders = 0
  private quoting = false
  private markets: SimMarket[] = []
  /** The options quoted (nearest the money first), the index, and the quotes last sent per option. */
  private options: QuotedOption[] = []
  private spot = 0
  /** What was last sent per option and when: unchanged quotes are not sent again for OPTION_RESEND_MS. */
  private readonly sentOptionQuotes = new Map<string, { key: string; at: number }>()
  private optionCursor = 0
  private optionsFunded = false
  /** Mark timestamp the engine refused as stale or missing, per market: skipped until the mark moves. */
  private readonly refusedMarks = new Map<string, string>()
  private cursor = 0
  private round = 0
  private quoted = 0
  private housePausedUntil = 0
  private takerPausedUntil = 0
  private readonly warned = new Map<string, number>()
  private stopping = false
  private stopped: Promise<void> | null = null

  private constructor(private readonly o: SimMakerOptions) {
    this.log = o.log
    this.api = new ExchangeClient(makerApiUrl(o.config, o.ownPort), null, { timeoutMs: REQUEST_TIMEOUT_MS })
    this.rng = mulberry32(o.config.markFeedSeed ^ 0x5eed)
    this.deadmanMs = Math.min(600_000, Math.max(10_000, 10 * o.config.makerIntervalMs))
    const every = o.config.makerIntervalMs
    this.loops = new LeasedLoops(
      new Lease(o.redis, o.keys.makerLease, o.instanceId, o.config.engineLeaseMs),
      [
        { name: 'simMaker.quote', intervalMs: every, run: () => this.guarded('quote', () => this.quoteRound()) },
        { name: 'simMaker.take', intervalMs: every, run: () => this.guarded('take', () => this.takeRound()) },
      ],
      o.log,
    )
  }

  static async start(o: SimMakerOptions): Promise<SimMaker> {
    const maker = new SimMaker(o)
    if (o.config.makerKeysAreDevDefault) {
      maker.log.info({ at: 'SimMaker#start' }, 'sim maker uses the public development wallet keys (set MAKER_PRIVATE_KEY and TAKER_PRIVATE_KEY)')
    }
    await maker.loops.start()
    return maker
  }

  /** Ladders this instance has quoted (bulk quote calls the engine accepted). */
  get laddersQuoted(): number {
    return this.quoted
  }

  /** Whether this instance holds the maker lease (is the one quoting). */
  get isLeader(): boolean {
    return this.loops.isLeader
  }

  /** Lets the running round finish, cancels the house's orders while still holding the lease, then releases it. */
  stop(): Promise<void> {
    this.stopping = true
    this.stopped ??= this.loops.stop(() => this.withdrawQuotes())
    return this.stopped
  }

  private async withdrawQuotes(): Promise<void> {
    const house = this.house
    if (!house) return
    try {
      const { canceled } = await house.api.post<{ canceled: number }>('/perps/orders/cancel-all', {})
      await house.api.post('/orders/cancel-all', {})
      await house.api.post('/orders/cancel-all-after', { timeoutMs: 0 })
      this.log.info({ at: 'SimMaker#stop', canceled }, 'sim maker stopped and withdrew its quotes')
    } catch (err) {
      this.log.warn({ at: 'SimMaker#stop', err }, `sim maker could not withdraw its quotes; the dead man's switch cancels them within ${this.deadmanMs} ms`)
    }
  }

  /** One round of a job, never throwing: credentials are dropped on an auth refusal, other errors logged. */
  private async guarded(job: 'quote' | 'take', run: () => Promise<void>): Promise<void> {
    try {
      await run()
    } catch (err) {
      if (err instanceof ApiError && AUTH_CODES.has(err.code)) {
        // Another instance rotated the key (it took the lease while this one was away): sign in again.
        if (job === 'quote') this.house = null
        else this.taker = null
        this.log.info({ at: `SimMaker#${job}`, code: err.code }, 'sim trader credential refused; signing in again')
        return
      }
      this.warn(`${job}:${err instanceof ApiError ? err.code : 'error'}`, { at: `SimMaker#${job}`, err }, `sim maker ${job} round failed`)
    }
  }

  private warn(key: string, fields: Record<string, unknown>, message: string): void {
    const now = Date.now()
    if (now - (this.warned.get(key) ?? 0) < WARN_EVERY_MS) return
    this.warned.set(key, now)
    this.log.warn(fields, message)
  }

  // --- the house -------------------------------------------------------------------------------------

  /** Signs the house in, grants it the market-maker tier and funds it; null while it cannot quote yet. */
  private async prepareHouse(): Promise<TraderCredential | null> {
    if (!this.house) {
      const wallet = privateKeyToAccount(this.o.config.makerPrivateKey)
      this.house = await provisionTrader(this.api, wallet, MAKER_KEY_NAME, this.o.clock)
      this.quoting = false
      this.optionsFunded = false
      this.sentOptionQuotes.clear()
      this.log.info({ at: 'SimMaker#prepareHouse', userId: this.house.userId, address: this.house.address, keyId: this.house.keyId }, 'sim maker signed in')
      await this.grantMarketMakerTier(this.house)
    }
    const house = this.house
    if (!this.houseFunded) {
      if (await needsGenesis(house.api)) {
        if (this.genesisSent) return null // sent and not visible yet: never mint twice
        const spot = this.markets
          .filter((m) => m.type === 'spot')
          .map((m) => ({ marketId: m.marketId, stepSize: m.stepSize, mark: m.mark?.price ?? null }))
        const genesis = genesisCommand(house.userId, spot)
        if (!genesis) {
          this.log.debug({ at: 'SimMaker#prepareHouse' }, 'waiting for spot marks to size the house inventory')
          return null
        }
        this.genesisSent = true
        try {
          await this.o.commands.execute(genesis)
        } catch (err) {
          // A refusal means nothing happened; a timeout (OUTCOME_UNKNOWN) may still land, so it is not retried.
          if (err instanceof DomainError && err.code !== 'OUTCOME_UNKNOWN' && err.code !== 'UPSTREAM_DEGRADED') this.genesisSent = false
          throw err
        }
        this.log.info({ at: 'SimMaker#genesis', userId: house.userId, usdcMicro: genesis.usdcMicro, holdings: genesis.holdings }, 'house account minted its genesis')
      }
      const b = await topUpBuckets(house.api, HOUSE_BUCKETS)
      this.houseFunded = true
      this.log.info({ at: 'SimMaker#prepareHouse', wallet: b.walletBalance, spot: b.spotBalance, perps: b.perpsBalance }, 'house funded')
    }
    return house
  }

  /** The operator's own code path (POST /admin/users/:id/rate-tier): users table, then the auth event. */
  private async grantMarketMakerTier(house: TraderCredential): Promise<void> {
    const tier = this.o.config.mmRateMultiple
    const me = await house.api.get<{ rateTier: number }>('/auth/me')
    if (me.rateTier >= tier) return
    await this.o.identity.setRateTier(house.userId, tier)
    this.log.info({ at: 'SimMaker#grantMarketMakerTier', userId: house.userId, tier }, 'house granted the market-maker rate tier')
  }

  private async loadMarkets(): Promise<void> {
    const data = await this.api.graphql<{ markets: { edges: Array<{ node: Record<string, any> }> } }>(MARKETS_QUERY)
    this.markets = data.markets.edges.map(({ node: n }) => ({
      marketId: n['marketId'],
      type: String(n['type']).toLowerCase() as SimMarket['type'],
      active: n['tradingStatus'] === 'ACTIVE',
      tickSize: n['tickSize'],
      stepSize: n['stepSize'],
      minQuantity: n['minQuantity'],
      priceBandLow: n['priceBandLow'] ?? null,
      priceBandHigh: n['priceBandHigh'] ?? null,
      mark: n['mark'] ?? null,
    }))
  }

  /** The BTC options within ±20% of their forward, with the board's Black-76 value and vol; nearest the money first. */
  private async loadOptions(): Promise<void> {
    const data = await this.api.graphql<any>(OPTIONS_QUERY)
    const board = data.optionsBoard
    this.spot = Number(board.spotPrice ?? 0)
    const forwards = new Map<string, number>(board.expiryForwards.map((f: any) => [f.expiry, Number(f.forward)]))
    const specs = new Map<string, any>(data.markets.edges.filter((e: any) => e.node.tradingStatus === 'ACTIVE').map((e: any) => [e.node.marketId, e.node]))
    const rows = [...board.calls.map((r: any) => ({ ...r, isCall: true })), ...board.puts.map((r: any) => ({ ...r, isCall: false }))]
    const options: QuotedOption[] = []
    for (const r of rows) {
      const spec = specs.get(r.marketId)
      const forward = forwards.get(r.expiry)
      if (!spec || forward === undefined || r.markPrice === null || r.markIv === null) continue
      const o: QuotedOption = {
        marketId: r.marketId, strike: Number(r.strikePrice), isCall: r.isCall, expiryMs: Date.parse(`${r.expiry}T08:00:00Z`), forward,
        markPrice: r.markPrice, markIv: Number(r.markIv), tickSize: spec.tickSize, stepSize: spec.stepSize, minQuantity: spec.minQuantity,
      }
      if (quotesOption(o)) options.push(o)
    }
    const distance = (o: QuotedOption) => Math.abs(Math.log(o.strike / o.forward))
    this.options = options.sort((a, b) => distance(a) - distance(b) || a.expiryMs - b.expiryMs || (a.marketId < b.marketId ? -1 : 1))
  }

  /** Active, with a mark the engine has not refused. */
  private quotable(): SimMarket[] {
    return this.markets.filter((m) => m.active && m.mark !== null && this.refusedMarks.get(m.marketId) !== m.mark.sourceTimestamp)
  }

  /** Ladders per round: RATE_SHARE of the house's per-minute limit, spread over the rounds of a minute. */
  private laddersPerRound(house: TraderCredential): number {
    const limit = house.api.rate?.limit ?? this.o.config.orderRatePerMin * this.o.config.mmRateMultiple
    return Math.max(1, Math.floor((limit * this.o.config.makerIntervalMs * RATE_SHARE) / 60_000))
  }

  private async quoteRound(): Promise<void> {
    await this.loadMarkets()
    const house = await this.prepareHouse()
    if (!house || this.stopping) return
    await this.prepareOptions(house)
    // Re-armed every round: if this instance dies, its ladders go within deadmanMs.
    await house.api.post('/orders/cancel-all-after', { timeoutMs: this.deadmanMs })
    const markets = this.quotable()
    const budget = this.laddersPerRound(house)
    // Half the budget to the option quotes when there are any (their own turn, nearest the money first).
    const optionBudget = this.optionsFunded ? Math.floor(budget / 2) : 0
    const n = Math.min(Math.max(1, budget - optionBudget), markets.length)
    let placed = 0
    for (let i = 0; i < n; i++) {
      if (this.stopping || Date.now() < this.housePausedUntil) break
      const m = markets[this.cursor++ % markets.length]!
      if (await this.quote(house, m)) placed++
    }
    placed += await this.quoteOptions(house, optionBudget)
    if (placed > 0 && !this.quoting) {
      this.quoting = true
      this.log.info({ at: 'SimMaker#quoteRound', markets: markets.length, intervalMs: this.o.config.makerIntervalMs }, 'sim maker quoting')
    }
  }

  /** Funds the options bucket and turns on the house's market-maker protection, once per sign-in. */
  private async prepareOptions(house: TraderCredential): Promise<void> {
    if (this.optionsFunded) return
    const b = await house.api.get<{ walletBalance: string; optionsBalance: string }>('/wallet/balance')
    const missing = Math.floor(Math.min(HOUSE_OPTIONS_USDC - Number(b.optionsBalance), Number(b.walletBalance)))
    if (missing > 0) await house.api.post('/wallet/transfer', { from: 'wallet', to: 'options', amount: String(missing) })
    await house.api.post('/mmp/config', HOUSE_MMP)
    this.optionsFunded = true
    this.log.info({ at: 'SimMaker#prepareOptions', mmp: HOUSE_MMP }, 'house funded its options bucket and set its market-maker protection')
  }

  /**
   * Requotes up to `budget` options whose quotes moved since they were last sent (an unchanged one costs
   * no request), walking the options nearest the money first and going round.
   */
  private async quoteOptions(house: TraderCredential, budget: number): Promise<number> {
    if (budget === 0) return 0
    await this.loadOptions()
    if (this.options.length === 0) return 0
    const held = new Map<string, number>(
      (await house.api.get<Array<{ marketId: string; quantity: string }>>('/positions/me')).map((p) => [p.marketId, Number(p.quantity)]),
    )
    const rate = familyCatalog('BTC')?.rate ?? 0
    const now = this.o.clock()
    let sent = 0
    for (let i = 0; i < this.options.length && sent < budget; i++) {
      if (this.stopping || Date.now() < this.housePausedUntil) break
      const o = this.options[this.optionCursor++ % this.options.length]!
      const quotes = optionQuotes(o, this.spot, rate, now, held.get(o.marketId) ?? 0, DEFAULT_OPTION_QUOTES)
      const key = JSON.stringify(quotes)
      const last = this.sentOptionQuotes.get(o.marketId)
      if (quotes.length === 0 || (last?.key === key && Date.now() - last.at < OPTION_RESEND_MS)) continue
      sent++
      if (await this.sendQuotes(house, o.marketId, '/quotes/bulk', quotes, null)) this.sentOptionQuotes.set(o.marketId, { key, at: Date.now() })
      else this.sentOptionQuotes.delete(o.marketId)
    }
    return sent
  }

  /** Moves the house's ladder on one market to `quotes`, amending its orders in place. False when the market was skipped. */
  private async quote(house: TraderCredential, m: SimMarket): Promise<boolean> {
    const mark = m.mark!
    // A perpetual is quoted around its index, as an arbitrageur would, so its mark's premium (an EMA of
    // the book's mid over the index) stays near zero instead of feeding on the ladder's own mid.
    const centre = m.type === 'perpetual' && mark.indexPrice !== null ? mark.indexPrice : mark.price
    const quotes = buildLadder(centre, m, (fnv1a(m.marketId) ^ this.round++) >>> 0)
    if (quotes.length === 0) return false
    return this.sendQuotes(house, m.marketId, '/perps/quotes/bulk', quotes, mark.sourceTimestamp)
  }

  /** One bulk quote (cancelAll with amend). `markTs`: the mark it was priced at, remembered when the engine finds it stale. */
  private async sendQuotes(house: TraderCredential, marketId: string, path: string, quotes: LadderQuote[], markTs: string | null): Promise<boolean> {
    const m = { marketId }
    try {
      await house.api.post(path, { marketId, quoteId: SIM_QUOTE_ID, cancelAll: true, amend: true, quotes })
      this.quoted++
      return true
    } catch (err) {
      if (!(err instanceof ApiError)) throw err
      if (err.code === 'ORDER_RATE_LIMIT') {
        this.housePausedUntil = Date.now() + (err.retryAfterMs ?? 1_000)
        this.warn('quote:rate', { at: 'SimMaker#quote', retryAfterMs: err.retryAfterMs }, 'sim maker rate limited; backing off')
      } else if (SKIP_CODES.has(err.code)) {
        if ((err.code === 'MISSING_MARK_PRICE' || err.code === 'STALE_MARK_PRICE') && markTs !== null) this.refusedMarks.set(m.marketId, markTs)
        this.log.debug({ at: 'SimMaker#quote', marketId: m.marketId, code: err.code }, 'market skipped')
      } else if (AUTH_CODES.has(err.code)) {
        throw err
      } else {
        this.warn(`quote:${m.marketId}:${err.code}`, { at: 'SimMaker#quote', marketId: m.marketId, code: err.code, err: err.message }, 'sim maker quote refused')
      }
      return false
    }
  }

  // --- the taker -------------------------------------------------------------------------------------

  private async prepareTaker(): Promise<TraderCredential | null> {
    if (!this.taker) {
      const wallet = privateKeyToAccount(this.o.config.takerPrivateKey)
      this.taker = await provisionTrader(this.api, wallet, TAKER_KEY_NAME, this.o.clock)
      this.takerFunded = false
      this.log.info({ at: 'SimMaker#prepareTaker', userId: this.taker.userId, address: this.taker.address, keyId: this.taker.keyId }, 'sim taker signed in')
    }
    const taker = this.taker
    if (!this.takerFunded) {
      if (Date.now() < this.takerFundingRetryAt) return null
      this.takerFunded = await fundFromFaucet(taker.api, TAKER_BUCKETS)
      if (!this.takerFunded) {
        this.takerFundingRetryAt = Date.now() + FUNDING_RETRY_MS
        this.warn('take:funding', { at: 'SimMaker#prepareTaker' }, 'sim taker is out of funds and the faucet gives no more today (or is off); it pauses')
        return null
      }
    }
    return taker
  }

  private async takeRound(): Promise<void> {
    // The house funds and quotes first; the taker only trades against live ladders.
    if (!this.quoting || Date.now() < this.takerPausedUntil || this.rng() >= TAKER_CHANCE) return
    const taker = await this.prepareTaker()
    if (!taker || this.stopping) return
    const markets = this.quotable().map((m) => ({ marketId: m.marketId, type: m.type, stepSize: m.stepSize, minQuantity: m.minQuantity, mark: m.mark!.price }))
    const positions = await taker.api.get<TakerPosition[]>('/perps/positions')
    const order = nextTakerOrder(markets, positions, this.rng)
    if (!order || this.stopping) return
    try {
      await taker.api.post('/perps/orders', order)
      if (++this.takerOrders % TAKER_FUNDING_EVERY === 0) this.takerFunded = false
    } catch (err) {
      if (!(err instanceof ApiError)) throw err
      if (err.code === 'ORDER_RATE_LIMIT') this.takerPausedUntil = Date.now() + (err.retryAfterMs ?? 1_000)
      else if (err.code === 'INSUFFICIENT_BALANCE' || err.code === 'INSUFFICIENT_MARGIN') this.takerFunded = false
      else if (AUTH_CODES.has(err.code)) throw err
      this.log.debug({ at: 'SimMaker#takeRound', marketId: order.marketId, code: err.code }, 'taker order refused')
    }
  }
}
