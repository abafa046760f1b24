import { describe, expect, it } from 'vitest'
import { DomainError, errorBody, ERRORS } from '../../src/domain/errors.js'

describe('error table', () => {
  it.each([
    ['MISSING_CREDENTIAL', 'AuthError', 401], ['INVALID_TOKEN', 'AuthError', 401], ['KEY_REVOKED', 'AuthError', 401],
    ['NONCE_MISMATCH', 'AuthError', 400], ['INVALID_SIGNATURE', 'AuthError', 401], ['IP_NOT_ALLOWED', 'AuthError', 403],
    ['SCOPE_INSUFFICIENT', 'AuthError', 403], ['INVALID_MARKET_ID', 'OrderError', 400], ['INVALID_QUANTITY', 'OrderError', 400],
    ['INVALID_PRICE', 'OrderError', 400], ['INVALID_TIME_IN_FORCE', 'OrderError', 400], ['POST_ONLY_WOULD_CROSS', 'OrderError', 422],
    ['REDUCE_ONLY_VIOLATION', 'OrderError', 422], ['MARKET_HALTED', 'OrderError', 409], ['DUPLICATE_CLIENT_ORDER_ID', 'OrderError', 409],
    ['INSUFFICIENT_MARGIN', 'MarginError', 422], ['MISSING_MARK_PRICE', 'MarginError', 422], ['STALE_MARK_PRICE', 'MarginError', 422],
    ['NO_RISK_ARRAY', 'MarginError', 422], ['ACCOUNT_NOT_FOUND', 'AccountError', 404], ['BALANCE_NOT_INITIALIZED', 'AccountError', 409],
    ['INSUFFICIENT_BALANCE', 'AccountError', 422], ['SAME_BUCKET', 'AccountError', 400], ['MARKET_NOT_FOUND', 'MarketError', 404],
    ['PRODUCT_NOT_FOUND', 'MarketError', 404], ['ORDER_RATE_LIMIT', 'RateLimitError', 429], ['INTERNAL_ERROR', 'InternalError', 500],
    ['UPSTREAM_DEGRADED', 'InternalError', 503],
  ] as const)('%s is %s with status %i, as the spec says', (code, family, status) => {
    expect(ERRORS[code]).toMatchObject({ family, status })
    const err = new DomainError(code, undefined, { a: 1 })
    expect([err.status, err.family]).toEqual([status, family])
    expect(errorBody(code, undefined, { a: 1 })).toEqual({ error: family, code, message: ERRORS[code].message, details: { a: 1 } })
  })

  it('always has a message so readers of the legacy {message} shape work', () => {
    for (const [code, e] of Object.entries(ERRORS)) expect(e.message.length, code).toBeGreaterThan(0)
    expect(errorBody('NOT_FOUND')).not.toHaveProperty('details')
  })
})
