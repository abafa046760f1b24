// Builds the OpenAPI 3.1 document served at /openapi.json from the routes themselves: the REST table,
// the operator routes, the streams and the service routes, each with the zod schemas that check its
// requests (request schemas in their input form, responses in their output form, both converted by
// zod's own z.toJSONSchema to JSON Schema 2020-12, OpenAPI 3.1's dialect). Nothing here is written by
// hand but words: a route, a field or an error code added to the code is in the document.
import { z } from 'zod'
import type { AuthLevel } from '../auth/principal.js'
import { SESSION_COOKIE } from '../auth/sessionCookie.js'
import { ERRORS, type ErrorCode } from '../domain/errors.js'
import { codesIn, requestComponents } from './requestSchema.js'
import { responseComponents } from './responseSchemas.js'
import { API_TAGS, type RestRoute, type RouteDoc } from './route.js'

type JsonSchema = Record<string, unknown>

/** A success response of a documented route. */
export interface DocumentedResponse {
  status: number
  description: string
  schema?: z.ZodType
  /** Default `application/json`. */
  mediaType?: string
}

/** Any route the document describes: a REST route, an operator route, a stream, a service route. */
export interface DocumentedRoute extends RouteDoc {
  method: 'GET' | 'POST' | 'DELETE'
  /** Fastify path syntax. */
  path: string
  /** `admin`: the operator token; `metrics`: the metrics token. */
  auth: AuthLevel | 'admin' | 'metrics'
  orderRateLimited?: boolean
  params?: z.ZodObject<Record<string, z.ZodType<string, string>>>
  query?: z.ZodType
  body?: z.ZodType
  /** A body the route reads without a schema of its own (GraphQL's). */
  bodyDoc?: { description: string; schema: JsonSchema; required?: boolean }
  responses: readonly DocumentedResponse[]
}

/** A REST table route as the document sees it. */
export function documentRestRoute(r: RestRoute): DocumentedRoute {
  return { ...r, responses: [{ status: r.status ?? 200, description: r.summary, schema: r.response }] }
}

const AUTH_ERRORS: Record<DocumentedRoute['auth'], readonly ErrorCode[]> = {
  public: [],
  read: ['MISSING_CREDENTIAL', 'INVALID_TOKEN', 'KEY_REVOKED', 'IP_NOT_ALLOWED'],
  trade: ['MISSING_CREDENTIAL', 'INVALID_TOKEN', 'KEY_REVOKED', 'IP_NOT_ALLOWED', 'SCOPE_INSUFFICIENT'],
  session: ['MISSING_CREDENTIAL', 'INVALID_TOKEN', 'SCOPE_INSUFFICIENT'],
  admin: ['MISSING_CREDENTIAL', 'INVALID_TOKEN'],
  metrics: ['MISSING_CREDENTIAL', 'INVALID_TOKEN'],
}

const SECURITY: Record<DocumentedRoute['auth'], Array<Record<string, string[]>>> = {
  public: [],
  read: [{ apiKey: [] }, { sessionToken: [] }, { sessionCookie: [] }],
  trade: [{ apiKey: [] }, { sessionToken: [] }, { sessionCookie: [] }],
  session: [{ sessionToken: [] }, { sessionCookie: [] }],
  admin: [{ adminToken: [] }],
  metrics: [{ metricsToken: [] }],
}

const AUTH_NOTE: Record<DocumentedRoute['auth'], string> = {
  public: 'Public: no credential needed.',
  read: 'Needs any valid credential (an API key of scope `read` or `trade`, or a session).',
  trade: 'Needs an API key of scope `trade`, or a session.',
  session: 'Needs a session (cookie or session JWT): API keys cannot manage keys.',
  admin: 'Needs `Authorization: Bearer <ADMIN_TOKEN>`.',
  metrics: 'Needs `Authorization: Bearer <METRICS_TOKEN>`.',
}

/** `/orders/:id/cancel` → `/orders/{id}/cancel`. */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}')

/** `POST /orders/:id/cancel` → `postOrdersIdCancel`: unique per operation, stable for generated clients. */
function operationId(r: DocumentedRoute): string {
  const words = r.path.split(/[^A-Za-z0-9]+/).filter(Boolean)
  return r.method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')
}

