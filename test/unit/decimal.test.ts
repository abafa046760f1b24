import { Decimal } from 'decimal.js'
import { describe, expect, it } from 'vitest'
import {
  D,
  MICRO,
  formatDecimal,
  fromScaled,
  microToString,
  parseDecimal,
  quantize,
  roundToTick,
  ticksFromFloat,
  toMicro,
  toScaled,
} from '../../src/domain/decimal.js'

describe('D', () => {
  it('never switches to exponent notation within the configured range', () => {
    expect(new D('1e-30').toString()).toBe('0.000000000000000000000000000001')
    expect(new D('1e40').toString()).toBe('1' + '0'.repeat(40))
  })

  it('keeps 80 significant digits, so money products do not round', () => {
    const a = new D('123456789012345678901234567890.123456')
    const b = new D('98765432109876543210.987654')
    expect(a.times(b).toString()).toBe('12193263113702179522618503233744856245447340371333.485751812224')
  })
})

describe('parseDecimal', () => {
  it.each([
    ['0', '0'],
    ['0.5', '0.5'],
    ['1', '1'],
    ['-1', '-1'],
    ['100000', '100000'],
    ['1.50', '1.5'],
    ['-0.000001', '-0.000001'],
    ['0.00', '0'],
    ['-0', '0'],
    ['-0.0', '0'],
    ['123456789012345678901234567890.123456789012345678901234567890', '123456789012345678901234567890.12345678901234567890123456789'],
  ])('accepts %j as %s', (input, expected) => {
    const d = parseDecimal(input)
    expect(d).not.toBeNull()
    expect(d!.toFixed()).toBe(expected)
  })

  it('returns instances of D (80-digit precision)', () => {
    expect(parseDecimal('1')!.constructor).toBe(D)
  })

  it.each([
    '01',
    '00',
    '-01',
    '1.',
    '.5',
    '-.5',
    '+1',
    '1e5',
    '1E5',
    ' 1',
    '1 ',
    'NaN',
    'Infinity',
    '-Infinity',
    '',
    '-',
    '0x10',
    '1,5',
    '1_000',
    '١',
    '1.2.3',
    '1'.repeat(65),
  ])('rejects the string %j', (input) => {
    expect(parseDecimal(input)).toBeNull()
  })

  it('accepts exactly 64 characters', () => {
    expect(parseDecimal('1'.repeat(64))).not.toBeNull()
  })

  it.each([[1], [0], [1.5], [NaN], [null], [undefined], [{}], [[]], [1n], [new D(1)], [true]])('rejects the non-string %s', (input) => {
    expect(parseDecimal(input)).toBeNull()
  })
})

describe('formatDecimal', () => {
  it.each<[Decimal | string | bigint, number | undefined, string]>([
    [new D('1.500'), undefined, '1.5'],
    [new D('100'), undefined, '100'],
    [new D('1e21'), undefined, '1000000000000000000000'],
    [new D('1e-7'), undefined, '0.0000001'],
    [new D('-0'), undefined, '0'],
    ['-0.000', undefined, '0'],
    ['2.50', undefined, '2.5'],
    [123n, undefined, '123'],
    [-5n, undefined, '-5'],
    [new D('1.5'), 2, '1.50'],
    [new D('1'), 4, '1.0000'],
    [new D('-0'), 2, '0.00'],
    [new D('-0.001'), 2, '0.00'],
    [new D('0.125'), 2, '0.12'],
    [new D('0.135'), 2, '0.14'],
    [new D('7'), 0, '7'],
    [new Decimal('1e25'), undefined, '10000000000000000000000000'],
  ])('formats %s (scale %s) as %s', (value, scale, expected) => {
    expect(formatDecimal(value, scale)).toBe(expected)
  })

  it.each([-1, 1.5, NaN])('rejects scale %s', (scale) => {
    expect(() => formatDecimal(new D(1), scale)).toThrow(RangeError)
  })

  it('rejects non-finite values', () => {
    expect(() => formatDecimal(new D(Infinity))).toThrow(RangeError)
  })
})

describe('toScaled / fromScaled', () => {
  const tick = new D('0.1')
  it.each<[string, string, number | null]>([
    ['100.1', '0.1', 1001],
    ['100.10', '0.1', 1001],
    ['100.15', '0.1', null],
    ['0', '0.1', 0],
    ['-0', '0.1', 0],
    ['-2.5', '0.5', -5],
    ['0.0003', '0.0001', 3],
    ['1.23', '0.01', 123],
    ['0.001', '0.001', 1],
    ['0.0015', '0.001', null],
    ['7', '2.5', null],
    ['7.5', '2.5', 3],
    ['900719925474099.1', '0.1', 9007199254740991],
    ['900719925474099.2', '0.1', null],
  ])('%s in units of %s is %s', (value, unit, expected) => {
    expect(toScaled(new D(value), new D(unit))).toBe(expected)
  })

  it.each(['0', '-0.1'])('rejects a non-positive unit %s', (unit) => {
    expect(() => toScaled(new D(1), new D(unit))).toThrow(RangeError)
  })

  it.each<[number | bigint, string, string]>([
    [1001, '0.1', '100.1'],
    [0, '0.1', '0'],
    [-5, '0.5', '-2.5'],
    [3n, '0.0001', '0.0003'],
    [9007199254740993n, '0.001', '9007199254740.993'],
  ])('fromScaled(%s, %s) = %s', (n, unit, expected) => {
    expect(fromScaled(n, new D(unit)).toFixed()).toBe(expected)
  })

  it('round-trips', () => {
    for (const n of [0, 1, -1, 12345, -987654321, Number.MAX_SAFE_INTEGER]) {
      expect(toScaled(fromScaled(n, tick), tick)).toBe(n)
    }
  })

  it.each([1.5, NaN, Infinity, 2 ** 53])('fromScaled rejects %s', (n) => {
    expect(() => fromScaled(n, tick)).toThrow(RangeError)
  })
})

