// What a REST route is: method, path, who may call it, the zod schemas of its path, query and body, the
// GraphQL operation it runs, how the checked request maps to that operation's variables, how the
// result maps to the documented response (and its schema), and the words the OpenAPI document shows.
import type { z } from 'zod'
import type { AuthLevel } from '../auth/principal.js'
import type { ErrorCode } from '../domain/errors.js'

export type { AuthLevel }

/** A request as Fastify hands it over, before any check. */
export interface RestRequest {
  params: Record<string, string>
  query: Record<string, unknown>
  body: unknown
}

/** The request after its schemas: each part as its schema's output. */
export interface RestInput<P = any, Q = any, B = any> {
  params: P
  query: Q
  body: B
}

/** The sections of the OpenAPI document, in the order it shows them. */
export const API_TAGS = {
  'Market data': 'Public market data: no credential needed.',
  'Linear trading': 'Spot, perpetuals and quarterly futures under `/perps`; the market id decides the product.',
  'Options trading': 'European options on BTC at the root paths; prices in units of the underlying, quantities in contracts. A linear market id there is `INVALID_MARKET_ID`.',
  'Market-maker protection': 'Options market-maker protection (MMP) per underlying: protected orders are cancelled together when their fills pass a limit.',
  Wallet: 'Buckets, transfers, the test-network faucet, deposits and withdrawals on chain, portfolio snapshots.',
  Identity: 'Sign-in with Ethereum (SIWE) sessions and API keys. Keys are managed with a session only.',
  Streams: 'Server-sent events and WebSockets; every message carries the common envelope (`eventId`, `eventType`, `eventSeq`, `engineTs`, `sourceTs`, `correlationId`, `causationId`, `payload`).',
  GraphQL: 'The GraphQL API every REST route runs on (`schema.graphql`): queries and mutations over HTTP, subscriptions over graphql-ws and SSE.',
  Operator: 'Operator routes under `/admin`: `Authorization: Bearer <ADMIN_TOKEN>`; absent when no token is configured.',
  Service: 'Health, readiness and this documentation.',
} as const

export type ApiTag = keyof typeof API_TAGS

/** What the OpenAPI document says of an operation, beside what it derives from the schemas. */
export interface RouteDoc {
  /** One line, from SPEC.md where it has the route (the document is public: it names no file outside the repository). */
  summary: string
  /** SPEC.md's rules for the route, in Markdown. */
  description?: string
  tag: ApiTag
  /** Codes the operation itself fails with, beyond its credential, rate limit and request schemas. */
  errors?: readonly ErrorCode[]
}

type ParamsSchema = z.ZodObject<Record<string, z.ZodType<string, string>>>
type Out<S> = S extends z.ZodType ? z.output<S> : undefined

interface RouteBase extends RouteDoc {
  method: 'GET' | 'POST' | 'DELETE'
  /** Fastify path syntax, e.g. `/perps/orderbook/:marketId`. */
  path: string
  /** Checked before the operation runs (src/auth/httpAuth.ts); the GraphQL fields check it again. */
  auth: AuthLevel
  /** Counted against the caller's order-path rate limit, after the auth check. */
  orderRateLimited?: boolean
  /** A GraphQL document with exactly one operation. */
  operation: string
  /** The documented response body (200, or `status`). */
  response: z.ZodType
  /** Response headers derived from the data (e.g. X-Next-Cursor of a paged list). */
  headers?: (data: Record<string, any>) => Record<string, string>
  status?: number
}

export interface TypedRoute<PS extends ParamsSchema | undefined, QS extends z.ZodType | undefined, BS extends z.ZodType | undefined> extends RouteBase {
  /** Every `:name` of the path (compileRoutes refuses a route that leaves one out); a failure is the field's not-found code. */
  params?: PS
  query?: QS
  /** Absent: the route reads no body. An optional schema (`.optional()`) takes no body, or `null`, as absent. */
  body?: BS
  /** Builds the operation's variables from the checked request. */
  variables?: (input: RestInput<Out<PS>, Out<QS>, Out<BS>>) => Record<string, unknown>
  /** Turns the operation's data into the documented body. */
  shape: (data: Record<string, any>, input: RestInput<Out<PS>, Out<QS>, Out<BS>>) => unknown
}

export interface RestRoute extends RouteBase {
  params?: ParamsSchema
  query?: z.ZodType
  body?: z.ZodType
  variables?: (input: RestInput) => Record<string, unknown>
  shape: (data: Record<string, any>, input: RestInput) => unknown
}

/** A route with its parts typed from its schemas. */
export function defineRoute<PS extends ParamsSchema | undefined = undefined, QS extends z.ZodType | undefined = undefined, BS extends z.ZodType | undefined = undefined>(
  route: TypedRoute<PS, QS, BS>,
): RestRoute {
  return route as unknown as RestRoute
}
