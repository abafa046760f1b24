// The option premium and fee fast paths in doubles (optionSums.ts prices legs with them) must give the
// exact bigint figures wherever they answer, and decline (null) where doubles would not be exact.
import { describe, expect, it } from 'vitest'
import { CATALOG } from '../../src/config/catalog.js'
import { plannedMarkets } from '../../src/domain/listing.js'
import { mulberry32 } from '../../src/domain/prng.js'
import { MarketRuntime } from '../../src/engine/marketRuntime.js'
import { divRounded, maxOptionFee, maxOptionFeeNum, premiumOfTickLots, premiumOfTickLotsNum } from '../../src/engine/optionPricing.js'
import { EngineState } from '../../src/engine/state.js'

const state = new EngineState()
const specs = plannedMarkets(CATALOG, { nowMs: Date.UTC(2026, 0, 5, 12), spotRef: () => '100000', defaultStaleMarkMs: 5_000 })
const runtime = (type: 'spot' | 'option', family: string) => new MarketRuntime(specs.find((s) => s.type === type && s.family === family)!, state)

describe('option premium and fee in doubles', () => {
  it('rounds an integer quotient exactly, down and up, at every magnitude below 2^52', () => {
    const rng = mulberry32(7)
    for (let i = 0; i < 20_000; i++) {
      const d = 1 + Math.floor(rng() * 2 ** (1 + Math.floor(rng() * 40)))
      const x = Math.floor(rng() * (2 ** 52 - d))
      for (const up of [false, true]) {
        const exact = up ? (BigInt(x) + BigInt(d) - 1n) / BigInt(d) : BigInt(x) / BigInt(d)
        expect(divRounded(x, d, up)).toBe(Number(exact))
      }
    }
    // Exact multiples and their neighbours, where a rounded division is most likely to land one off.
    for (const d of [3, 7, 1_000_000, 999_999_937]) {
      const q = Math.floor((2 ** 52 - 1) / d)
      for (const x of [q * d - 1, q * d, q * d + 1 < 2 ** 52 ? q * d + 1 : q * d]) {
        expect(divRounded(x, d, false)).toBe(Number(BigInt(x) / BigInt(d)))
        expect(divRounded(x, d, true)).toBe(Number((BigInt(x) + BigInt(d) - 1n) / BigInt(d)))
      }
    }
  })

  // Options are listed on BTC alone (the catalog); its tick, step and index tick make the factors.
  it('equal the bigint premium and fee of an option, or decline past exact doubles', () => {
      const option = runtime('option', 'BTC')
      const spot = runtime('spot', 'BTC')
      const rng = mulberry32(11)
      let answered = 0
      let declined = 0
      for (let i = 0; i < 5_000; i++) {
        const scale = 2 ** Math.floor(rng() * 48)
        const tickLots = Math.floor(rng() * scale)
        const lots = 1 + Math.floor(rng() * scale)
        const spotTicks = 1 + Math.floor(rng() * 2 ** 30)
        for (const up of [false, true]) {
          const num = premiumOfTickLotsNum(option, spot, tickLots, spotTicks, up)
          if (num === null) declined++
          else {
            answered++
            expect(num).toBe(Number(premiumOfTickLots(option, spot, BigInt(tickLots), spotTicks, up)))
          }
        }
        const fee = maxOptionFeeNum(option, spot, lots, spotTicks)
        if (fee === null) declined++
        else {
          answered++
          expect(fee).toBe(Number(maxOptionFee(option, spot, lots, spotTicks)))
        }
      }
      // Both branches ran: the draws reach past what doubles hold.
      expect(answered).toBeGreaterThan(1_000)
      expect(declined).toBeGreaterThan(100)
  })
})
