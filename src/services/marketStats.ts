// 24-hour statistics and OHLC candles, aggregated in PostgreSQL from the one-minute candles the engine's
// batch writer folds fills into.
import { D, formatDecimal } from '../domain/decimal.js'
import { DomainError } from '../domain/errors.js'
import type { ListedMarket } from '../store/marketRows.js'
import { numeric } from '../store/marketRows.js'
import { readFunding } from '../bus/mirrors.js'
import type { MarketData } from './marketData.js'

export const RESOLUTIONS = ['1', '5', '15', '30', '60', '240', 'D', '1D'] as const
export type Resolution = (typeof RESOLUTIONS)[number]

export const MAX_CANDLE_SPAN_S = 90 * 24 * 3600
/** 9999-12-31T23:59:59Z: anything later is a unit mistake (milliseconds passed as seconds). */
export const MAX_UNIX_S = 253_402_300_799

export function resolutionMinutes(r: Resolution): number {
  return r === 'D' || r === '1D' ? 1440 : Number(r)
}

/** Candles asked for without a start: this many buckets back from `to`, within MAX_CANDLE_SPAN_S. */
export const DEFAULT_CANDLES = 500

/** The window of a candles query: `to` defaults to now, `from` to DEFAULT_CANDLES buckets before it. */
export function candleWindow(resolution: Resolution, from: number | null | undefined, to: number | null | undefined, nowS: number): { from: number; to: number } {
  const end = to ?? nowS
  return { from: from ?? Math.max(0, end - Math.min(DEFAULT_CANDLES * resolutionMinutes(resolution) * 60, MAX_CANDLE_SPAN_S)), to: end }
}

export interface Candle {
  /** Unix seconds of the candle's start. */
  timestamp: number
  open: string
  high: string
  low: string
  close: string
  volume: string
}

export interface MarketStats {
  marketId: string
  last: string
  high24h: string
  low24h: string
  volume24h: string
  /** Percent change of the last price over 24 hours. */
  change24h: string
  openInterest: string
  fundingRate: string | null
  nextFundingAtMs: number | null
}

type N = string | { toFixed(): string }

/** Candles with trades in [from, to] (unix seconds), oldest first; buckets aligned to UTC. */
export async function candles(md: MarketData, marketId: string, resolution: Resolution, fromS: number, toS: number): Promise<Candle[]> {
  await md.marketOrThrow(marketId)
  if (
    !Number.isSafeInteger(fromS) || !Number.isSafeInteger(toS) || fromS < 0 || toS > MAX_UNIX_S || fromS > toS ||
    toS - fromS > MAX_CANDLE_SPAN_S
  ) {
    throw new DomainError('INVALID_TIME_RANGE', 'from and to are unix seconds, from not after to, at most 90 days apart', { from: fromS, to: toS })
  }
  const minutes = resolutionMinutes(resolution)
  const bucketS = minutes * 60
  const start = new Date(Math.floor(fromS / bucketS) * bucketS * 1000)
  const end = new Date(toS * 1000)
  const rows = await md.prisma.$queryRaw<Array<{ bucket: Date; open: N; high: N; low: N; close: N; volume: N }>>`
    SELECT date_bin(make_interval(mins => ${minutes}::int), start, TIMESTAMPTZ 'epoch') AS bucket,
           (array_agg(open ORDER BY start))[1] AS open, max(high) AS high, min(low) AS low,
           (array_agg(close ORDER BY start DESC))[1] AS close, sum(volume) AS volume
    FROM candles
    WHERE "marketId" = ${marketId} AND start >= ${start} AND start <= ${end}
    GROUP BY bucket ORDER BY bucket`
  return rows.map((r) => ({
    timestamp: Math.floor(r.bucket.getTime() / 1000),
    open: numeric(r.open),
    high: numeric(r.high),
    low: numeric(r.low),
    close: numeric(r.close),
    volume: numeric(r.volume),
  }))
}

/** Statistics for the given markets, in their order. */
export async function marketStats(md: MarketData, markets: readonly ListedMarket[]): Promise<MarketStats[]> {
  if (markets.length === 0) return []
  const ids = markets.map((m) => m.spec.id)
  const now = md.clock()
  const since = new Date(now - 24 * 3600 * 1000)
  const rows = await md.prisma.$queryRaw<
    Array<{ id: string; last: N | null; open24: N | null; high: N | null; low: N | null; volume: N | null; oi: N | null }>
  >`
    SELECT m.id,
           (SELECT close FROM candles c WHERE c."marketId" = m.id ORDER BY start DESC LIMIT 1) AS last,
           d.open24, d.high, d.low, d.volume,
           (SELECT sum(quantity) FROM positions p WHERE p."marketId" = m.id AND p.quantity > 0) AS oi
    FROM unnest(${ids}::text[]) AS m(id)
    LEFT JOIN LATERAL (
      SELECT (array_agg(open ORDER BY start))[1] AS open24, max(high) AS high, min(low) AS low, sum(volume) AS volume
      FROM candles c WHERE c."marketId" = m.id AND c.start >= ${since}
    ) d ON true`
  const byId = new Map(rows.map((r) => [r.id, r]))
  const funding = await readFunding(md.redis, md.keys)
  return markets.map((m) => {
    const r = byId.get(m.spec.id)
    const last = r?.last ? numeric(r.last) : '0'
    const open24 = r?.open24 ? D(numeric(r.open24)) : null
    const change = open24 && !open24.isZero() ? D(last).sub(open24).div(open24).mul(100) : D(0)
    const interval = m.spec.fundingIntervalMs
    const f = funding.get(m.spec.id)
    return {
      marketId: m.spec.id,
      last,
      high24h: r?.high ? numeric(r.high) : '0',
      low24h: r?.low ? numeric(r.low) : '0',
      volume24h: r?.volume ? numeric(r.volume) : '0',
      change24h: formatDecimal(change.toDecimalPlaces(4)),
      openInterest: m.spec.type === 'spot' || !r?.oi ? '0' : numeric(r.oi),
      fundingRate: interval ? (f?.fundingRate ?? '0') : null,
      nextFundingAtMs: interval ? (f?.nextFundingAtMs ?? (Math.floor(now / interval) + 1) * interval) : null,
    }
  })
}
