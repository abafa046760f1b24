// The default product catalog: every family, every parameter. The listing job turns it into markets
// (src/domain/listing.ts); nothing else hard-codes a tick, a fee or a strike grid.
import type { FamilyCatalog, OptionsParams, VolSmile } from '../domain/familyParams.js'
import { smileAt } from '../domain/pricing/volSurface.js'

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
