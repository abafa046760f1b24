// Engine ids: ULID-shaped, deterministic, sortable by time then counter.
import { encodeTime } from 'ulid'
import { describe, expect, it } from 'vitest'
import { engineId, isUlid } from '../../src/domain/ids.js'
import { mulberry32 } from '../../src/domain/prng.js'

const ENCODING = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'

/** The definition, digit by digit. */
function reference(nowMs: number, counter: number): string {
  let tail = ''
  let n = counter
  for (let i = 0; i < 16; i++) {
    tail = ENCODING[n % 32] + tail
    n = Math.floor(n / 32)
  }
  return encodeTime(nowMs, 10) + tail
}

describe('engineId', () => {
  it('is the time in 10 base32 digits and the counter in 16, whatever came before', () => {
    const rand = mulberry32(7)
    const t0 = Date.UTC(2026, 10, 21)
    const cases: Array<[number, number]> = [[t0, 0], [t0, 1], [t0, 1023], [t0, 1024], [t0, 2 ** 20 - 1], [t0, 2 ** 20], [t0 + 1, 2 ** 20], [t0, Number.MAX_SAFE_INTEGER]]
    for (let i = 0; i < 5_000; i++) {
      // Runs of one time and neighbouring counters, as trades make them, then jumps.
      const ms = t0 + Math.floor(rand() * 4)
      const counter = rand() < 0.5 ? 2 ** 20 - 2 + Math.floor(rand() * 4) : Math.floor(rand() * Number.MAX_SAFE_INTEGER)
      cases.push([ms, counter])
    }
    for (const [ms, counter] of cases) {
      const id = engineId(ms, counter)
      expect(id).toBe(reference(ms, counter))
      expect(isUlid(id)).toBe(true)
    }
  })

  it('sorts by counter within a millisecond', () => {
    const t = Date.UTC(2026, 10, 21)
    const ids = [0, 1, 1023, 1024, 2 ** 20 - 1, 2 ** 20, 2 ** 40].map((c) => engineId(t, c))
    expect([...ids].sort()).toEqual(ids)
  })
})
