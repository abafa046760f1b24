// Every error the API can return, in one table: family, HTTP status and default message per code.
// REST writes them as {error, code, message, details?}; GraphQL puts code, status and details in
// errors[].extensions. Codes are a public contract (SPEC.md "Errors"); never rename one.

export const ERRORS = {
  // AuthError
  MISSING_CREDENTIAL: { family: 'AuthError', status: 401, message: 'No credential: send a session cookie or an Authorization header' },
  INVALID_TOKEN: { family: 'AuthError', status: 401, message: 'Credential is invalid or expired' },
  KEY_REVOKED: { family: 'AuthError', status: 401, message: 'API key has been revoked' },
  KEY_ALREADY_REVOKED: { family: 'AuthError', status: 409, message: 'API key is already revoked' },
  NONCE_MISMATCH: { family: 'AuthError', status: 400, message: 'Sign-in nonce was not issued by this service or was already used' },
  INVALID_SIGNATURE: { family: 'AuthError', status: 401, message: 'Sign-in signature check failed' },
  IP_NOT_ALLOWED: { family: 'AuthError', status: 403, message: 'Caller IP is not in the key allowlist' },
  SCOPE_INSUFFICIENT: { family: 'AuthError', status: 403, message: 'Credential scope does not permit this endpoint' },
  // OrderError
  INVALID_MARKET_ID: { family: 'OrderError', status: 400, message: 'Unknown market or malformed market id' },
  INVALID_QUANTITY: { family: 'OrderError', status: 400, message: 'Quantity must be positive, at least the minimum and a multiple of the step size' },
  INVALID_PRICE: { family: 'OrderError', status: 400, message: 'Price must be a multiple of the tick size inside the price band' },
  INVALID_TIME_IN_FORCE: { family: 'OrderError', status: 400, message: 'timeInForce must be gtc, ioc or fok' },
  POST_ONLY_WOULD_CROSS: { family: 'OrderError', status: 422, message: 'Post-only order would cross the book' },
  REDUCE_ONLY_VIOLATION: { family: 'OrderError', status: 422, message: 'Reduce-only order would increase the position' },
  MARKET_HALTED: { family: 'OrderError', status: 409, message: 'Market is not active' },
  DUPLICATE_CLIENT_ORDER_ID: { family: 'OrderError', status: 409, message: 'clientOrderId already used' },
  ORDER_NOT_FOUND: { family: 'OrderError', status: 404, message: 'Order not found' },
  ORDER_NOT_CANCELABLE: { family: 'OrderError', status: 409, message: 'Order is already filled or canceled' },
  // Not in SPEC.md: market-maker protection tripped; protected orders are refused until the freeze ends or a reset.
  MMP_FROZEN: { family: 'OrderError', status: 422, message: 'Market-maker protection is frozen on this underlying: reset it or wait for the freeze to end' },
  // MarginError
  INSUFFICIENT_MARGIN: { family: 'MarginError', status: 422, message: 'Initial margin too low' },
  MISSING_MARK_PRICE: { family: 'MarginError', status: 422, message: 'No mark price for the market' },
  STALE_MARK_PRICE: { family: 'MarginError', status: 422, message: 'Mark price is older than the staleness threshold' },
  NO_RISK_ARRAY: { family: 'MarginError', status: 422, message: 'No risk array for the instrument' },
  // AccountError
  ACCOUNT_NOT_FOUND: { family: 'AccountError', status: 404, message: 'Account not initialized; deposit first' },
  BALANCE_NOT_INITIALIZED: { family: 'AccountError', status: 409, message: 'Balance row missing' },
  INSUFFICIENT_BALANCE: { family: 'AccountError', status: 422, message: 'Bucket lacks funds' },
  SAME_BUCKET: { family: 'AccountError', status: 400, message: 'Transfer source and destination are the same bucket' },
  WITHDRAWAL_NOT_ALLOWED: { family: 'AccountError', status: 422, message: 'Withdrawal not allowed' },
  FAUCET_LIMIT: { family: 'AccountError', status: 429, message: 'Faucet daily cap reached' },
  // MarketError
  MARKET_NOT_FOUND: { family: 'MarketError', status: 404, message: 'Unknown marketId' },
  PRODUCT_NOT_FOUND: { family: 'MarketError', status: 404, message: 'Product metadata not found' },
  INVALID_TIME_RANGE: { family: 'MarketError', status: 400, message: 'Time range is invalid or longer than 90 days' },
  // RateLimitError
  ORDER_RATE_LIMIT: { family: 'RateLimitError', status: 429, message: 'Order rate limit exceeded' },
  CONNECTION_LIMIT: { family: 'RateLimitError', status: 429, message: 'Too many open stream connections from this address' },
  SLOW_CONSUMER: { family: 'RateLimitError', status: 429, message: 'Stream consumer too slow: its buffer overflowed; reconnect to resync' },
  // RequestError
  INVALID_REQUEST: { family: 'RequestError', status: 400, message: 'Malformed request' },
  NOT_FOUND: { family: 'RequestError', status: 404, message: 'No such route' },
  PAYLOAD_TOO_LARGE: { family: 'RequestError', status: 413, message: 'Request body too large' },
  // InternalError
  INTERNAL_ERROR: { family: 'InternalError', status: 500, message: 'Internal error; quote the correlation id when reporting it' },
  UPSTREAM_DEGRADED: { family: 'InternalError', status: 503, message: 'An upstream dependency is unavailable; retry shortly' },
  // Not in SPEC.md: a 503 says "retry", which would trade twice if the command was or will be applied.
  // `details.commandId` (and `details.orderIds` for placements) name what to look up before retrying.
  OUTCOME_UNKNOWN: { family: 'InternalError', status: 504, message: 'The engine did not answer in time and the command may take effect; look it up before retrying' },
} as const satisfies Record<string, { family: string; status: number; message: string }>

export type ErrorCode = keyof typeof ERRORS

export type ErrorDetails = Record<string, unknown>

/** A rejection the client caused or may act on. Anything else thrown is an internal error. */
export class DomainError extends Error {
  readonly code: ErrorCode
  readonly details: ErrorDetails | undefined

  constructor(code: ErrorCode, message?: string, details?: ErrorDetails) {
    super(message ?? ERRORS[code].message)
    this.name = 'DomainError'
    this.code = code
    this.details = details
  }

  get status(): number {
    return ERRORS[this.code].status
  }

  get family(): string {
    return ERRORS[this.code].family
  }
}

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERRORS, code)
}

/** The wire body of every non-2xx REST response. */
export interface ErrorBody {
  error: string
  code: ErrorCode
  message: string
  details?: ErrorDetails
}

export function errorBody(code: ErrorCode, message?: string, details?: ErrorDetails): ErrorBody {
  const body: ErrorBody = { error: ERRORS[code].family, code, message: message ?? ERRORS[code].message }
  if (details !== undefined) body.details = details
  return body
}
