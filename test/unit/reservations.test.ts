// The exposure arithmetic of open orders: exact whatever the magnitudes.
import { describe, expect, it } from 'vitest'
import { mulberry32 } from '../../src/domain/prng.js'
import { tickLotsDelta } from '../../src/engine/reservations.js'

describe('tickLotsDelta', () => {
  it('equals the bigint difference of the two products, below and beyond 2^53', () => {
    const rand = mulberry32(53)
    const draw = () => {
      // Every magnitude from single digits to the largest safe integer.
      const digits = 1 + Math.floor(rand() * 15)
      return Math.min(Number.MAX_SAFE_INTEGER, Math.floor(rand() * 10 ** digits))
    }
    let beyond = 0
    for (let i = 0; i < 20_000; i++) {
      const [heldLots, heldPrice, lots, price] = [draw(), draw(), draw(), draw()]
      const exact = BigInt(lots) * BigInt(price) - BigInt(heldLots) * BigInt(heldPrice)
      if (lots * price > Number.MAX_SAFE_INTEGER || heldLots * heldPrice > Number.MAX_SAFE_INTEGER) beyond++
      expect(tickLotsDelta(heldLots, heldPrice, lots, price)).toBe(exact)
    }
    expect(beyond).toBeGreaterThan(1_000)
    expect(tickLotsDelta(0, 0, 3, 7)).toBe(21n)
    expect(tickLotsDelta(3, 7, 0, 0)).toBe(-21n)
    expect(tickLotsDelta(2 ** 30, 2 ** 23, 2 ** 30, 2 ** 24)).toBe(2n ** 54n - 2n ** 53n)
  })
})