/** A component schema without the keywords a whole-document schema carries. */
function bare(schema: JsonSchema): JsonSchema {
  const { $schema: _s, $id: _i, ...rest } = schema
  return rest
}

/** zod's optional fields (`.optional()`, `.default()`, `.nullish()`) may be left out. */
const isOptional = (s: z.ZodType) => s._zod.optin === 'optional'

function parameters(r: DocumentedRoute): JsonSchema[] {
  const out: JsonSchema[] = []
  const add = (where: 'path' | 'query', shape: Record<string, z.ZodType>) => {
    for (const [name, s] of Object.entries(shape)) {
      const { description, ...schema } = bare(z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as JsonSchema)
      out.push({ name, in: where, required: where === 'path' || !isOptional(s), ...(description ? { description } : {}), schema })
    }
  }
  if (r.params) add('path', r.params.shape)
  if (r.query) add('query', (r.query as z.ZodObject).shape)
  return out
}

/** Every code an operation can answer with, beside its success. */
function errorCodes(r: DocumentedRoute): ErrorCode[] {
  const codes = new Set<ErrorCode>(AUTH_ERRORS[r.auth])
  if (r.orderRateLimited) codes.add('ORDER_RATE_LIMIT')
  if (r.params) codesIn(r.params).forEach((c) => codes.add(c))
  for (const part of [r.query, r.body]) {
    if (!part) continue
    codes.add('INVALID_REQUEST')
    codesIn(part).forEach((c) => codes.add(c))
  }
  if (r.body || r.bodyDoc) codes.add('PAYLOAD_TOO_LARGE')
  r.errors?.forEach((c) => codes.add(c))
  codes.add('INTERNAL_ERROR')
  codes.add('UPSTREAM_DEGRADED')
  return [...codes]
}

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` })
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` })

function errorResponses(r: DocumentedRoute): Record<string, JsonSchema> {
  const byStatus = new Map<number, ErrorCode[]>()
  for (const code of errorCodes(r)) byStatus.set(ERRORS[code].status, [...(byStatus.get(ERRORS[code].status) ?? []), code])
  const out: Record<string, JsonSchema> = {}
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: codes.map((c) => `\`${c}\`: ${ERRORS[c].message}`).join('\n\n'),
      headers: {
        'X-Correlation-Id': headerRef('XCorrelationId'),
        ...(status === 429 && codes.includes('ORDER_RATE_LIMIT') ? { 'Retry-After': headerRef('RetryAfter') } : {}),
      },
      content: { 'application/json': { schema: { allOf: [ref('Error'), { properties: { code: { enum: codes } } }] } } },
    }
  }
  return out
}

export interface OpenApiOptions {
  title: string
  version: string
  description: string
}

