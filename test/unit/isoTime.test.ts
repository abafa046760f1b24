// Instants on the wire: isoTime writes exactly what Date#toISOString writes.
import { describe, expect, it } from 'vitest'
import { isoTime } from '../../src/engine/views.js'

describe('isoTime', () => {
  it("writes Date#toISOString's text, across days, years and out-of-range years", () => {
    const DAY = 86_400_000
    const base = Date.UTC(2026, 10, 26)
    const instants = [0, 1, 999, 1_000, DAY - 1, DAY, -1, -DAY, -DAY - 1, base, base - 1, base + DAY - 1, base + 12_345_678,
      Date.UTC(2028, 1, 29, 23, 59, 59, 999), Date.UTC(9999, 11, 31, 23, 59, 59, 999), Date.UTC(10000, 0, 1), Date.UTC(-1, 0, 1), 8.64e15, -8.64e15]
    for (let i = 0; i < 20_000; i++) instants.push(Math.floor((Math.random() - 0.3) * 4e12), base + Math.floor(Math.random() * 3 * DAY))
    for (const ms of instants) expect(isoTime(ms), String(ms)).toBe(new Date(ms).toISOString())
    // Out of order too: the remembered day must not leak into another one.
    for (const ms of [base + 5, base - 5, base + DAY + 5, base + 5]) expect(isoTime(ms)).toBe(new Date(ms).toISOString())
  })
})
