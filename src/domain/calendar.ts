// Expiry calendar, all in UTC and all relative to an explicit `nowMs`: quarterly futures (last Friday
// of Mar/Jun/Sep/Dec, 08:00), their options (the Friday before), the monthly options (the Friday before
// a month's last Friday, as the quarterlies), the weekly option Fridays, and the date form used in
// market ids. An expiry exactly at `nowMs` counts as expired: it is not listed.

export const HOUR_MS = 3_600_000
export const DAY_MS = 24 * HOUR_MS
export const WEEK_MS = 7 * DAY_MS
export const EXPIRY_HOUR_UTC = 8
export const OPTION_EXPIRY_COUNT = 5

const FRIDAY = 5
const QUARTER_MONTHS = [2, 5, 8, 11] as const

function assertTime(ms: number, name: string): void {
  if (!Number.isFinite(ms)) throw new RangeError(`${name} must be a finite ms timestamp: ${ms}`)
}

/** Last Friday of a month (0-based month) at 08:00 UTC. */
function lastFridayOfMonth(year: number, month: number): number {
  const lastDay = new Date(Date.UTC(year, month + 1, 0))
  const back = (lastDay.getUTCDay() - FRIDAY + 7) % 7
  return Date.UTC(year, month, lastDay.getUTCDate() - back, EXPIRY_HOUR_UTC)
}

/** The next `count` quarterly futures expiries strictly after `nowMs`, ascending. */
export function nextQuarterlyExpiries(nowMs: number, count: number): number[] {
  assertTime(nowMs, 'nowMs')
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`count must be a non-negative integer: ${count}`)
  const now = new Date(nowMs)
  let year = now.getUTCFullYear()
  // Start at this quarter's expiry month; it may already be past, which the loop skips.
  let q = Math.floor(now.getUTCMonth() / 3)
  const out: number[] = []
  while (out.length < count) {
    const month = QUARTER_MONTHS[q] as number
    const expiry = lastFridayOfMonth(year, month)
    if (expiry > nowMs) out.push(expiry)
    q += 1
    if (q === QUARTER_MONTHS.length) {
      q = 0
      year += 1
    }
  }
  return out
}

/** Options on a quarterly future expire on the Friday before it, same time of day. */
export function optionExpiryForFuture(futureExpiryMs: number): number {
  assertTime(futureExpiryMs, 'futureExpiryMs')
  return futureExpiryMs - WEEK_MS
}

/** The first Friday 08:00 UTC strictly after `nowMs`. */
function nextFriday(nowMs: number): number {
  const now = new Date(nowMs)
  const ahead = (FRIDAY - now.getUTCDay() + 7) % 7
  const candidate = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + ahead, EXPIRY_HOUR_UTC)
  return candidate > nowMs ? candidate : candidate + WEEK_MS
}

export interface OptionExpiry {
  expiryMs: number
  /** The quarterly future whose mark is the forward; null for weeklies (synthetic forward). */
  futureExpiryMs: number | null
}

/** The next monthly options expiry strictly after `nowMs` that is not a quarterly one: the Friday before
 * the last Friday of a month outside Mar/Jun/Sep/Dec. */
export function nextMonthlyExpiry(nowMs: number): number {
  assertTime(nowMs, 'nowMs')
  const now = new Date(nowMs)
  for (let i = 0; ; i++) {
    const month = (now.getUTCMonth() + i) % 12
    const year = now.getUTCFullYear() + Math.floor((now.getUTCMonth() + i) / 12)
    const expiry = lastFridayOfMonth(year, month) - WEEK_MS
    if (expiry > nowMs && !(QUARTER_MONTHS as readonly number[]).includes(month)) return expiry
  }
}

/**
 * Option expiries listed at `nowMs`, ascending, always five: the options on the next two quarterly
 * futures whose options have not yet expired, the next monthly, then weekly Fridays strictly after
 * `nowMs` (skipping those already listed) until there are five. Between a quarterly options expiry and
 * its futures expiry the front future has no options left, so three weeklies are listed. Only the
 * quarterlies have a matching future; a monthly or weekly, even on a futures expiry day, has none
 * (futureExpiryMs null: the synthetic forward).
 */
export function optionExpiries(nowMs: number): OptionExpiry[] {
  assertTime(nowMs, 'nowMs')
  const listed: OptionExpiry[] = nextQuarterlyExpiries(nowMs, 2)
    .map((futureExpiryMs) => ({ expiryMs: optionExpiryForFuture(futureExpiryMs), futureExpiryMs }))
    .filter((e) => e.expiryMs > nowMs)
  listed.push({ expiryMs: nextMonthlyExpiry(nowMs), futureExpiryMs: null })
  const taken = new Set(listed.map((e) => e.expiryMs))
  for (let friday = nextFriday(nowMs); listed.length < OPTION_EXPIRY_COUNT; friday += WEEK_MS) {
    if (!taken.has(friday)) listed.push({ expiryMs: friday, futureExpiryMs: null })
  }
  return listed.sort((a, b) => a.expiryMs - b.expiryMs)
}

/** "YYYY-MM-DD" in UTC, as used in market ids. */
export function isoDate(ms: number): string {
  assertTime(ms, 'ms')
  return new Date(ms).toISOString().slice(0, 10)
}
