import { describe, expect, it } from 'vitest'
import { NO_CREDENTIAL, permits, refusal, type AuthLevel, type Principal } from '../../src/auth/principal.js'
import { DomainError } from '../../src/domain/errors.js'

const principal = (scope: Principal['scope']): Principal => ({
  userId: 'u', address: '0x0', kind: scope === 'session' ? 'session' : 'apiKey', via: scope === 'session' ? 'jwt' : 'apiKey', scope, ip: '127.0.0.1', userAgent: null,
})

describe('access levels', () => {
  // Rows: credential; columns: public, read, trade, session (SPEC.md "Authentication").
  it.each([
    ['none', null, [true, false, false, false]],
    ['read key', principal('read'), [true, true, false, false]],
    ['trade key', principal('trade'), [true, true, true, false]],
    ['session', principal('session'), [true, true, true, true]],
  ] as const)('%s', (_name, p, expected) => {
    expect((['public', 'read', 'trade', 'session'] as AuthLevel[]).map((l) => permits(p, l))).toEqual(expected)
  })

  it('refuses with the credential’s own error first, then MISSING_CREDENTIAL, then SCOPE_INSUFFICIENT', () => {
    const revoked = new DomainError('KEY_REVOKED')
    expect(refusal({ principal: null, error: revoked }, 'read')).toBe(revoked)
    expect(refusal({ principal: null, error: revoked }, 'public')).toBeNull()
    expect(refusal(NO_CREDENTIAL, 'read')?.code).toBe('MISSING_CREDENTIAL')
    expect(refusal({ principal: principal('trade'), error: null }, 'session')?.code).toBe('SCOPE_INSUFFICIENT')
    expect(refusal({ principal: principal('read'), error: null }, 'trade')?.details).toEqual({ required: 'trade', scope: 'read' })
    expect(refusal({ principal: principal('session'), error: null }, 'session')).toBeNull()
  })
})
