// Market vocabulary shared by every layer: what a market is, independent of how it is stored or served.

export const FAMILIES = ['BTC', 'XAUT', 'WTIOIL'] as const
export type Family = (typeof FAMILIES)[number]

export const ASSET_CLASSES = ['crypto', 'precious_metals', 'energy'] as const
export type AssetClass = (typeof ASSET_CLASSES)[number]

export const MARKET_TYPES = ['spot', 'perpetual', 'future', 'option'] as const
export type MarketType = (typeof MARKET_TYPES)[number]

export const MARKET_STATUSES = ['active', 'halted', 'settled'] as const
export type MarketStatus = (typeof MARKET_STATUSES)[number]

export type OptionType = 'call' | 'put'

/** An option's pricing inputs, fixed when it is listed (DESIGN.md §5): the family's continuously
 * compounded rate for the synthetic forward and its volatility surface (a smile per tenor). */
export interface OptionPricing {
  rate: number
  volSurface: Array<{ tenorDays: number; atmVol: number; skew: number; smile: number }>
}

/** Everything fixed about a market when it is listed. Decimal values are canonical decimal strings. */
export interface MarketSpec {
  id: string
  family: Family
  assetClass: AssetClass
  type: MarketType
  base: string
  quote: string
  tickSize: string
  stepSize: string
  minQuantity: string
  /** Orders must be priced within ±band of the governing mark, in basis points. */
  priceBandBps: number
  takerFeeBps: string
  makerFeeBps: string
  fundingIntervalMs: number | null
  fundingMaxRateBps: string | null
  expiryMs: number | null
  strike: string | null
  optionType: OptionType | null
  /** Orders are refused when the governing mark is older than this. */
  staleMarkMs: number
  /** Scenario ranges for initial and maintenance margin, percent of the underlying (DESIGN.md §6). */
  initialMarginPct: string
  maintenanceMarginPct: string
  listedAtMs: number
  /** Options only (null or absent for linear markets). */
  pricing?: OptionPricing | null
}

export function isLinear(type: MarketType): boolean {
  return type !== 'option'
}

/** The spec with its keys in one fixed order, so serialising it is canonical wherever it came from. */
export function canonicalSpec(s: MarketSpec): MarketSpec {
  return {
    id: s.id,
    family: s.family,
    assetClass: s.assetClass,
    type: s.type,
    base: s.base,
    quote: s.quote,
    tickSize: s.tickSize,
    stepSize: s.stepSize,
    minQuantity: s.minQuantity,
    priceBandBps: s.priceBandBps,
    takerFeeBps: s.takerFeeBps,
    makerFeeBps: s.makerFeeBps,
    fundingIntervalMs: s.fundingIntervalMs,
    fundingMaxRateBps: s.fundingMaxRateBps,
    expiryMs: s.expiryMs,
    strike: s.strike,
    optionType: s.optionType,
    staleMarkMs: s.staleMarkMs,
    initialMarginPct: s.initialMarginPct,
    maintenanceMarginPct: s.maintenanceMarginPct,
    listedAtMs: s.listedAtMs,
    pricing: s.pricing ? { rate: s.pricing.rate, volSurface: s.pricing.volSurface.map((v) => ({ tenorDays: v.tenorDays, atmVol: v.atmVol, skew: v.skew, smile: v.smile })) } : null,
  }
}
