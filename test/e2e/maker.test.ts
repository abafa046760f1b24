// The liquidity simulator (role maker) end to end: on a fresh install every active linear market gets a
// live two-sided book, trades and candles within seconds, made by ordinary users through the public API;
// SIM_MAKER=false leaves the books empty; a second instance neither mints a second genesis nor quotes
// while the first holds the maker lease, and takes over when it stops. Waits are on the engine's own
// pub/sub events (books, trades, marks), never on sleeps.
import type { Redis } from 'ioredis'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectRedis } from '../../src/bus/redis.js'
import { D } from '../../src/domain/decimal.js'
import { DEFAULT_LADDER } from '../../src/roles/maker/ladder.js'
import { MAKER_KEY_NAME, SIM_QUOTE_ID } from '../../src/roles/maker/simMaker.js'
import { signIn, type SignedIn } from '../support/auth.js'
import { exchangeFor, REDIS_URL, startTestExchange, type TestExchange } from '../support/exchange.js'
import type { Http } from '../support/http.js'
import { testClock } from '../support/clock.js'

const SIM = { ROLES: 'api,engine,scheduler,maker', SIM_MAKER: 'true', MARK_FEED: 'sim', MARK_FEED_INTERVAL_MS: '200', MAKER_INTERVAL_MS: '300', TICK_INTERVAL_MS: '200' }
const WAIT_MS = 25_000

/**
 * Counts the engine's book, trade and mark events of one exchange, and resolves conditions re-checked
 * after every event (and once at once), so a test waits exactly as long as the exchange needs.
 */
class EventWatch {
  readonly bookEvents = new Map<string, number>()
  readonly trades = new Map<string, number>()
  markEvents = 0
  private readonly listeners = new Set<() => void>()

  private constructor(private readonly sub: Redis) {}

  static async open(ex: TestExchange): Promise<EventWatch> {
    const sub = await connectRedis(REDIS_URL, 'test-maker-watch')
    const w = new EventWatch(sub)
    const channel = (stream: string) => ex.keys.eventChannel(stream)
    sub.on('pmessage', (_pattern: string, ch: string, message: string) => {
      const stream = ch.slice(channel('').length)
      const kind = stream.slice(0, stream.indexOf(':'))
      const id = stream.slice(stream.indexOf(':') + 1)
      if (kind === 'book') w.bookEvents.set(id, (w.bookEvents.get(id) ?? 0) + 1)
      else if (kind === 'trades' && JSON.parse(message).eventType === 'Trade') w.trades.set(id, (w.trades.get(id) ?? 0) + 1)
      else if (kind === 'marks') w.markEvents++
      for (const l of w.listeners) l()
    })
    await sub.psubscribe(channel('book:*'), channel('trades:*'), channel('marks:*'))
    return w
  }

  get totalBookEvents(): number {
    return [...this.bookEvents.values()].reduce((a, b) => a + b, 0)
  }

