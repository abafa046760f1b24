// Owns interactive sessions. A session is a record in Redis (its id is `sid`) and an HS256 JWT naming
// it; the same JWT travels as the `session` cookie or as `Authorization: Bearer`. A JWT is good only
// while its record exists, so logout (deleting the record) ends cookie and Bearer use at once on every
// node, and expiry is enforced twice: by the JWT's `exp` and by the record's TTL.
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose'
import type { Redis } from 'ioredis'
import type { RedisKeys } from '../bus/keys.js'
import { DomainError } from '../domain/errors.js'
import { newId } from '../domain/ids.js'

export interface SessionUser {
  userId: string
  address: string
}

export interface IssuedSession {
  token: string
  sessionId: string
  expiresAt: Date
}

interface SessionRecord extends SessionUser {
  createdAt: number
}

const ALGORITHM = 'HS256'
const ISSUER = 'exchange-api'

export class Sessions {
  // A WebCrypto key imported once: jose re-imports a raw secret on every call, which triples its cost.
  private readonly key: Promise<CryptoKey>

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    secret: string,
    readonly ttlMs: number,
  ) {
    this.key = crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])
  }

  async issue(user: SessionUser, nowMs: number = Date.now()): Promise<IssuedSession> {
    const sessionId = newId(nowMs)
    const expiresAt = new Date(nowMs + this.ttlMs)
    const record: SessionRecord = { ...user, createdAt: nowMs }
    await this.redis.set(this.keys.session(sessionId), JSON.stringify(record), 'PX', this.ttlMs)
    const token = await new SignJWT({ sid: sessionId, addr: user.address })
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setIssuer(ISSUER)
      .setSubject(user.userId)
      .setIssuedAt(Math.floor(nowMs / 1000))
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(await this.key)
    return { token, sessionId, expiresAt }
  }

  /** The live session a JWT names; INVALID_TOKEN when forged, malformed, expired or logged out. */
  async verify(token: string): Promise<SessionUser & { sessionId: string }> {
    let sub: string | undefined
    let sid: unknown
    try {
      const { payload } = await jwtVerify(token, await this.key, { algorithms: [ALGORITHM], issuer: ISSUER })
      sub = payload.sub
      sid = payload['sid']
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw new DomainError('INVALID_TOKEN', 'Session has expired; sign in again')
      throw new DomainError('INVALID_TOKEN', 'Session token is invalid')
    }
    if (typeof sid !== 'string' || typeof sub !== 'string') throw new DomainError('INVALID_TOKEN', 'Session token is invalid')
    const raw = await this.redis.get(this.keys.session(sid))
    const record = raw ? (JSON.parse(raw) as SessionRecord) : null
    if (!record || record.userId !== sub) throw new DomainError('INVALID_TOKEN', 'Session has ended; sign in again')
    return { userId: record.userId, address: record.address, sessionId: sid }
  }

  /** Ends a session everywhere; true when it was live. */
  async end(sessionId: string): Promise<boolean> {
    return (await this.redis.del(this.keys.session(sessionId))) === 1
  }
}
