// The clock a test exchange runs on. It starts at TEST_CLOCK_START (ISO 8601; a fixed instant by
// default) and runs at real speed from there, so no result depends on the day the suite runs, and the
// suite can be run at any instant that matters (`TEST_CLOCK_START=2026-12-18T07:59:00Z npm test`: a
// minute before an expiry). A test moves time with advance(); everything that reads "now" (the test,
// the exchange's command timestamps, listing, sessions, SIWE) reads this clock.
import type { Clock } from '../../src/domain/clock.js'

/** An ordinary Wednesday, away from every expiry and roll window. */
export const DEFAULT_TEST_START = '2026-11-25T12:00:00.000Z'

export class TestClock {
  private offsetMs: number
  private frozenAt: number | null = null

  constructor(startMs: number) {
    this.offsetMs = startMs - Date.now()
  }

  /** Unix ms on this clock; pass it where a Clock is expected. */
  readonly now: Clock = () => this.frozenAt ?? Date.now() + this.offsetMs

  /** Jumps the clock forward (or back, with a negative `ms`). */
  advance(ms: number): void {
    if (this.frozenAt !== null) this.frozenAt += ms
    else this.offsetMs += ms
  }

  /** Jumps the clock to `ms`. */
  set(ms: number): void {
    if (this.frozenAt !== null) this.frozenAt = ms
    else this.offsetMs = ms - Date.now()
  }

  /**
   * Stops the clock until resume(): what a test sets up then happens at one instant however slowly the
   * machine runs, and only advance() moves time on (timers the server armed still fire in real time,
   * and then read this clock).
   */
  freeze(): void {
    this.frozenAt = this.now()
  }

  resume(): void {
    if (this.frozenAt === null) return
    this.offsetMs = this.frozenAt - Date.now()
    this.frozenAt = null
  }
}

function startFromEnv(): number {
  const given = process.env.TEST_CLOCK_START || DEFAULT_TEST_START
  const ms = Date.parse(given)
  if (Number.isNaN(ms)) throw new Error(`TEST_CLOCK_START is not an ISO 8601 instant: ${given}`)
  return ms
}

/** The clock of this test file: every exchange it starts runs on it unless given another. */
export const testClock = new TestClock(startFromEnv())
