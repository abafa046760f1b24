// Owns reading a request's credential (SPEC.md "Authentication"): `Authorization: Bearer <value>`,
// where a value starting `svc_sk_` is an API key and anything else a session JWT, or else the
// `session` cookie. The header wins when both are sent: it is the caller's explicit choice. The result
// is a principal, the refusal the credential earned, or nothing; what is required is the caller's call.
import { DomainError } from '../domain/errors.js'
import type { ApiKeyAuth, RevocationCheck } from './apiKeyAuth.js'
import { normalizeIp } from './ipAllowlist.js'
import { KEY_SECRET_PREFIX } from './keyMaterial.js'
import { NO_CREDENTIAL, type CredentialResult, type Principal } from './principal.js'
import type { Sessions } from './sessions.js'

export interface PresentedCredential {
  authorization: string | undefined
  sessionCookie: string | undefined
  ip: string
  userAgent: string | null
  /** How a cached API key's revocation marker is read; by default alone (apiKeyAuth.ts). */
  isRevoked?: RevocationCheck
}

const BEARER = /^Bearer +(\S+) *$/i

export class CredentialResolver {
  constructor(
    private readonly sessions: Sessions,
    private readonly apiKeys: ApiKeyAuth,
  ) {}

  async resolve(c: PresentedCredential): Promise<CredentialResult> {
    try {
      const principal = await this.principal(c)
      return principal ? { principal, error: null } : NO_CREDENTIAL
    } catch (err) {
      if (err instanceof DomainError) return { principal: null, error: err }
      throw err
    }
  }

  private async principal(c: PresentedCredential): Promise<Principal | null> {
    const ip = normalizeIp(c.ip)
    let token: string
    let via: 'jwt' | 'cookie'
    if (c.authorization !== undefined) {
      const m = BEARER.exec(c.authorization)
      if (!m) throw new DomainError('INVALID_TOKEN', 'Authorization must be `Bearer <token>`')
      token = m[1]!
      if (token.startsWith(KEY_SECRET_PREFIX)) return this.apiKeys.authenticate(token, ip, c.userAgent, c.isRevoked)
      via = 'jwt'
    } else if (c.sessionCookie) {
      token = c.sessionCookie
      via = 'cookie'
    } else {
      return null
    }
    const s = await this.sessions.verify(token)
    return {
      userId: s.userId, address: s.address, kind: 'session', via, scope: 'session', sessionId: s.sessionId, expiresAt: s.expiresAt,
      ip, userAgent: c.userAgent,
    }
  }
}
