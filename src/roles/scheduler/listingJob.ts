// The listing job: lists what the catalog wants listed now (new quarters, new option expiries) and
// retires expired markets. It only sends engine commands; the engine decides.
import { CATALOG } from '../../config/catalog.js'
import type { CommandBus } from '../../bus/commandBus.js'
import { futureId, marketsToList, plannedMarkets } from '../../domain/listing.js'
import type { MarketData } from '../../services/marketData.js'

export async function runListing(md: MarketData, bus: CommandBus, defaultStaleMarkMs: number, nowMs: number): Promise<{ listed: number; expired: number }> {
  const [listed, marks] = await Promise.all([md.listed({ fresh: true }), md.marks()])
  const planned = plannedMarkets(CATALOG, {
    nowMs,
    spotRef: (family) => {
      const fam = CATALOG.find((f) => f.family === family)!
      return marks.get(fam.spotId)?.price ?? fam.simStartPrice
    },
    futureRef: (family, futureExpiryMs) => {
      const fam = CATALOG.find((f) => f.family === family)!
      return marks.get(futureId(fam, futureExpiryMs))?.price ?? null
    },
    defaultStaleMarkMs,
  })
  const toList = marketsToList(planned, listed.map((m) => m.spec))
  if (toList.length > 0) await bus.execute({ type: 'ListMarkets', markets: toList }, { ts: nowMs })
  const expired = listed.filter((m) => m.status !== 'settled' && m.spec.expiryMs !== null && m.spec.expiryMs <= nowMs)
  for (const m of expired) await bus.execute({ type: 'ExpireMarket', marketId: m.spec.id }, { ts: nowMs })
  if (toList.length > 0 || expired.length > 0) md.invalidate()
  return { listed: toList.length, expired: expired.length }
}