describe('micro-USDC', () => {
  it('MICRO is one USDC', () => {
    expect(MICRO).toBe(1_000_000n)
  })

  it.each<[string, 'floor' | 'ceil' | 'exact', bigint | null]>([
    ['1.5', 'exact', 1_500_000n],
    ['1.5', 'floor', 1_500_000n],
    ['0.000001', 'exact', 1n],
    ['-0.000001', 'exact', -1n],
    ['0', 'exact', 0n],
    ['-0', 'exact', 0n],
    ['0.0000015', 'exact', null],
    ['0.0000015', 'floor', 1n],
    ['0.0000015', 'ceil', 2n],
    ['-0.0000015', 'floor', -2n],
    ['-0.0000015', 'ceil', -1n],
    ['0.0000001', 'ceil', 1n],
    ['0.0000001', 'floor', 0n],
    ['-0.0000001', 'ceil', 0n],
    ['123456789012345678901234.123456', 'exact', 123456789012345678901234123456n],
  ])('toMicro(%s, %s) = %s', (value, rounding, expected) => {
    expect(toMicro(new D(value), rounding)).toBe(expected)
  })

  it('computes at D precision even for a Decimal from the default 20-digit constructor', () => {
    expect(toMicro(new Decimal('123456789012345678901234.123456'), 'exact')).toBe(123456789012345678901234123456n)
  })

  it('toMicro of a non-finite value is null', () => {
    expect(toMicro(new D(NaN), 'floor')).toBeNull()
  })

  it.each<[bigint, string]>([
    [1_500_000n, '1.5'],
    [-1n, '-0.000001'],
    [0n, '0'],
    [1n, '0.000001'],
    [1_000_000n, '1'],
    [-1_000_000n, '-1'],
    [-1_230_000n, '-1.23'],
    [10_000_010n, '10.00001'],
    [123456789012345678901234123456n, '123456789012345678901234.123456'],
  ])('microToString(%s) = %s', (m, expected) => {
    expect(microToString(m)).toBe(expected)
  })

  it('microToString output parses back to the same amount', () => {
    for (const m of [0n, 1n, -1n, 999_999n, 1_000_001n, -42_000_000n]) {
      expect(toMicro(parseDecimal(microToString(m))!, 'exact')).toBe(m)
    }
  })
})

describe('quantize / roundToTick / ticksFromFloat', () => {
  it.each<[string, string, string]>([
    ['100.04', '0.1', '100'],
    ['100.05', '0.1', '100.1'],
    ['-100.05', '0.1', '-100.1'],
    ['-0.04', '0.1', '0'],
    ['7.4', '5', '5'],
    ['7.5', '5', '10'],
  ])('quantize(%s, %s) = %s', (value, unit, expected) => {
    expect(quantize(new D(value), new D(unit)).toFixed()).toBe(expected)
  })

  it.each<[number, string, string, number]>([
    [100.04, '0.1', '100', 1000],
    [100.05, '0.1', '100.1', 1001],
    [-100.05, '0.1', '-100.1', -1001],
    [0.1 + 0.2, '0.1', '0.3', 3],
    [0.012349999, '0.0001', '0.0123', 123],
    [0.01235, '0.0001', '0.0124', 124],
    [0.00004, '0.0001', '0', 0],
    [-0.00004, '0.0001', '0', 0],
    [1e-20, '0.0001', '0', 0],
    [64123.456789, '0.1', '64123.5', 641235],
    [2.5, '1', '3', 3],
  ])('roundToTick(%s, %s) = %s (%s ticks)', (price, tick, expected, ticks) => {
    expect(roundToTick(price, new D(tick)).toFixed()).toBe(expected)
    expect(ticksFromFloat(price, new D(tick))).toBe(ticks)
  })

  it.each([NaN, Infinity, -Infinity])('rejects the float %s', (price) => {
    expect(() => roundToTick(price, new D('0.1'))).toThrow(RangeError)
  })

  it('ticksFromFloat rejects results beyond the safe integer range', () => {
    expect(() => ticksFromFloat(1e300, new D('0.1'))).toThrow(RangeError)
  })
})
