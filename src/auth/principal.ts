// Owns who is calling: the one principal object REST, GraphQL and streams all see, and the rule that
// decides whether it may use something of a given auth level (SPEC.md "Authentication").
import { DomainError } from '../domain/errors.js'

/**
 * Who may use an endpoint or field: `public` anyone; `read` any valid credential; `trade` a trade key
 * or a session; `session` an interactive session only (key management).
 */
export type AuthLevel = 'public' | 'read' | 'trade' | 'session'

/** `session` is an interactive sign-in (cookie or JWT); read and trade are API key scopes. */
export type CredentialScope = 'read' | 'trade' | 'session'

export interface Principal {
  readonly userId: string
  /** EIP-55 wallet address of the user. */
  readonly address: string
  readonly kind: 'session' | 'apiKey'
  readonly via: 'cookie' | 'jwt' | 'apiKey'
  readonly scope: CredentialScope
  readonly keyId?: string
  readonly sessionId?: string
  /** When the credential ends by itself (a session JWT's `exp`, an API key's expiry; epoch ms); open streams end then too. */
  readonly expiresAt?: number
  readonly ip: string
  readonly userAgent: string | null
}

/** What the credential check of one request found: a principal, a reason to refuse one, or nothing. */
export type CredentialResult =
  | { readonly principal: Principal; readonly error: null }
  | { readonly principal: null; readonly error: DomainError | null }

export const NO_CREDENTIAL: CredentialResult = { principal: null, error: null }

// Levels form a ladder: each scope permits everything below it. A session may do all a trade key may.
const RANK: Record<AuthLevel | CredentialScope, number> = { public: 0, read: 1, trade: 2, session: 3 }

export function permits(principal: Principal | null, level: AuthLevel): boolean {
  if (level === 'public') return true
  return principal !== null && scopePermits(principal.scope, level)
}

/** Whether a credential of `scope` may use something of `level`. */
export const scopePermits = (scope: CredentialScope, level: AuthLevel): boolean => RANK[scope] >= RANK[level]

/**
 * Why a caller may not use something of `level`: the credential's own failure when one was presented
 * (revoked, expired, forged, wrong IP), MISSING_CREDENTIAL when none was, SCOPE_INSUFFICIENT when it is
 * valid but too low. Null when allowed. A bad credential matters only where a credential is needed.
 */
export function refusal(result: CredentialResult, level: AuthLevel): DomainError | null {
  if (permits(result.principal, level)) return null
  if (result.error) return result.error
  if (!result.principal) return new DomainError('MISSING_CREDENTIAL')
  return new DomainError(
    'SCOPE_INSUFFICIENT',
    level === 'session'
      ? 'This endpoint needs an interactive session (cookie or JWT); API keys cannot manage keys'
      : `This endpoint needs scope ${level}; the credential has ${result.principal.scope}`,
    { required: level, scope: result.principal.scope },
  )
}
