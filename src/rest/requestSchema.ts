// The zod schemas REST requests are checked with, and the one rule that turns a failed check into the
// spec's error: a field that has a code of its own in SPEC.md (`INVALID_PRICE`, `INVALID_QUANTITY`,
// `INVALID_MARKET_ID`, `INVALID_TIME_IN_FORCE`; a path id's not-found code) fails with that code, any
// other malformed part of a request with `400 INVALID_REQUEST`; both carry `details.issues`. The same
// schemas are the OpenAPI document's (src/rest/openapi.ts). They check shapes and types only: what a
// value must be (a tick multiple, a listed market, a known quote id) is the domain's rule, shared with
// GraphQL, and keeps its own code there.
import { z } from 'zod'
import { DomainError, ERRORS, type ErrorCode } from '../domain/errors.js'
import { isUlid } from '../domain/ids.js'
import { issueLine, requestIssues } from '../domain/requestIssues.js'

export type RequestPart = 'path' | 'query' | 'body'

/** Request bodies with a name of their own in the OpenAPI document (the others take their operation's). */
export const requestComponents = z.registry<{ id: string }>()

export const namedRequest = <T extends z.ZodType>(id: string, schema: T): T => {
  requestComponents.add(schema, { id })
  return schema
}

/** The field codes, keyed by the schema that carries one (see `coded`). */
const fieldCodes = new WeakMap<z.core.$ZodType, ErrorCode>()

/** Marks a field whose failures are `code`, not INVALID_REQUEST (the innermost mark on an issue's path wins). */
export function coded<T extends z.ZodType>(schema: T, code: ErrorCode): T {
  fieldCodes.set(schema, code)
  return schema
}

type Def = { type: string; innerType?: z.core.$ZodType; in?: z.core.$ZodType; shape?: Record<string, z.core.$ZodType>; element?: z.core.$ZodType; options?: z.core.$ZodType[] }
const defOf = (s: z.core.$ZodType) => s._zod.def as unknown as Def

/** The schema itself after its wrappers (optional, default, pipe, …), noting any code on the way. */
function unwrap(s: z.core.$ZodType, found: { code?: ErrorCode }): z.core.$ZodType {
  for (;;) {
    found.code = fieldCodes.get(s) ?? found.code
    const d = defOf(s)
    if (d.innerType) s = d.innerType
    else if (d.type === 'pipe' && d.in) s = d.in
    else return s
  }
}

/** The code of an issue at `path` of a value checked with `schema`. */
export function codeAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): ErrorCode {
  const found: { code?: ErrorCode } = {}
  let s: z.core.$ZodType | undefined = unwrap(schema, found)
  for (const key of path) {
    const d: Def = defOf(s)
    if (d.type === 'object') s = d.shape?.[String(key)]
    else if (d.type === 'array') s = d.element
    else if (d.type === 'union') s = d.options?.find((o) => defOf(unwrap(o, {})).shape?.[String(key)])
    else s = undefined
    if (!s) break
    s = unwrap(s, found)
  }
  return found.code ?? 'INVALID_REQUEST'
}

/** Every code a schema can fail with besides INVALID_REQUEST (for the OpenAPI document). */
export function codesIn(schema: z.core.$ZodType): ErrorCode[] {
  const codes = new Set<ErrorCode>()
  const seen = new Set<z.core.$ZodType>()
  const walk = (s: z.core.$ZodType | undefined): void => {
    if (!s || seen.has(s)) return
    seen.add(s)
    const code = fieldCodes.get(s)
    if (code) codes.add(code)
    const d = defOf(s)
    ;[d.innerType, d.in, d.element, ...Object.values(d.shape ?? {}), ...(d.options ?? [])].forEach(walk)
  }
  walk(schema)
  return [...codes]
}

/** A query parameter given empty (`?marketId=`) counts as absent. */
function presentQuery(query: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(query)) if (v !== '') out[k] = v
  return out
}

