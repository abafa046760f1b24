// Reading REST request fields with the spec's codes: a number where a decimal string belongs is
// INVALID_PRICE or INVALID_QUANTITY, not a generic schema failure, and lower-case enum strings become
// the GraphQL enum values the operation takes.
import { DomainError, type ErrorCode } from '../domain/errors.js'
import type { RestRequest } from './route.js'

export type Body = Record<string, unknown>

export function jsonBody(req: RestRequest, allowEmpty = false): Body {
  const b = req.body
  if ((b === undefined || b === null) && allowEmpty) return {}
  if (typeof b !== 'object' || b === null || Array.isArray(b)) throw new DomainError('INVALID_REQUEST', 'Request body must be a JSON object')
  return b as Body
}

/** Refuses fields the endpoint does not know: a typo such as `postonly` must not be silently dropped. */
export function onlyFields(b: Body, allowed: readonly string[]): Body {
  const unknown = Object.keys(b).filter((k) => !allowed.includes(k))
  if (unknown.length > 0) throw new DomainError('INVALID_REQUEST', `Unknown field(s): ${unknown.join(', ')}`, { unknown, allowed })
  return b
}

export function optString(b: Body, key: string, code: ErrorCode = 'INVALID_REQUEST'): string | undefined {
  const v = b[key]
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'string') throw new DomainError(code, `${key} must be a string`, { [key]: v })
  return v
}

/** The body's required `marketId`; missing or not a string is INVALID_MARKET_ID. */
export function marketIdField(b: Body): string {
  const marketId = optString(b, 'marketId', 'INVALID_MARKET_ID')
  if (!marketId) throw new DomainError('INVALID_MARKET_ID', 'marketId is required')
  return marketId
}

export function optBoolean(b: Body, key: string): boolean | undefined {
  const v = b[key]
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'boolean') throw new DomainError('INVALID_REQUEST', `${key} must be a boolean`, { [key]: v })
  return v
}

/** A lower-case enum string as its GraphQL (upper-case) value. */
export function optEnum(b: Body, key: string, allowed: readonly string[], code: ErrorCode = 'INVALID_REQUEST'): string | undefined {
  const v = b[key]
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'string' || !allowed.includes(v)) throw new DomainError(code, `${key} must be one of ${allowed.join(', ')}`, { [key]: v })
  return v.toUpperCase()
}

/** `limit` (1–200, default 100) and `cursor` query parameters of a paged list. */
export function paging(req: RestRequest): { first: number; after: string | null } {
  const limit = req.query['limit']
  let first = 100
  if (limit !== undefined) {
    if (typeof limit !== 'string' || !/^\d{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > 200) {
      throw new DomainError('INVALID_REQUEST', 'limit must be an integer from 1 to 200', { limit })
    }
    first = Number(limit)
  }
  const cursor = req.query['cursor']
  if (cursor !== undefined && typeof cursor !== 'string') throw new DomainError('INVALID_REQUEST', 'cursor must be given once')
  return { first, after: (cursor as string | undefined) ?? null }
}

export function queryString(req: RestRequest, key: string): string | undefined {
  const v = req.query[key]
  if (v === undefined || v === '') return undefined
  if (typeof v !== 'string') throw new DomainError('INVALID_REQUEST', `${key} must be given once`)
  return v
}

export function requiredQuery(req: RestRequest, key: string): string {
  const v = queryString(req, key)
  if (v === undefined) throw new DomainError('INVALID_REQUEST', `${key} is required`)
  return v
}
