// Operator credentials: a fixed token from the configuration, sent as `Authorization: Bearer <token>`
// (ADMIN_TOKEN for /admin, METRICS_TOKEN for /metrics). Compared as SHA-256 digests: equal length
// whatever was sent, and constant time.
import { createHash, timingSafeEqual } from 'node:crypto'
import { DomainError } from '../domain/errors.js'

const digest = (s: string) => createHash('sha256').update(s).digest()

/** A check of an Authorization header against `token`; throws MISSING_CREDENTIAL or INVALID_TOKEN (`refusal`). */
export function operatorTokenCheck(token: string, refusal: string): (authorization: string | undefined) => void {
  const expected = digest(token)
  return (header) => {
    if (!header) throw new DomainError('MISSING_CREDENTIAL')
    const m = /^Bearer (.+)$/.exec(header)
    if (!m || !timingSafeEqual(digest(m[1]!), expected)) throw new DomainError('INVALID_TOKEN', refusal)
  }
}
