import { describe, expect, it } from 'vitest'
import {
  DAY_MS,
  WEEK_MS,
  isoDate,
  nextQuarterlyExpiries,
  optionExpiries,
  optionExpiryForFuture,
} from '../../src/domain/calendar.js'

const t = (iso: string): number => Date.parse(iso)
const day = (date: string): number => t(`${date}T08:00:00.000Z`)
const show = (ms: number): string => new Date(ms).toISOString()

describe('nextQuarterlyExpiries', () => {
  it.each<[string, number, string[]]>([
    ['2026-11-21T12:00:00Z', 2, ['2026-12-25', '2027-03-26']],
    ['2026-01-01T00:00:00Z', 4, ['2026-03-27', '2026-06-26', '2026-09-25', '2026-12-25']],
    ['2026-12-25T07:59:59.999Z', 1, ['2026-12-25']],
    ['2026-12-25T08:00:00Z', 1, ['2027-03-26']],
    ['2026-12-28T00:00:00Z', 3, ['2027-03-26', '2027-06-25', '2027-09-24']],
    // Months whose last day is itself a Friday.
    ['2027-12-30T00:00:00Z', 2, ['2027-12-31', '2028-03-31']],
    ['2028-04-01T00:00:00Z', 2, ['2028-06-30', '2028-09-29']],
    ['2026-03-27T08:00:00.001Z', 1, ['2026-06-26']],
  ])('at %s the next %i are %j', (now, count, expected) => {
    expect(nextQuarterlyExpiries(t(now), count).map(show)).toEqual(expected.map((d) => show(day(d))))
  })

  it('returns nothing for count 0', () => {
    expect(nextQuarterlyExpiries(t('2026-11-21T12:00:00Z'), 0)).toEqual([])
  })

  it.each([-1, 1.5, NaN])('rejects count %s', (count) => {
    expect(() => nextQuarterlyExpiries(0, count)).toThrow(RangeError)
  })

  it('rejects a non-finite now', () => {
    expect(() => nextQuarterlyExpiries(NaN, 1)).toThrow(RangeError)
  })

  it('every expiry is a Friday at 08:00 UTC in a quarter month, within the last 7 days of it', () => {
    for (const ms of nextQuarterlyExpiries(t('2025-01-01T00:00:00Z'), 40)) {
      const d = new Date(ms)
      expect(d.getUTCDay()).toBe(5)
      expect([d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()]).toEqual([8, 0, 0, 0])
      expect(d.getUTCMonth() % 3).toBe(2)
      expect(new Date(ms + WEEK_MS).getUTCMonth()).not.toBe(d.getUTCMonth())
    }
  })
})

describe('optionExpiryForFuture', () => {
  it.each([
    ['2026-12-25', '2026-12-18'],
    ['2027-03-26', '2027-03-19'],
    ['2027-12-31', '2027-12-24'],
  ])('options on the %s future expire %s', (future, option) => {
    expect(optionExpiryForFuture(day(future))).toBe(day(option))
  })
})

describe('optionExpiries', () => {
  it.each<[string, string, Array<[string, string | null]>]>([
    [
      'a Saturday',
      '2026-11-21T12:00:00Z',
      [['2026-11-27', null], ['2026-12-04', null], ['2026-12-18', '2026-12-25'], ['2027-01-22', null], ['2027-03-19', '2027-03-26']],
    ],
    [
      'a Friday just before 08:00 (that Friday still listed)',
      '2026-11-27T07:59:59.999Z',
      [['2026-11-27', null], ['2026-12-04', null], ['2026-12-18', '2026-12-25'], ['2027-01-22', null], ['2027-03-19', '2027-03-26']],
    ],
    [
      'a Friday exactly at 08:00 (that Friday has expired)',
      '2026-11-27T08:00:00Z',
      [['2026-12-04', null], ['2026-12-11', null], ['2026-12-18', '2026-12-25'], ['2027-01-22', null], ['2027-03-19', '2027-03-26']],
    ],
    [
      'the week before a quarterly options expiry (the weekly coincides, listed once)',
      '2026-12-11T12:00:00Z',
      [['2026-12-18', '2026-12-25'], ['2026-12-25', null], ['2027-01-01', null], ['2027-01-22', null], ['2027-03-19', '2027-03-26']],
    ],
    [
      'a quarterly options expiry, exactly at 08:00 (front options gone, three weeklies)',
      '2026-12-18T08:00:00Z',
      [['2026-12-25', null], ['2027-01-01', null], ['2027-01-08', null], ['2027-01-22', null], ['2027-03-19', '2027-03-26']],
    ],
    [
      'between the options expiry and the futures expiry',
      '2026-12-22T00:00:00Z',
      [['2026-12-25', null], ['2027-01-01', null], ['2027-01-08', null], ['2027-01-22', null], ['2027-03-19', '2027-03-26']],
    ],
    [
      'the futures expiry (the pair has rolled)',
      '2026-12-25T08:00:00Z',
      [['2027-01-01', null], ['2027-01-08', null], ['2027-01-22', null], ['2027-03-19', '2027-03-26'], ['2027-06-18', '2027-06-25']],
    ],
    [
      'the week of a monthly expiry (the weekly coincides, listed once)',
      '2027-01-18T00:00:00Z',
      [['2027-01-22', null], ['2027-01-29', null], ['2027-02-05', null], ['2027-03-19', '2027-03-26'], ['2027-06-18', '2027-06-25']],
    ],
    [
      'a year end where the future expires on the 31st',
      '2027-12-20T00:00:00Z',
      [['2027-12-24', '2027-12-31'], ['2027-12-31', null], ['2028-01-07', null], ['2028-01-21', null], ['2028-03-24', '2028-03-31']],
    ],
  ])('on %s', (_label, now, expected) => {
    const got = optionExpiries(t(now)).map((e) => [isoDate(e.expiryMs), e.futureExpiryMs === null ? null : isoDate(e.futureExpiryMs)])
    expect(got).toEqual(expected)
  })

  it('holds its invariants at every hour for two years', () => {
    const start = t('2026-01-01T00:00:00Z')
    const violations: string[] = []
    for (let now = start; now < start + 730 * DAY_MS; now += 3_600_000) {
      const list = optionExpiries(now)
      const futures = nextQuarterlyExpiries(now, 2)
      const ok =
        list.length === 5 &&
        list.every(
          (e, i) =>
            e.expiryMs > now &&
            new Date(e.expiryMs).getUTCDay() === 5 &&
            e.expiryMs % DAY_MS === 8 * 3_600_000 &&
            (i === 0 || e.expiryMs > list[i - 1]!.expiryMs) &&
            (e.futureExpiryMs === null || (futures.includes(e.futureExpiryMs) && e.expiryMs === e.futureExpiryMs - WEEK_MS)),
        ) &&
        // The options on the back future are always listed.
        list.some((e) => e.futureExpiryMs === futures[1])
      if (!ok) violations.push(show(now))
    }
    expect(violations).toEqual([])
  })
})

describe('isoDate', () => {
  it.each([
    ['2026-12-18T08:00:00Z', '2026-12-18'],
    ['2026-12-31T23:59:59.999Z', '2026-12-31'],
    ['2027-01-01T00:00:00Z', '2027-01-01'],
    ['1970-01-01T00:00:00Z', '1970-01-01'],
  ])('%s → %s', (iso, expected) => {
    expect(isoDate(t(iso))).toBe(expected)
  })

  it('rejects a non-finite time', () => {
    expect(() => isoDate(NaN)).toThrow(RangeError)
  })
})
