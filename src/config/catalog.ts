// The default product catalog: every family, every parameter. The listing job turns it into markets
// (src/domain/listing.ts); nothing else hard-codes a tick, a fee or a strike grid.
import type { AssetClass, Family } from '../domain/market.js'
import { smileAt } from '../domain/pricing/volSurface.js'

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

export const CATALOG: readonly FamilyCatalog[] = [
  {
    family: 'BTC',
    assetClass: 'crypto',
    quote: 'USDC',
    spotId: 'BTC-USDC-SPOT',
    perpetualId: 'BTC-PERP',
    futurePrefix: 'BTC-USDC-',
    futuresListed: 2,
    spot: { tickSize: '0.1', stepSize: '0.001', minQuantity: '0.001', takerFeeBps: '10', makerFeeBps: '5' },
    perpetual: {
      tickSize: '0.1', stepSize: '0.001', minQuantity: '0.001', takerFeeBps: '5', makerFeeBps: '1',
      fundingIntervalMs: 300_000, fundingMaxRateBps: '25',
    },
    future: { tickSize: '0.1', stepSize: '0.001', minQuantity: '0.001', takerFeeBps: '5', makerFeeBps: '1' },
    options: {
      tickSize: '0.0001', stepSize: '0.01', minQuantity: '0.01', takerFeeBps: '3', makerFeeBps: '3',
      strikeStep: 5_000,
      strikeRangePct: 40,
      volSurface: [
        // m = ln(K/F)/√T spans about ±4 on a one-week grid of ±40% strikes: small coefficients.
        { tenorDays: 14, atmVol: 0.55, skew: -0.03, smile: 0.02 },
        { tenorDays: 45, atmVol: 0.52, skew: -0.03, smile: 0.015 },
        { tenorDays: 3650, atmVol: 0.5, skew: -0.025, smile: 0.01 },
      ],
    },
    priceBandBps: 1_000,
    rate: 0.04,
    riskImPct: '10',
    riskMmPct: '5',
    simStartPrice: '95000',
    simAnnualVol: 0.6,
  },
  {
    family: 'XAUT',
    assetClass: 'precious_metals',
    quote: 'USDC',
    spotId: 'XAUT-USDC-SPOT',
    perpetualId: 'XAUT-USDC-PERP',
    futurePrefix: 'XAUT-USDC-',
    futuresListed: 2,
    spot: { tickSize: '0.01', stepSize: '0.01', minQuantity: '0.01', takerFeeBps: '10', makerFeeBps: '5' },
    perpetual: {
      tickSize: '0.01', stepSize: '0.01', minQuantity: '0.01', takerFeeBps: '5', makerFeeBps: '1',
      fundingIntervalMs: 300_000, fundingMaxRateBps: '25',
    },
    future: { tickSize: '0.01', stepSize: '0.01', minQuantity: '0.01', takerFeeBps: '5', makerFeeBps: '1' },
    options: null,
    priceBandBps: 1_000,
    rate: 0.04,
    riskImPct: '5',
    riskMmPct: '2.5',
    simStartPrice: '4000',
    simAnnualVol: 0.18,
  },
  {
    family: 'WTIOIL',
    assetClass: 'energy',
    quote: 'USDC',
    spotId: 'WTIOIL-USDC-SPOT',
    perpetualId: 'WTIOIL-USDC-PERP',
    futurePrefix: 'WTIOIL-USDC-',
    futuresListed: 2,
    spot: { tickSize: '0.01', stepSize: '0.1', minQuantity: '0.1', takerFeeBps: '10', makerFeeBps: '5' },
    perpetual: {
      tickSize: '0.01', stepSize: '0.1', minQuantity: '0.1', takerFeeBps: '5', makerFeeBps: '1',
      fundingIntervalMs: 300_000, fundingMaxRateBps: '25',
    },
    future: { tickSize: '0.01', stepSize: '0.1', minQuantity: '0.1', takerFeeBps: '5', makerFeeBps: '1' },
    options: null,
    priceBandBps: 1_000,
    rate: 0.04,
    riskImPct: '8',
    riskMmPct: '4',
    simStartPrice: '65',
    simAnnualVol: 0.35,
  },
]

export function familyCatalog(family: string): FamilyCatalog | undefined {
  return CATALOG.find((f) => f.family === family)
}

/** The smile for an expiry `tenorDays` away: the first surface entry whose tenor covers it. */
export function smileFor(options: OptionsParams, tenorDays: number): VolSmile {
  return smileAt(options.volSurface, tenorDays)
}
