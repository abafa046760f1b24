// The theoretical valuation of listed options at one moment, shared by the board and the caller's
// option positions: the forward of each expiry (the matching future's mark, a future expiring exactly a
// week after the option, else the synthetic spot·e^(rT)), the smile's vol, and the Black-76 mark in
// units of the underlying on the option tick (src/domain/pricing/optionTheo.ts). The rate and the vol
// surface are the option's own, fixed at listing as the engine prices it (the catalog's for a market
// listed before they were recorded).
import { familyCatalog } from '../config/catalog.js'
import { D } from '../domain/decimal.js'
import type { MarketSpec } from '../domain/market.js'
import { smileAt } from '../domain/pricing/volSurface.js'
import type { OptionMark } from '../domain/pricing/optionPrice.js'
import { optionForward, optionTheo, YEAR_MS, type Forward, type PricePoint } from '../domain/pricing/optionTheo.js'
import type { MarkView } from '../bus/mirrors.js'
import type { ListedMarket } from '../store/marketRows.js'

const DAY_MS = 24 * 3_600_000
const WEEK_MS = 7 * DAY_MS

export interface OptionValuation {
  forward: Forward
  /** The family's spot index, USDC per unit of underlying, as the mark has it. */
  spotPrice: string
  timeYears: number
  rate: number
  /** The mark (underlying units, on the tick), the vol it was priced at, and its delta. */
  theo: OptionMark
}

const point = (m: MarkView | undefined): PricePoint | null => (m ? { price: Number(m.price), sourceTs: m.sourceTimestamp } : null)

/** The forward of an option expiry of `family`; null without the marks it needs. */
export function forwardOf(listed: readonly ListedMarket[], marks: ReadonlyMap<string, MarkView>, nowMs: number, family: string, expiryMs: number): Forward | null {
  const fam = familyCatalog(family)
  if (!fam) return null
  const future = listed.find((m) => m.spec.family === family && m.spec.type === 'future' && m.spec.expiryMs === expiryMs + WEEK_MS)
  return optionForward({ nowMs, expiryMs, rate: fam.rate, spot: point(marks.get(fam.spotId)), matchingFuture: point(marks.get(future?.spec.id ?? '')) })
}

/** Values option specs at `nowMs`; null for one whose family has no options or whose marks are missing. */
export function optionValuer(listed: readonly ListedMarket[], marks: ReadonlyMap<string, MarkView>, nowMs: number): (spec: MarketSpec) => OptionValuation | null {
  const forwards = new Map<string, Forward | null>()
  return (s) => {
    const fam = familyCatalog(s.family)
    const spot = fam && marks.get(fam.spotId)
    if (s.type !== 'option' || !fam?.options || !spot || s.expiryMs === null) return null
    const key = `${s.family}:${s.expiryMs}`
    if (!forwards.has(key)) forwards.set(key, forwardOf(listed, marks, nowMs, s.family, s.expiryMs))
    const forward = forwards.get(key)
    if (!forward) return null
    const pricing = s.pricing ?? { rate: fam.rate, volSurface: fam.options.volSurface }
    const theo = optionTheo({
      nowMs,
      expiryMs: s.expiryMs,
      strike: Number(s.strike),
      isCall: s.optionType === 'call',
      forward: forward.price,
      indexSpot: Number(spot.price),
      rate: pricing.rate,
      smile: smileAt(pricing.volSurface, (s.expiryMs - nowMs) / DAY_MS),
      tick: D(s.tickSize),
    })
    return { forward, spotPrice: spot.price, timeYears: Math.max(0, s.expiryMs - nowMs) / YEAR_MS, rate: pricing.rate, theo }
  }
}
