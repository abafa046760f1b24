// The `sim` mark source: a seeded geometric random walk of each family's spot, and futures priced off
// it at carry (spot·e^(rT)) with a little basis noise. Floats stay inside this model; every price
// leaves it rounded to the market's tick.
import type { FamilyCatalog } from '../../domain/familyParams.js'
import { D, formatDecimal, roundToTick } from '../../domain/decimal.js'
import type { MarketSpec } from '../../domain/market.js'
import { gaussian, mulberry32, type Rng } from '../../domain/prng.js'
import type { MarkInput } from '../../engine/commands.js'

const YEAR_MS = 365.25 * 24 * 3_600_000
/** Basis noise of futures around carry, as a fraction. */
const BASIS_NOISE = 0.0002

export class SimFeed {
  private readonly rng: Rng
  private readonly spot = new Map<string, number>()
  private lastMs: number | null = null

  constructor(
    private readonly families: readonly FamilyCatalog[],
    seed: number,
    /** Latest known spot per family (from the mark mirror), so a restarted feed continues the walk. */
    start: (family: FamilyCatalog) => string | undefined,
  ) {
    this.rng = mulberry32(seed)
    for (const f of families) this.spot.set(f.family, Number(start(f) ?? f.simStartPrice))
  }

  /** One observation per spot and live future, as of nowMs. */
  tick(nowMs: number, markets: readonly MarketSpec[]): MarkInput[] {
    const dtYears = this.lastMs === null ? 0 : Math.max(0, nowMs - this.lastMs) / YEAR_MS
    this.lastMs = nowMs
    const out: MarkInput[] = []
    for (const fam of this.families) {
      const s0 = this.spot.get(fam.family)!
      const sigma = fam.simAnnualVol
      const s = s0 * Math.exp(sigma * Math.sqrt(dtYears) * gaussian(this.rng) - 0.5 * sigma * sigma * dtYears)
      this.spot.set(fam.family, s)
      for (const m of markets) {
        if (m.family !== fam.family) continue
        let price: number
        if (m.type === 'spot') price = s
        else if (m.type === 'future' && m.expiryMs !== null && m.expiryMs > nowMs) {
          const t = (m.expiryMs - nowMs) / YEAR_MS
          price = s * Math.exp(fam.rate * t) * (1 + BASIS_NOISE * gaussian(this.rng))
        } else continue
        const rounded = roundToTick(price, D(m.tickSize))
        if (!rounded.gt(0)) continue
        out.push({ marketId: m.id, price: formatDecimal(rounded), source: 'sim', sourceTs: nowMs })
      }
    }
    return out
  }
}
