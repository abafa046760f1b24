// What a REST route is: method, path, who may call it, the GraphQL operation it runs, how the request
// maps to that operation's variables, and how the result maps to the documented response shape.
import type { AuthLevel } from '../auth/principal.js'
import type { ErrorCode } from '../domain/errors.js'

export type { AuthLevel }

export interface RestRequest {
  params: Record<string, string>
  query: Record<string, unknown>
  body: unknown
}

/**
 * A path parameter names a resource: a value that cannot name one (a control character, which
 * PostgreSQL also refuses in text as NUL; not a ULID where the ids are ULIDs) is answered with the
 * route's not-found code before anything is looked up.
 */
export interface PathParam {
  notFound: ErrorCode
  ulid?: boolean
}

export interface RestRoute {
  method: 'GET' | 'POST' | 'DELETE'
  /** Fastify path syntax, e.g. `/perps/orderbook/:marketId`. */
  path: string
  /** Checked before the operation runs (src/auth/httpAuth.ts); the GraphQL fields check it again. */
  auth: AuthLevel
  /** Every `:name` of the path, declared (compileRoutes refuses a route that leaves one out). */
  params?: Readonly<Record<string, PathParam>>
  /** Counted against the caller's order-path rate limit, after the auth check. */
  orderRateLimited?: boolean
  /** A GraphQL document with exactly one operation. */
  operation: string
  /** Builds the operation's variables; throws a DomainError for a malformed request. */
  variables?: (req: RestRequest) => Record<string, unknown>
  /** Turns the operation's data into the documented body. */
  shape: (data: Record<string, any>, req: RestRequest) => unknown
  /** Response headers derived from the data (e.g. X-Next-Cursor of a paged list). */
  headers?: (data: Record<string, any>) => Record<string, string>
  status?: number
}
