// DateTime answers `new Date(v).toISOString()` of whatever a resolver hands it. serializeInstant skips
// the Date for a string already in that form: it must answer exactly what the Date would, for every
// input, and throw where the Date throws.
import { describe, expect, it } from 'vitest'
import { serializeInstant } from '../../src/graphql/scalars.js'

function viaDate(v: Date | number | string): string | Error {
  try {
    return new Date(v).toISOString()
  } catch (err) {
    return err as Error
  }
}

function served(v: Date | number | string): string | Error {
  try {
    return serializeInstant(v)
  } catch (err) {
    return err as Error
  }
}

function expectSame(v: Date | number | string) {
  const want = viaDate(v)
  const got = served(v)
  if (want instanceof Error) {
    expect(got, String(v)).toBeInstanceOf(RangeError)
    expect(want).toBeInstanceOf(RangeError)
  } else {
    expect(got, String(v)).toBe(want)
  }
}

describe('DateTime serialization', () => {
  it('answers as a Date would for canonical strings across the four-digit years', () => {
    // A fixed walk (no randomness): every month of scattered years, ends of months, leap days.
    for (let year = 0; year <= 9999; year += 37) {
      for (let month = 0; month < 12; month++) {
        for (const day of [1, 15, 28, 29, 30, 31]) {
          const t = Date.UTC(year, month, day, (year + day) % 24, (year * 7) % 60, (month * 11) % 60, year % 1000)
          const d = new Date(t)
          d.setUTCFullYear(year, month, day) // Date.UTC maps years 0–99 to 1900–1999
          expectSame(d.toISOString())
          expectSame(d)
          expectSame(d.getTime())
        }
      }
    }
  })

  it('answers as a Date would for strings out of range or in another form', () => {
    const odd = [
      '2026-02-29T00:00:00.000Z', // not a leap year
      '2024-02-29T12:00:00.000Z',
      '2024-02-30T12:00:00.000Z',
      '1900-02-29T00:00:00.000Z',
      '2000-02-29T00:00:00.000Z',
      '2026-04-31T00:00:00.000Z',
      '2026-12-31T23:59:59.999Z',
      '2026-13-01T00:00:00.000Z',
      '2026-00-10T00:00:00.000Z',
      '2026-01-00T00:00:00.000Z',
      '2026-01-01T24:00:00.000Z',
      '2026-01-01T23:60:00.000Z',
      '2026-01-01T23:59:60.000Z',
      '2026-01-01T00:00:00.000z',
      '2026-01-01T00:00:00Z',
      '2026-01-01T00:00:00.0Z',
      '2026-01-01T00:00:00.0000Z',
      '2026-01-01T00:00:00.000+00:00',
      '2026-01-01T01:00:00.000+01:00',
      '2026-01-01',
      '2026-01-01 00:00:00.000Z',
      '+002026-01-01T00:00:00.000Z',
      '-000001-01-01T00:00:00.000Z',
      '0000-01-01T00:00:00.000Z',
      '9999-12-31T23:59:59.999Z',
      ' 2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:00.000Z ',
      '2026-01-01T00:00:00.000Z\n',
      'Thu, 26 Nov 2026 06:28:00 GMT',
      '1764138480000',
      '',
      'not a date',
    ]
    for (const v of odd) expectSame(v)
    for (const v of [0, -1, 1764138480000, 8.64e15, 8.64e15 + 1, Number.NaN]) expectSame(v)
    expectSame(new Date(Number.NaN))
  })
})
