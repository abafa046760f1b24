// Building blocks for engine tests: the default catalog's markets at a fixed time, command envelopes,
// and a seeded stream of mark updates, halts and resumes.
import { CATALOG } from '../../src/config/catalog.js'
import { plannedMarkets } from '../../src/domain/listing.js'
import type { MarketSpec } from '../../src/domain/market.js'
import { mulberry32 } from '../../src/domain/prng.js'
import type { Command, CommandEnvelope } from '../../src/engine/commands.js'

/** 2026-11-21T12:00:00Z: futures 2026-12-25 and 2027-03-26 are listed. */
export const T0 = Date.UTC(2026, 10, 21, 12)

export function catalogAt(nowMs: number = T0): MarketSpec[] {
  return plannedMarkets(CATALOG, { nowMs, spotRef: () => '95000', defaultStaleMarkMs: 5_000 })
}

let counter = 0
export function envelope(cmd: Command, ts: number, extra: Partial<CommandEnvelope> = {}): CommandEnvelope {
  counter++
  return { id: `cmd-${counter}`, ts, cmd, ...extra }
}

/** Spot and futures ids of the BTC family in a catalog. */
export function btcLegs(markets: readonly MarketSpec[]) {
  const futures = markets.filter((m) => m.family === 'BTC' && m.type === 'future').sort((a, b) => a.expiryMs! - b.expiryMs!)
  return { spot: 'BTC-USDC-SPOT', perp: 'BTC-PERP', f1: futures[0]!, f2: futures[1]! }
}

/**
 * A reproducible stream: one ListMarkets, then `count` commands, mostly UpdateMarks batches over every
 * spot and future with random-walk prices, some halts and resumes, and a few invalid commands that the
 * engine must refuse without effect.
 */
export function commandStream(seed: number, count: number, t0: number = T0): CommandEnvelope[] {
  const rng = mulberry32(seed)
  const markets = catalogAt(t0)
  const priced = markets.filter((m) => m.type === 'spot' || m.type === 'future')
  const price = new Map(priced.map((m) => [m.id, Number(m.family === 'BTC' ? 95000 : m.family === 'XAUT' ? 4000 : 65)]))
  const out: CommandEnvelope[] = [envelope({ type: 'ListMarkets', markets }, t0)]
  for (let i = 1; i <= count; i++) {
    const ts = t0 + i * 250
    const r = rng()
    if (r < 0.85) {
      const marks = priced
        .filter(() => rng() < 0.6)
        .map((m) => {
          const p = Math.max(1, price.get(m.id)! * (1 + (rng() - 0.5) * 0.002))
          price.set(m.id, p)
          const decimals = m.tickSize.split('.')[1]?.length ?? 0
          return { marketId: m.id, price: p.toFixed(decimals), source: 'sim', sourceTs: ts - Math.floor(rng() * 500) }
        })
      if (marks.length > 0) out.push(envelope({ type: 'UpdateMarks', marks }, ts))
    } else if (r < 0.93) {
      const m = markets[Math.floor(rng() * markets.length)]!
      out.push(envelope({ type: 'SetMarketStatus', marketId: m.id, status: rng() < 0.5 ? 'halted' : 'active' }, ts))
    } else {
      // Refused: unknown market, or a mark on a perpetual (derived, never pushed).
      out.push(envelope({ type: 'UpdateMarks', marks: [{ marketId: rng() < 0.5 ? 'NOPE-PERP' : 'BTC-PERP', price: '1', source: 'sim', sourceTs: ts }] }, ts))
    }
  }
  return out
}
