import { describe, expect, it } from 'vitest'
import { scaleOf } from '../../src/domain/scale.js'

describe('scaleOf', () => {
  it.each([
    ['0.1', 955001, '95500.1'],
    ['0.1', 950000, '95000'],
    ['0.001', 1, '0.001'],
    ['0.001', 1500, '1.5'],
    ['0.0001', 0, '0'],
    ['0.01', -5, '-0.05'],
    ['5', 3, '15'],
    ['0.25', 3, '0.75'],
    ['1', 123, '123'],
  ])('formats units of %s: %i → %s', (unit, n, expected) => {
    expect(scaleOf(unit).format(n)).toBe(expected)
  })

  it.each(['0', '-1', '1e-3', '.1', 'abc'])('refuses %s as a unit', (unit) => {
    expect(() => scaleOf(unit)).toThrow()
  })
})
