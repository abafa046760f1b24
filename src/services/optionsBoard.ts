// The options board of one underlying: spot, the forward of every listed expiry, and per strike the
// book's best bid and ask (null for an empty side), the theoretical mark with its IV and delta, the last
// trade's price (null before the first), open interest and 24-hour volume. Option prices are in units
// of the underlying.
import { CATALOG, familyCatalog } from '../config/catalog.js'
import { isoDate } from '../domain/calendar.js'
import { D, formatDecimal } from '../domain/decimal.js'
import { DomainError } from '../domain/errors.js'
import type { BookSnapshot } from '../bus/mirrors.js'
import type { ListedMarket } from '../store/marketRows.js'
import { numeric } from '../store/marketRows.js'
import type { MarketData } from './marketData.js'
import { forwardOf, optionValuer } from './optionMarks.js'

const DAY_MS = 24 * 3_600_000

export interface BoardRow {
  marketId: string
  strikePrice: string
  expiry: string
  optionType: 'call' | 'put'
  bid: string | null
  ask: string | null
  lastPrice: string | null
  openInterest: string
  volume24h: string
  markPrice: string | null
  markIv: string | null
  delta: string | null
}

export interface OptionsBoard {
  underlying: string
  spotPrice: string | null
  timestampMs: number
  expiryForwards: Array<{ expiry: string; forward: string; source: 'future' | 'synthetic' }>
  calls: BoardRow[]
  puts: BoardRow[]
}

type N = string | { toFixed(): string }

export async function optionsBoard(md: MarketData, underlying: string): Promise<OptionsBoard> {
  const fam = familyCatalog(underlying)
  if (!fam) {
    throw new DomainError('PRODUCT_NOT_FOUND', `Unknown underlying ${underlying}`, {
      underlyings: CATALOG.map((c) => c.family),
    })
  }
  const now = md.clock()
  const [listed, marks] = await Promise.all([md.listed(), md.marks()])
  const options = listed.filter((m) => m.spec.family === fam.family && m.spec.type === 'option' && m.status !== 'settled')
  const spot = marks.get(fam.spotId)
  const expiries = [...new Set(options.map((m) => m.spec.expiryMs!))].sort((a, b) => a - b)
  const forwards = new Map(expiries.map((e) => [e, forwardOf(listed, marks, now, fam.family, e)]))
  const value = optionValuer(listed, marks, now)
  const [books, activity] = await Promise.all([readBooks(md, options), optionActivity(md, options, now)])

  const rows = options.map((m): BoardRow => {
    const s = m.spec
    const book = books.get(s.id)
    const act = activity.get(s.id)
    const theo = value(s)?.theo ?? null
    return {
      marketId: s.id,
      strikePrice: s.strike!,
      expiry: isoDate(s.expiryMs!),
      optionType: s.optionType!,
      bid: book?.bids[0]?.[0] ?? null,
      ask: book?.asks[0]?.[0] ?? null,
      lastPrice: act?.last ?? null,
      openInterest: act?.openInterest ?? '0',
      volume24h: act?.volume24h ?? '0',
      markPrice: theo ? formatDecimal(theo.price) : null,
      markIv: theo ? formatDecimal(D(theo.iv).toDecimalPlaces(6)) : null,
      delta: theo ? formatDecimal(D(theo.delta).toDecimalPlaces(6)) : null,
    }
  })
  return {
    underlying: fam.family,
    spotPrice: spot?.price ?? null,
    timestampMs: now,
    expiryForwards: expiries.flatMap((e) => {
      const f = forwards.get(e)
      return f ? [{ expiry: isoDate(e), forward: formatDecimal(D(f.price).toDecimalPlaces(2)), source: f.source }] : []
    }),
    calls: rows.filter((r) => r.optionType === 'call'),
    puts: rows.filter((r) => r.optionType === 'put'),
  }
}

async function readBooks(md: MarketData, markets: readonly ListedMarket[]): Promise<Map<string, BookSnapshot>> {
  if (markets.length === 0) return new Map()
  const raw = await md.redis.mget(markets.map((m) => md.keys.book(m.spec.id)))
  const out = new Map<string, BookSnapshot>()
  raw.forEach((r, i) => {
    if (r) out.set(markets[i]!.spec.id, JSON.parse(r) as BookSnapshot)
  })
  return out
}

/** Last trade, open interest (sum of long quantities) and 24-hour volume per option market. */
async function optionActivity(md: MarketData, markets: readonly ListedMarket[], now: number) {
  const out = new Map<string, { last: string | null; openInterest: string; volume24h: string }>()
  if (markets.length === 0) return out
  const ids = markets.map((m) => m.spec.id)
  const rows = await md.prisma.$queryRaw<Array<{ id: string; last: N | null; oi: N | null; vol: N | null }>>`
    SELECT m.id,
      (SELECT close FROM candles c WHERE c."marketId" = m.id ORDER BY start DESC LIMIT 1) AS last,
      (SELECT sum(quantity) FROM positions p WHERE p."marketId" = m.id AND p.quantity > 0) AS oi,
      (SELECT sum(volume) FROM candles c WHERE c."marketId" = m.id AND c.start >= ${new Date(now - DAY_MS)}) AS vol
    FROM unnest(${ids}::text[]) AS m(id)`
  for (const r of rows) {
    out.set(r.id, {
      last: r.last ? numeric(r.last) : null,
      openInterest: r.oi ? numeric(r.oi) : '0',
      volume24h: r.vol ? numeric(r.vol) : '0',
    })
  }
  return out
}
