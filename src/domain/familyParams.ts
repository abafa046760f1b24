// Owns the shape of a product family's parameters: ticks, steps, fees, the option strike grid and smile,
// risk ranges. The values are the catalog's (src/config/catalog.ts); the listing turns them into markets.
import type { AssetClass, Family } from './market.js'

export interface LinearParams {
  tickSize: string
  stepSize: string
  minQuantity: string
  takerFeeBps: string
  makerFeeBps: string
}

export interface VolSmile {
  atmVol: number
  skew: number
  smile: number
}

export interface OptionsParams extends LinearParams {
  /** Strike grid spacing in quote units and its half-width around spot at listing, in percent. */
  strikeStep: number
  strikeRangePct: number
  /** Smile for an expiry of `tenorDays` or less; the last entry covers longer expiries. */
  volSurface: Array<{ tenorDays: number } & VolSmile>
}

export interface FamilyCatalog {
  family: Family
  assetClass: AssetClass
  quote: string
  spotId: string
  perpetualId: string
  /** Quarterly futures are `${futurePrefix}${YYYY-MM-DD}`. */
  futurePrefix: string
  futuresListed: number
  spot: LinearParams
  perpetual: LinearParams & { fundingIntervalMs: number; fundingMaxRateBps: string }
  future: LinearParams
  options: OptionsParams | null
  priceBandBps: number
  /** Continuously compounded rate for synthetic forwards. */
  rate: number
  /** Initial-margin and maintenance-margin scenario ranges, in percent of the underlying. */
  riskImPct: string
  riskMmPct: string
  /** Where the simulated feed starts, and its annualised volatility. */
  simStartPrice: string
  simAnnualVol: number
  /** Overrides the configured default mark staleness for this family's markets. */
  staleMarkMs?: number
}