/** The OpenAPI 3.1 document of `routes`. */
export function buildOpenApi(routes: readonly DocumentedRoute[], o: OpenApiOptions): JsonSchema {
  // Every request body and response schema becomes a component, named once: the ones that have a name
  // keep it, the others take their operation's. Requests are converted as input, responses as output.
  const requests = z.registry<{ id: string }>()
  const responses = z.registry<{ id: string }>()
  for (const [id, schema] of responseComponents._idmap) responses.add(schema, { id })
  const nameIn = (registry: z.core.$ZodRegistry<{ id: string }>, schema: z.ZodType, fallback: string): string => {
    const known = registry.get(schema)?.id ?? (registry === requests ? requestComponents : responseComponents).get(schema)?.id
    if (known) {
      if (!registry.has(schema)) registry.add(schema, { id: known })
      return known
    }
    registry.add(schema, { id: fallback })
    return fallback
  }

  const paths: Record<string, Record<string, JsonSchema>> = {}
  const ids = new Set<string>()
  for (const r of routes) {
    const id = operationId(r)
    if (ids.has(id)) throw new Error(`OpenAPI: two routes are ${id}`)
    ids.add(id)
    const Id = id[0]!.toUpperCase() + id.slice(1)
    const success: Record<string, JsonSchema> = {}
    for (const res of r.responses) {
      const headers: Record<string, unknown> = { 'X-Correlation-Id': headerRef('XCorrelationId') }
      if ((r.query as z.ZodObject | undefined)?.shape?.['cursor']) headers['X-Next-Cursor'] = headerRef('XNextCursor')
      if (r.orderRateLimited) Object.assign(headers, { 'X-RateLimit-Limit': headerRef('XRateLimitLimit'), 'X-RateLimit-Remaining': headerRef('XRateLimitRemaining'), 'X-RateLimit-Reset': headerRef('XRateLimitReset') })
      success[String(res.status)] = {
        description: res.description,
        ...(res.status === 101 ? {} : { headers }),
        ...(res.schema ? { content: { [res.mediaType ?? 'application/json']: { schema: ref(nameIn(responses, res.schema, `${Id}Response`)) } } } : {}),
      }
    }
    const params = parameters(r)
    const bodySchema = r.body ? ref(nameIn(requests, r.body, `${Id}Request`)) : undefined
    const operation: JsonSchema = {
      operationId: id,
      summary: r.summary,
      description: [r.description, AUTH_NOTE[r.auth], r.orderRateLimited ? 'Counts against the order-path rate limit.' : ''].filter(Boolean).join('\n\n'),
      tags: [r.tag],
      security: SECURITY[r.auth],
      ...(params.length ? { parameters: params } : {}),
      ...(bodySchema ? { requestBody: { required: !isOptional(r.body!), content: { 'application/json': { schema: bodySchema } } } } : {}),
      ...(r.bodyDoc ? { requestBody: { required: r.bodyDoc.required ?? true, description: r.bodyDoc.description, content: { 'application/json': { schema: r.bodyDoc.schema } } } } : {}),
      responses: { ...success, ...errorResponses(r) },
    }
    ;(paths[openApiPath(r.path)] ??= {})[r.method.toLowerCase()] = operation
  }

  const convert = (registry: z.core.$ZodRegistry<{ id: string }>, io: 'input' | 'output') => {
    const { schemas } = z.toJSONSchema(registry, { io, unrepresentable: 'any', uri: (id) => `#/components/schemas/${id}` })
    return Object.fromEntries(Object.entries(schemas).map(([k, v]) => [k, bare(v as JsonSchema)]))
  }
  const requestSchemas = convert(requests, 'input')
  const responseSchemas = convert(responses, 'output')
  const clash = Object.keys(requestSchemas).filter((k) => k in responseSchemas)
  if (clash.length > 0) throw new Error(`OpenAPI: request and response schemas share the names ${clash.join(', ')}`)

  const header = (description: string, schema: JsonSchema) => ({ description, schema })
  return {
    openapi: '3.1.0',
    info: { title: o.title, version: o.version, description: o.description },
    servers: [{ url: '/', description: 'This server' }],
    tags: Object.entries(API_TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: { ...requestSchemas, ...responseSchemas },
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', bearerFormat: 'svc_sk_…', description: 'An API key secret: `Authorization: Bearer svc_sk_…` (scope `read` or `trade`).' },
        sessionToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The session JWT `POST /auth/verify` answers.' },
        sessionCookie: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'The HttpOnly session cookie `POST /auth/verify` sets.' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'The operator token, ADMIN_TOKEN.' },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'The metrics token, METRICS_TOKEN.' },
      },
      headers: {
        XCorrelationId: header('On every response; quote it when reporting a problem. A sane `X-Correlation-Id` sent with the request is kept.', { type: 'string' }),
        XNextCursor: header('The `cursor` of the next page; absent on the last page.', { type: 'string' }),
        XRateLimitLimit: header('Order-path requests allowed per minute.', { type: 'integer' }),
        XRateLimitRemaining: header('Order-path requests left now.', { type: 'integer' }),
        XRateLimitReset: header('Seconds until the pool is full again.', { type: 'integer' }),
        RetryAfter: header('Seconds to wait before the next order-path request.', { type: 'integer' }),
      },
    },
  }
}

/** The error codes table, for the document's description. */
export function errorTable(): string {
  const rows = Object.entries(ERRORS).map(([code, e]) => `| \`${code}\` | ${e.status} | ${e.family} | ${e.message} |`)
  return ['| Code | Status | Family | Meaning |', '|---|---|---|---|', ...rows].join('\n')
}
