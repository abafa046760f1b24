// Which markets should be listed at a given time: spot and perpetual per family, the next quarterly
// futures, and (BTC) options for the listed option expiries on a strike grid around each expiry's
// forward at listing (the matching future's mark, else spot·e^(rT)).
// Pure: the listing job in the scheduler diffs this against what is listed and sends engine commands.
import type { FamilyCatalog, LinearParams } from './familyParams.js'
import { isoDate, nextQuarterlyExpiries, optionExpiries } from './calendar.js'
import { D, formatDecimal } from './decimal.js'
import type { MarketSpec, MarketType } from './market.js'
import { YEAR_MS } from './pricing/optionTheo.js'

export interface ListingContext {
  nowMs: number
  /** Reference spot per family: the latest mark, or the catalog's start price. */
  spotRef: (family: string) => string
  /** The latest mark of a family's future by its expiry, when it has one (absent: none known). */
  futureRef?: (family: string, futureExpiryMs: number) => string | null
  defaultStaleMarkMs: number
}

export function futureId(fam: FamilyCatalog, expiryMs: number): string {
  return `${fam.futurePrefix}${isoDate(expiryMs)}`
}

export function optionId(family: string, expiryMs: number, strike: string, type: 'call' | 'put'): string {
  return `${family}-${isoDate(expiryMs)}-${strike}-${type === 'call' ? 'C' : 'P'}`
}

/** Strikes every `step` within ±rangePct of spot, inclusive, as canonical decimal strings. */
export function strikeGrid(spot: string, step: number, rangePct: number): string[] {
  const s = D(spot)
  const stepD = D(step)
  const lo = s.mul(100 - rangePct).div(100).div(stepD).ceil().mul(stepD)
  const hi = s.mul(100 + rangePct).div(100).div(stepD).floor().mul(stepD)
  const out: string[] = []
  for (let k = lo.gt(0) ? lo : stepD; k.lte(hi); k = k.add(stepD)) out.push(formatDecimal(k))
  return out
}

/** The forward an expiry's strike grid is drawn around: its future's mark, else spot·e^(rT). */
function forwardRef(fam: FamilyCatalog, ctx: ListingContext, expiryMs: number, futureExpiryMs: number | null): string {
  const future = futureExpiryMs === null ? null : (ctx.futureRef?.(fam.family, futureExpiryMs) ?? null)
  if (future !== null) return future
  const years = Math.max(0, expiryMs - ctx.nowMs) / YEAR_MS
  return D(ctx.spotRef(fam.family)).mul(Math.exp(fam.rate * years)).toFixed(8)
}

function spec(
  fam: FamilyCatalog,
  ctx: ListingContext,
  id: string,
  type: MarketType,
  params: LinearParams,
  extra: Partial<MarketSpec> = {},
): MarketSpec {
  return {
    id,
    family: fam.family,
    assetClass: fam.assetClass,
    type,
    base: fam.family,
    quote: fam.quote,
    tickSize: params.tickSize,
    stepSize: params.stepSize,
    minQuantity: params.minQuantity,
    priceBandBps: fam.priceBandBps,
    takerFeeBps: params.takerFeeBps,
    makerFeeBps: params.makerFeeBps,
    fundingIntervalMs: null,
    fundingMaxRateBps: null,
    expiryMs: null,
    strike: null,
    optionType: null,
    staleMarkMs: fam.staleMarkMs ?? ctx.defaultStaleMarkMs,
    initialMarginPct: fam.riskImPct,
    maintenanceMarginPct: fam.riskMmPct,
    listedAtMs: ctx.nowMs,
    ...extra,
  }
}

/**
 * Every market the catalog wants listed at ctx.nowMs. Options are generated for every listed option
 * expiry; the caller skips expiries it already lists, so a strike grid is fixed when first listed.
 */
export function plannedMarkets(catalog: readonly FamilyCatalog[], ctx: ListingContext): MarketSpec[] {
  const out: MarketSpec[] = []
  for (const fam of catalog) {
    out.push(spec(fam, ctx, fam.spotId, 'spot', fam.spot))
    out.push(
      spec(fam, ctx, fam.perpetualId, 'perpetual', fam.perpetual, {
        fundingIntervalMs: fam.perpetual.fundingIntervalMs,
        fundingMaxRateBps: fam.perpetual.fundingMaxRateBps,
      }),
    )
    for (const expiryMs of nextQuarterlyExpiries(ctx.nowMs, fam.futuresListed)) {
      out.push(spec(fam, ctx, futureId(fam, expiryMs), 'future', fam.future, { expiryMs }))
    }
    if (!fam.options) continue
    for (const { expiryMs, futureExpiryMs } of optionExpiries(ctx.nowMs)) {
      const strikes = strikeGrid(forwardRef(fam, ctx, expiryMs, futureExpiryMs), fam.options.strikeStep, fam.options.strikeRangePct)
      for (const strike of strikes) {
        for (const optionType of ['call', 'put'] as const) {
          out.push(
            spec(fam, ctx, optionId(fam.family, expiryMs, strike, optionType), 'option', fam.options, {
              expiryMs,
              strike,
              optionType,
              pricing: { rate: fam.rate, volSurface: fam.options.volSurface },
            }),
          )
        }
      }
    }
  }
  return out
}

/**
 * The planned markets not yet listed. An option is skipped when its family already lists any option
 * of that expiry (the grid is drawn once, around spot at first listing).
 */
export function marketsToList(planned: readonly MarketSpec[], listed: readonly MarketSpec[]): MarketSpec[] {
  const ids = new Set(listed.map((m) => m.id))
  const optionExpiriesListed = new Set(
    listed.filter((m) => m.type === 'option').map((m) => `${m.family}:${m.expiryMs}`),
  )
  return planned.filter(
    (m) => !ids.has(m.id) && !(m.type === 'option' && optionExpiriesListed.has(`${m.family}:${m.expiryMs}`)),
  )
}
