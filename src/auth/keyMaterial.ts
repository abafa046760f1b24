// Owns the shape of API key ids and secrets and of SIWE nonces: unbiased base62 random strings, the
// format checks that let a malformed credential be refused before any lookup, and the one-way hash
// under which a secret is stored and found.
import { hash, randomBytes, timingSafeEqual } from 'node:crypto'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
// 248 = 4 × 62: bytes at or above it are dropped, so every character is equally likely (no modulo bias).
const UNBIASED_LIMIT = 248

export const KEY_ID_PREFIX = 'svc_kid_'
export const KEY_SECRET_PREFIX = 'svc_sk_'
/** 62^43 > 2^256: the secret carries 256 bits of entropy. */
export const KEY_SECRET_CHARS = 43
export const KEY_ID_CHARS = 16

const KEY_ID = new RegExp(`^${KEY_ID_PREFIX}[0-9A-Za-z]{${KEY_ID_CHARS}}$`)
const KEY_SECRET = new RegExp(`^${KEY_SECRET_PREFIX}[0-9A-Za-z]{${KEY_SECRET_CHARS}}$`)

/** `length` characters of base62 from the OS CSPRNG, each uniformly distributed. */
export function randomBase62(length: number, random: (n: number) => Buffer = randomBytes): string {
  let out = ''
  while (out.length < length) {
    // Ask for a little more than needed: about 3% of bytes are rejected.
    const bytes = random(Math.ceil((length - out.length) * 1.1) + 4)
    for (const b of bytes) {
      if (b >= UNBIASED_LIMIT) continue
      out += BASE62[b % 62]
      if (out.length === length) break
    }
  }
  return out
}

export const newKeyId = () => KEY_ID_PREFIX + randomBase62(KEY_ID_CHARS)
export const newKeySecret = () => KEY_SECRET_PREFIX + randomBase62(KEY_SECRET_CHARS)
/** EIP-4361 asks for at least 8 alphanumerics; 22 base62 characters are 131 bits. */
export const newNonce = () => randomBase62(22)

export const isKeyId = (s: string) => KEY_ID.test(s)
export const isKeySecret = (s: string) => KEY_SECRET.test(s)

/**
 * SHA-256 hex: how a secret is stored and looked up. The secret has 256 bits, so no salt or KDF is needed.
 * One-shot `hash` (every keyed request pays it): 0.3 µs against 0.7 for a Hash object.
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex')
}

/** Constant-time equality of two hex digests of equal length. */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex')
  const y = Buffer.from(b, 'hex')
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y)
}