  /** Resolves with the first truthy result of `check`, run now and after events (never two at once). */
  until<T>(what: string, check: () => T | false | undefined | Promise<T | false | undefined>, timeoutMs = WAIT_MS): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let running = false
      let again = false
      let done = false
      const finish = (fn: () => void) => {
        done = true
        clearTimeout(timer)
        this.listeners.delete(run)
        fn()
      }
      const timer = setTimeout(() => finish(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`))), timeoutMs)
      const run = () => {
        if (done) return
        if (running) {
          again = true
          return
        }
        running = true
        Promise.resolve()
          .then(check)
          .then(
            (r) => {
              running = false
              if (r) finish(() => resolve(r))
              else if (again) {
                again = false
                run()
              }
            },
            (err) => finish(() => reject(err)),
          )
      }
      this.listeners.add(run)
      run()
    })
  }

  /** Resolves once `n` more events of the kind counted by `count` have arrived. */
  more(what: string, count: () => number, n: number): Promise<true> {
    const start = count()
    return this.until(`${n} more ${what}`, () => count() - start >= n || undefined)
  }

  close(): void {
    this.sub.disconnect()
  }
}

/** How long a simulator test may run: a market expiring sooner is settled under it and left out. */
const TEST_HORIZON_MS = 10 * 60_000

/** The active linear markets that stay listed for the test (run at any instant, one may expire during it). */
const activeLinear = async (api: Http): Promise<string[]> =>
  ((await api.get('/perps/markets')).body as Array<{ marketId: string; tradingStatus: string; expiry?: string }>)
    .filter((m) => m.tradingStatus === 'active' && (m.expiry === undefined || Date.parse(m.expiry) > testClock.now() + TEST_HORIZON_MS))
    .map((m) => m.marketId)

/** Waits until every market's public book has both bids and asks; returns the books. */
async function twoSidedBooks(api: Http, watch: EventWatch, markets: readonly string[]) {
  const books = new Map<string, { bids: string[][]; asks: string[][] }>()
  await watch.until('a two-sided book on every active linear market', async () => {
    for (const id of markets) {
      if (books.has(id)) continue
      const b = (await api.get(`/perps/orderbook/${id}`)).body
      if (b.bids.length > 0 && b.asks.length > 0) books.set(id, b)
    }
    return books.size === markets.length
  })
  return books
}

const signInAs = (api: Http, ex: TestExchange, key: `0x${string}`): Promise<SignedIn> => signIn(api, ex.url!, privateKeyToAccount(key))

/** A simulating exchange for one describe block (exchangeFor), with its event watch and its active linear markets. */
function simExchange(env: Record<string, string> = {}) {
  const h = exchangeFor({ ...SIM, ...env }) as { ex: TestExchange; api: Http; watch: EventWatch; markets: string[] }
  beforeAll(async () => {
    h.watch = await EventWatch.open(h.ex)
    h.markets = await activeLinear(h.api)
  })
  afterAll(() => h.watch?.close())
  return h
}

describe('on a fresh install', () => {
  const h = simExchange()

  it('gives every active linear market a live two-sided book within seconds', async () => {
    const { api, watch, markets } = h
    // Spot, perpetual and two quarterlies per family, less a quarterly about to expire.
    expect(markets.length).toBeGreaterThanOrEqual(9)
    const books = await twoSidedBooks(api, watch, markets)
    for (const [id, b] of books) {
      expect(D(b.bids[0]![0]!).lt(b.asks[0]![0]!), id).toBe(true)
    }
  })

  it('trades: the taker takes from the ladders, and candles appear for the traded markets', async () => {
    const { ex, api, watch } = h
    const traded = await watch.until('trades on two markets', () => (watch.trades.size >= 2 ? [...watch.trades.keys()] : undefined))
    for (const id of traded.slice(0, 2)) {
      const candles = (await api.get(`/perps/ohlc?symbol=${encodeURIComponent(id)}&resolution=1`)).body as Array<{ volume: string }>
      expect(candles.length, id).toBeGreaterThan(0)
      expect(D(candles.at(-1)!.volume).gt(0)).toBe(true)
    }
    const taker = await signInAs(api, ex, ex.config.takerPrivateKey)
    const fills = (await api.get('/perps/trades', taker.cookie)).body as Array<{ role: string }>
    expect(fills.length).toBeGreaterThan(0)
    expect(new Set(fills.map((f) => f.role))).toEqual(new Set(['taker']))
  })

  it('quotes as an ordinary user: its ladders are its own orders, placed with its own trade key, at the market-maker tier', async () => {
    const { ex, api, markets } = h
    const house = await signInAs(api, ex, ex.config.makerPrivateKey)
    expect((await api.get('/auth/me', house.cookie)).body.rateTier).toBe(ex.config.mmRateMultiple)
    const keys = ((await api.get('/perps/me/api-keys', house.cookie)).body.keys as Array<Record<string, unknown>>).filter((k) => k.status === 'active')
    expect(keys.map((k) => [k.name, k.scope])).toEqual([[MAKER_KEY_NAME, 'trade']])
    // The ladders travel with that key (its use is recorded), not with a session or anything in-process.
    expect(keys[0]).toMatchObject({ lastUsedAt: expect.any(String), lastUsedIp: '127.0.0.1' })

    const open = (await api.get('/perps/orders/open?limit=200', house.cookie)).body as Array<Record<string, any>>
    // Every market that stays listed carries its ladder (one about to expire may too, until it does).
    const quoted = new Set(open.map((o) => o.marketId))
    for (const id of markets) expect(quoted.has(id), id).toBe(true)
    const linear = new Set(((await api.get('/perps/markets')).body as Array<{ marketId: string }>).map((m) => m.marketId))
    for (const id of quoted) expect(linear.has(id), id).toBe(true)
    for (const o of open) expect(o).toMatchObject({ userId: house.user.id, quoteId: SIM_QUOTE_ID, type: 'limit', timeInForce: 'gtc', postOnly: true, status: 'open' })
    const listed = (await api.get('/perps/orders?limit=5', house.cookie)).body as Array<{ userId: string }>
    expect(listed.length).toBe(5)

    // Funded by its one genesis: about 50M USDC-T across buckets, and spot inventory held as positions.
    const b = (await api.get('/wallet/balance', house.cookie)).body
    const total = D(b.walletBalance).add(b.spotBalance).add(b.perpsBalance).add(b.optionsBalance)
    expect(total.sub(50_000_000).abs().lt(100_000)).toBe(true)
    const spot = ((await api.get('/perps/positions', house.cookie)).body as Array<{ marketId: string; side: string }>).filter((p) => p.marketId.endsWith('-SPOT'))
    expect(spot.map((p) => p.side)).toEqual(['long', 'long', 'long'])
  })
})

describe('requoting', () => {
  const h = simExchange()

  it('amends its ladders in place: order rows grow by fills, not by ladders × ladder size', { timeout: 90_000 }, async () => {
    const { ex, watch, markets } = h
    const maker = ex.maker!
    const ladderSize = 2 * DEFAULT_LADDER.levels
    // Six requotes of every market on average, while the marks move under them.
    const ladders = 6 * markets.length
    const marksBefore = watch.markEvents
    await watch.until(`${ladders} ladders quoted`, () => maker.laddersQuoted >= ladders || undefined, 60_000)
    const quoted = maker.laddersQuoted
    const { rows } = await ex.pool.query<{ unfilled: number; filled: number; amended: number }>(
      `SELECT count(*) FILTER (WHERE "filledQuantity" = 0)::int AS unfilled, count(*) FILTER (WHERE "filledQuantity" > 0)::int AS filled,
              count(*) FILTER (WHERE status = 'open' AND "updatedAt" > "createdAt")::int AS amended
       FROM orders WHERE "quoteId" = $1`,
      [SIM_QUOTE_ID],
    )
    const { unfilled, filled, amended } = rows[0]!
    expect(watch.markEvents).toBeGreaterThan(marksBefore)
    // Replacing whole ladders wrote a row per quote: quoted × ladderSize unfilled rows (here ≥ 720).
    // Amending, a market's ladder is its first ten rows; a (partly) filled order is replaced by one new
    // row, and the bound allows every ladder once more besides (say, cancelled by the dead man's switch
    // on a stalled machine and quoted afresh).
    expect(unfilled).toBeLessThanOrEqual(2 * markets.length * ladderSize + filled)
    expect(unfilled).toBeLessThan((quoted * ladderSize) / 2)
    expect(amended).toBeGreaterThan(0)
  })
})

describe('with SIM_MAKER=false', () => {
  const h = simExchange({ SIM_MAKER: 'false' })

  it('quotes nothing: the books stay empty while marks tick', async () => {
    const { ex, api, watch, markets } = h
    expect(ex.maker).toBeNull()
    // About 12 marks a tick every 200 ms: some 3 s of marks, ten maker intervals and more than a
    // running maker needs to sign in, fund and quote (see the fresh-install test).
    await watch.more('mark events', () => watch.markEvents, 200)
    for (const id of markets) {
      expect((await api.get(`/perps/orderbook/${id}`)).body, id).toMatchObject({ bids: [], asks: [] })
    }
    expect(watch.totalBookEvents).toBe(0)
    expect((await ex.pool.query('SELECT count(*)::int AS n FROM users')).rows[0].n).toBe(0)
    expect(await ex.redis.exists(ex.keys.makerLease)).toBe(0)
  })
})

describe('bound to one specific address', () => {
  const h = simExchange({ HOST: '127.0.0.2' })

  it('signs in through that address: the node accepts its own address as a SIWE domain by default', async () => {
    const { ex, watch } = h
    expect(new URL(ex.url!).hostname).toBe('127.0.0.2')
    await watch.until('the house signed in', () => ex.logs.some((l) => l.includes('sim maker signed in')))
    expect(ex.logs.filter((l) => l.includes('INVALID_SIGNATURE'))).toEqual([])
  })
})

describe('restarts and a second instance', () => {
  const h = simExchange()
  let b: TestExchange | undefined
  afterAll(() => b?.close())

  const genesisCount = async () =>
    (await h.ex.pool.query(`SELECT count(DISTINCT "refId")::int AS n FROM ledger_entries WHERE kind = 'genesis'`)).rows[0].n as number

  it('quotes from one instance at a time, mints the genesis once, and hands over on a clean stop', async () => {
    const { ex: a, api, watch, markets } = h
    await twoSidedBooks(api, watch, markets)
    b = await startTestExchange({ ...SIM, ROLES: 'api,maker' }, { db: a.db, redisPrefix: a.config.redisPrefix })
    expect(await a.redis.get(a.keys.makerLease)).toBe(a.instanceId)

    // While the first instance keeps quoting (many ladder refreshes), the second one stays idle.
    await watch.more('book events', () => watch.totalBookEvents, 60)
    expect([a.maker!.isLeader, b.maker!.isLeader]).toEqual([true, false])
    expect(b.logs.filter((l) => l.includes('sim maker signed in') || l.includes('sim maker quoting'))).toEqual([])

    // A clean stop withdraws the first instance's ladders and releases the lease; the second takes over.
    await a.maker!.stop()
    expect(a.logs.some((l) => l.includes('withdrew its quotes'))).toBe(true)
    const second = b
    await watch.until('the second instance quoting', () => second.logs.some((l) => l.includes('sim maker quoting')))
    expect(await a.redis.get(a.keys.makerLease)).toBe(b.instanceId)
    await twoSidedBooks(api, watch, markets)

    // Same house user, one genesis, one live key (the first instance's was revoked on takeover).
    expect(await genesisCount()).toBe(1)
    expect(b.logs.some((l) => l.includes('minted its genesis'))).toBe(false)
    const house = await signInAs(api, a, a.config.makerPrivateKey)
    const keys = ((await api.get('/perps/me/api-keys', house.cookie)).body.keys as Array<{ name: string; status: string }>)
    expect(keys.filter((k) => k.status === 'active').map((k) => k.name)).toEqual([MAKER_KEY_NAME])
    expect(keys.filter((k) => k.status === 'revoked').length).toBeGreaterThanOrEqual(1)
    const bal = (await api.get('/wallet/balance', house.cookie)).body
    const total = D(bal.walletBalance).add(bal.spotBalance).add(bal.perpsBalance).add(bal.optionsBalance)
    expect(total.sub(50_000_000).abs().lt(100_000)).toBe(true)
    const open = (await api.get('/perps/orders/open?limit=200', house.cookie)).body as Array<{ userId: string }>
    expect(new Set(open.map((o) => o.userId))).toEqual(new Set([house.user.id]))
  })
})
