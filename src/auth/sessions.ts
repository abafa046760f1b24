// Owns interactive sessions. A session is a record in Redis (its id is `sid`) and an HS256 JWT naming
// it; the same JWT travels as the `session` cookie or as `Authorization: Bearer`. A JWT is good only
// while its record exists, so logout (deleting the record) ends cookie and Bearer use at once on every
// node, and expiry is enforced twice: by the JWT's `exp` and by the record's TTL. Logout is also
// announced on the auth channel, so every node closes the private streams the session opened.
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose'
import type { Redis } from 'ioredis'
import type { RedisKeys } from '../bus/keys.js'
import { systemClock, type Clock } from '../domain/clock.js'
import { DomainError } from '../domain/errors.js'
import { newId } from '../domain/ids.js'
import type { AuthEvents } from './authEvents.js'

export interface SessionUser {
  userId: string
  address: string
}

/** A live session as a JWT names it; `expiresAt` (epoch ms) is the JWT's `exp`. */
export interface VerifiedSession extends SessionUser {
  sessionId: string
  expiresAt: number
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
    private readonly events: AuthEvents,
    secret: string,
    readonly ttlMs: number,
    private readonly clock: Clock = systemClock,
  ) {
    this.key = crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])
  }

  async issue(user: SessionUser, nowMs: number = this.clock()): Promise<IssuedSession> {
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
  async verify(token: string): Promise<VerifiedSession> {
    let sub: string | undefined
    let sid: unknown
    let exp: number | undefined
    try {
      const { payload } = await jwtVerify(token, await this.key, { algorithms: [ALGORITHM], issuer: ISSUER, currentDate: new Date(this.clock()) })
      sub = payload.sub
      sid = payload['sid']
      exp = payload.exp
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw new DomainError('INVALID_TOKEN', 'Session has expired; sign in again')
      throw new DomainError('INVALID_TOKEN', 'Session token is invalid')
    }
    if (typeof sid !== 'string' || typeof sub !== 'string' || exp === undefined) throw new DomainError('INVALID_TOKEN', 'Session token is invalid')
    const raw = await this.redis.get(this.keys.session(sid))
    const record = raw ? (JSON.parse(raw) as SessionRecord) : null
    if (!record || record.userId !== sub) throw new DomainError('INVALID_TOKEN', 'Session has ended; sign in again')
    return { userId: record.userId, address: record.address, sessionId: sid, expiresAt: exp * 1000 }
  }

  /** Whether a session's record still exists (not logged out, not expired). */
  async isLive(sessionId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.session(sessionId))) === 1
  }

  /**
   * Ends a session everywhere; true when it was live. The record goes first, so a stream opening while
   * the announcement is in flight finds it gone (streams.ts); announced even when it was already gone,
   * in case the call that deleted it failed before announcing.
   */
  async end(sessionId: string): Promise<boolean> {
    const live = (await this.redis.del(this.keys.session(sessionId))) === 1
    await this.events.publish({ type: 'session-ended', sessionId })
    return live
  }
}
