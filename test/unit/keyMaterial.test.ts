import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  hashSecret, isKeyId, isKeySecret, newKeyId, newKeySecret, newNonce, randomBase62, sameDigest,
} from '../../src/auth/keyMaterial.js'
import { KEY_CACHE_MS } from '../../src/auth/apiKeyAuth.js'
import { REVOKED_MARKER_TTL_MS } from '../../src/auth/revocationMarkers.js'

describe('API key material', () => {
  it('makes ids svc_kid_ + 16 base62 and secrets svc_sk_ + 43 base62 (256 bits)', () => {
    for (let i = 0; i < 200; i++) {
      expect(newKeyId()).toMatch(/^svc_kid_[0-9A-Za-z]{16}$/)
      expect(newKeySecret()).toMatch(/^svc_sk_[0-9A-Za-z]{43}$/)
    }
    expect(62 ** 43).toBeGreaterThan(2 ** 256)
    expect(newNonce()).toMatch(/^[0-9A-Za-z]{22}$/)
  })

  it('never repeats', () => {
    const seen = new Set(Array.from({ length: 10_000 }, newKeySecret))
    expect(seen.size).toBe(10_000)
  })

  it.each([
    ['svc_sk_' + 'a'.repeat(43), true, false],
    ['svc_sk_' + 'a'.repeat(42), false, false],
    ['svc_sk_' + 'a'.repeat(44), false, false],
    ['svc_sk_' + '-'.repeat(43), false, false],
    ['svc_kid_' + 'Z9'.repeat(8), false, true],
    ['svc_kid_' + 'Z9'.repeat(8) + '\n', false, false],
    ['SVC_SK_' + 'a'.repeat(43), false, false],
  ])('checks the format of %j', (s, secret, id) => {
    expect([isKeySecret(s), isKeyId(s)]).toEqual([secret, id])
  })

  it('draws every base62 character equally often: bytes 248..255 are rejected, not folded', () => {
    // A generator cycling through every byte value: an unbiased mapping yields each character 4 times
    // per cycle; `b % 62` without rejection would give characters 0..7 five times.
    let next = 0
    const cycle = (n: number) => Buffer.from(Array.from({ length: n }, () => next++ % 256))
    const out = randomBase62(248 * 10, cycle)
    const counts = new Map<string, number>()
    for (const c of out) counts.set(c, (counts.get(c) ?? 0) + 1)
    expect(counts.size).toBe(62)
    expect(new Set(counts.values())).toEqual(new Set([40]))
  })

  it('stores a secret as its SHA-256 hex and compares digests in constant time', () => {
    const secret = newKeySecret()
    const hash = hashSecret(secret)
    expect(hash).toBe(createHash('sha256').update(secret).digest('hex'))
    expect(sameDigest(hash, hashSecret(secret))).toBe(true)
    expect(sameDigest(hash, hashSecret(newKeySecret()))).toBe(false)
    expect(sameDigest(hash, hash.slice(0, 62))).toBe(false)
    expect(sameDigest('', '')).toBe(false)
  })

  it('never caches a key longer than its revocation marker lives, so revocation cannot be missed', () => {
    expect(KEY_CACHE_MS * 10).toBeLessThanOrEqual(REVOKED_MARKER_TTL_MS)
  })
})