/**
 * Checks one part of a request. A failure is the code of its first issue (zod reports fields in the
 * order the schema declares them, unknown fields last; schemas declare SPEC.md's order), with every
 * issue in `details.issues`. A path id that names nothing is its not-found code with the id.
 */
export function parsePart<T>(schema: z.ZodType<T>, value: unknown, part: RequestPart): T {
  const r = schema.safeParse(part === 'query' ? presentQuery(value as Record<string, unknown>) : value)
  if (r.success) return r.data
  const first = r.error.issues[0]!
  const code = codeAt(schema, first.path)
  if (part === 'path') {
    const name = String(first.path[0])
    throw new DomainError(code, undefined, { [name]: (value as Record<string, unknown>)[name] })
  }
  const issues = requestIssues(r.error)
  const message = `Invalid request ${part}: ${issues.slice(0, 3).map(issueLine).join('; ')}${issues.length > 3 ? '; …' : ''}`
  throw new DomainError(code, code === 'INVALID_REQUEST' ? message : `${issueLine(issues[0]!)} (${ERRORS[code].message})`, { in: part, issues })
}

// ---------------------------------------------------------------------------------------------------
// Fields

const DECIMAL_NOTE = 'A decimal string, never a JSON number.'

/** A decimal string; its format, tick, step and band are the domain's to check, with the same code. */
export const decimal = (description: string, code?: ErrorCode) => {
  const s = z.string().meta({ description: `${description} ${DECIMAL_NOTE}` })
  return code ? coded(s, code) : s
}

export const price = (description = 'Limit price, in the market\'s quote units (options: in units of the underlying).') => decimal(description, 'INVALID_PRICE')
export const quantity = (description = 'Quantity in the market\'s base units (options: contracts).') => decimal(description, 'INVALID_QUANTITY')

/** A market id in a body or query; malformed or missing is INVALID_MARKET_ID. */
export const marketId = (description = 'Market id, e.g. `BTC-PERP`, `BTC-USDC-SPOT`, `BTC-USDC-2026-12-25`, `BTC-2026-12-18-100000-C`.') =>
  coded(z.string().meta({ description }), 'INVALID_MARKET_ID')

export const text = (description: string) => z.string().meta({ description })

export const flag = (description: string) => z.boolean().meta({ description })

/** A query parameter given once: a repeated one arrives as a list and is refused. */
export const queryText = (description: string) =>
  z.string({ error: (iss) => (Array.isArray(iss.input) ? 'must be given once' : undefined) }).meta({ description })

/** A query parameter of digits, as a number. */
export const queryInteger = (description: string, max: number, min = 0) =>
  queryText(description)
    .regex(/^\d{1,15}$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))

/** `limit` (1–200, default 100) and `cursor` of a paged list (next page in the X-Next-Cursor header). */
export const paging = {
  limit: queryInteger('Page size, 1 to 200 (default 100).', 200, 1).optional(),
  cursor: queryText('The X-Next-Cursor of the previous page.').optional(),
}

export const pageVariables = (q: { limit?: number | undefined; cursor?: string | undefined }) => ({ first: q.limit ?? 100, after: q.cursor ?? null })

// C0 controls and DEL: no id or name of ours has one (and PostgreSQL refuses NUL in text).
const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/

/** A path segment naming a resource; one that cannot name any is `notFound`. */
export const pathId = (notFound: ErrorCode, description: string) => coded(z.string().regex(NO_CONTROL).meta({ description }), notFound)

/** A path segment naming an order or user: ids are ULIDs, so anything else names none, without a lookup. */
export const ulidPath = (notFound: ErrorCode, description: string) =>
  coded(
    z
      .string()
      .refine(isUlid, 'not a ULID')
      .meta({ description, pattern: '^[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{26}$', examples: ['01JH5Q5BTK4E7N9R4M1XG2ZC8D'] }),
    notFound,
  )

/** GraphQL enum values are the REST strings in upper case. */
export const upper = <T extends string | undefined>(v: T): T => v?.toUpperCase() as T
