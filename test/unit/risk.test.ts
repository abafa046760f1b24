// The margin model with hand-computed cases.
import { describe, expect, it } from 'vitest'
import { mulberry32 } from '../../src/domain/prng.js'
import { familyRisk, linearRiskArray, portfolioRequirement, scenarioRisk, type Exposure } from '../../src/domain/risk.js'

const R_IM = 100_000n // 10%
const CREDITS = { crypto: 50, energy: 40, precious_metals: 45 }

/** A linear instrument worth `value` USDC per lot (in micro), with a position and no orders. */
const pos = (valueUsdc: number, lots: number, range = R_IM): Exposure => ({
  array: linearRiskArray(BigInt(valueUsdc) * 1_000_000n, range),
  lots,
  buyLots: 0,
  sellLots: 0,
  buyCost: 0n,
  sellCost: 0n,
})

describe('risk arrays', () => {
  it('hold the per-lot P&L of each scenario: ±1/3, ±2/3, ±1 of R, 0, and ±2R at 35%', () => {
    // 1 lot worth 1,000 USDC at R = 10%: moves of ±33.33, ±66.67, ±100, and ±200 × 0.35 = ±70.
    const a = linearRiskArray(1_000_000_000n, R_IM).map((n) => Number(n) / 60_000_000 / 1e6)
    expect(a.map((x) => Math.round(x * 100) / 100)).toEqual([-100, -66.67, -33.33, 0, 33.33, 66.67, 100, -70, 70])
  })
})

describe('family requirement', () => {
  it('is R × value for a single long or short (the full move is worse than 35% of twice it)', () => {
    expect(familyRisk([pos(95_000, 1)])).toEqual({ requirement: 9_500_000_000n, direction: -1 })
    expect(familyRisk([pos(95_000, -2)])).toEqual({ requirement: 19_000_000_000n, direction: 1 })
  })

  it('nets a long perpetual against a short future: the calendar spread needs less than either leg', () => {
    const perp = pos(95_000, 1)
    const future = pos(96_000, -1)
    const spread = familyRisk([perp, future]).requirement
    expect(spread).toBe(100_000_000n) // |95,000 − 96,000| × 10%
    expect(spread).toBeLessThan(familyRisk([perp]).requirement)
    expect(spread).toBeLessThan(familyRisk([future]).requirement)
  })

  it('counts open orders on their worse side, and what they lose against the mark on filling', () => {
    const resting: Exposure = { ...pos(1_000, 0), buyLots: 2, sellLots: 1 }
    // worst: both buys fill and the market falls by R: 2 × 1,000 × 10% = 200 USDC
    expect(familyRisk([resting]).requirement).toBe(200_000_000n)
    // a long of 1 with a resting sell of 1 (a closing order) needs no more than the long alone
    expect(familyRisk([{ ...pos(1_000, 1), sellLots: 1 }]).requirement).toBe(100_000_000n)
    // buys above the mark lose at once: 2 lots bought 5 USDC above the mark cost 10 more
    expect(familyRisk([{ ...resting, buyCost: 10_000_000n }]).requirement).toBe(210_000_000n)
  })

  it('rounds up to the micro-USDC', () => {
    // one third of R on a 1-micro lot value is not whole: the loss rounds up
    expect(familyRisk([pos(0, 0)]).requirement).toBe(0n)
    const tiny: Exposure = { ...pos(0, 0), array: linearRiskArray(1n, 100_000n), lots: 1 }
    expect(familyRisk([tiny]).requirement).toBe(1n)
  })
})

describe('linear families', () => {
  // Linear families are priced from the two extreme moves only; that must agree with the evaluation in
  // every scenario on any linear family, ties and directions included.
  it('price the same from the extreme moves as from every scenario', () => {
    const rand = mulberry32(20261121)
    const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1))
    const directions = new Set<number>()
    for (let round = 0; round < 20_000; round++) {
      // Few distinct values and small counts make ties and flat families common.
      const big = round % 4 === 0
      const family: Exposure[] = Array.from({ length: int(1, 4) }, () => {
        const value = BigInt(big ? int(1, 10_000_000) : int(1, 3)) * 1_000_000n
        const buyLots = rand() < 0.5 ? 0 : int(1, big ? 5_000 : 3)
        const sellLots = rand() < 0.5 ? 0 : int(1, big ? 5_000 : 3)
        return {
          ...pos(0, 0),
          array: linearRiskArray(value, R_IM),
          lots: int(big ? -100_000 : -3, big ? 100_000 : 3),
          buyLots,
          sellLots,
          buyCost: buyLots > 0 && rand() < 0.5 ? BigInt(int(0, big ? 1e12 : 3)) : 0n,
          sellCost: sellLots > 0 && rand() < 0.5 ? BigInt(int(0, big ? 1e12 : 3)) : 0n,
        }
      })
      const fast = familyRisk(family)
      expect(fast).toEqual(scenarioRisk(family))
      directions.add(fast.direction)
    }
    expect([...directions].sort()).toEqual([-1, 0, 1])
  })
})

describe('portfolio requirement', () => {
  const btc = { ...familyRisk([pos(95_000, 1)]), assetClass: 'crypto' } // long: worst is down, 9,500
  const eth = { ...familyRisk([pos(3_000, -2)]), assetClass: 'crypto' } // short: worst is up, 600
  const eth2 = { ...familyRisk([pos(3_000, 2)]), assetClass: 'crypto' } // long: worst is down, 600
  const oil = { ...familyRisk([pos(65, -100)]), assetClass: 'energy' } // short: worst is up, 650

  it('credits offsetting families of one asset class with its percentage of the smaller side', () => {
    // 9,500 + 600 − 50% × 600
    expect(portfolioRequirement([btc, eth], CREDITS)).toBe(9_800_000_000n)
  })

  it('gives no credit when the families lean the same way', () => {
    expect(portfolioRequirement([btc, eth2], CREDITS)).toBe(10_100_000_000n)
  })

  it('gives no credit across asset classes', () => {
    expect(portfolioRequirement([btc, oil], CREDITS)).toBe(10_150_000_000n)
  })

  it('uses each class\'s own percentage', () => {
    const oilLong = { ...familyRisk([pos(65, 50)]), assetClass: 'energy' } // worst down, 325
    // 650 + 325 − 40% × 325 = 845
    expect(portfolioRequirement([oil, oilLong], CREDITS)).toBe(845_000_000n)
  })
})
