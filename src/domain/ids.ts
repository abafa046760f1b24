// Identifiers. Users and orders get ULIDs drawn where a request enters (API nodes); the engine never
// draws randomness, so ids it creates (trades, fills) are ULID-shaped from its clock and a counter:
// sortable like ULIDs and identical on every replay.
import { encodeTime, isValid, monotonicFactory } from 'ulid'

// Crockford base32, the ULID alphabet.
const ENCODING = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'

const monotonic = monotonicFactory()

/** A fresh ULID, monotonic within this process. */
export function newId(nowMs: number = Date.now()): string {
  return monotonic(nowMs)
}

export function isUlid(s: unknown): s is string {
  return typeof s === 'string' && s.length === 26 && isValid(s)
}

/** Deterministic ULID-shaped id: 10 chars of time, 16 chars of base32 counter. */
export function engineId(nowMs: number, counter: number): string {
  let tail = ''
  let n = counter
  for (let i = 0; i < 16; i++) {
    tail = ENCODING[n % 32] + tail
    n = Math.floor(n / 32)
  }
  return encodeTime(nowMs, 10) + tail
}
