// Market rows to domain values, for both pg (NUMERIC as text) and Prisma (Decimal objects) reads.
import type { MarketEngineState } from '../engine/snapshot.js'
import { canonicalSpec, type AssetClass, type Family, type MarketSpec, type MarketStatus, type MarketType, type OptionPricing, type OptionType } from '../domain/market.js'

type Numeric = string | { toFixed(): string }

/** NUMERIC as a canonical decimal string: no exponent, no trailing zeros from the column's scale. */
export function numeric(v: Numeric): string
export function numeric(v: Numeric | null): string | null
export function numeric(v: Numeric | null): string | null {
  if (v === null) return null
  const s = typeof v === 'string' ? v : v.toFixed()
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s
}

export interface MarketRow {
  id: string
  family: string
  assetClass: string
  type: string
  base: string
  quote: string
  status: string
  tickSize: Numeric
  stepSize: Numeric
  minQuantity: Numeric
  priceBandBps: number
  takerFeeBps: Numeric
  makerFeeBps: Numeric
  fundingIntervalMs: number | null
  fundingMaxRateBps: Numeric | null
  expiry: Date | null
  strike: Numeric | null
  optionType: string | null
  staleMarkMs: number
  initialMarginPct: Numeric
  maintenanceMarginPct: Numeric
  listedAt: Date
  settledAt: Date | null
  settlementPrice: Numeric | null
  bookSeq: string | bigint
  engineState: unknown
  pricing?: unknown
}

/** A market as listed: its spec plus what changes over its life. */
export interface ListedMarket {
  spec: MarketSpec
  status: MarketStatus
  bookSeq: number
  settledAtMs: number | null
  settlementPrice: string | null
  /** The engine's running state of the market (perpetual funding, settlement TWAP). */
  engineState: MarketEngineState
}

export function listedMarket(r: MarketRow): ListedMarket {
  return {
    spec: canonicalSpec({
      id: r.id,
      family: r.family as Family,
      assetClass: r.assetClass as AssetClass,
      type: r.type as MarketType,
      base: r.base,
      quote: r.quote,
      tickSize: numeric(r.tickSize),
      stepSize: numeric(r.stepSize),
      minQuantity: numeric(r.minQuantity),
      priceBandBps: r.priceBandBps,
      takerFeeBps: numeric(r.takerFeeBps),
      makerFeeBps: numeric(r.makerFeeBps),
      fundingIntervalMs: r.fundingIntervalMs,
      fundingMaxRateBps: numeric(r.fundingMaxRateBps),
      expiryMs: r.expiry ? r.expiry.getTime() : null,
      strike: numeric(r.strike),
      optionType: r.optionType as OptionType | null,
      staleMarkMs: r.staleMarkMs,
      initialMarginPct: numeric(r.initialMarginPct),
      maintenanceMarginPct: numeric(r.maintenanceMarginPct),
      listedAtMs: r.listedAt.getTime(),
      pricing: (r.pricing ?? null) as OptionPricing | null,
    }),
    status: r.status as MarketStatus,
    bookSeq: Number(r.bookSeq),
    settledAtMs: r.settledAt ? r.settledAt.getTime() : null,
    settlementPrice: numeric(r.settlementPrice),
    engineState: (r.engineState ?? {}) as MarketEngineState,
  }
}
