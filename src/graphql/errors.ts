// How errors leave the GraphQL layer, for yoga and for the REST executor alike: a DomainError keeps its
// code, status and details in extensions; a GraphQL request error (parse, validation, coercion, limits,
// a malformed HTTP request) is INVALID_REQUEST; PostgreSQL out of reach is UPSTREAM_DEGRADED (503, retry
// shortly); anything else is masked as INTERNAL_ERROR with the
// correlation id, and logged. Over HTTP, a response yoga would send without a body gets the spec's
// error body instead.
import { STATUS_CODES } from 'node:http'
import { GraphQLError, type ExecutionResult } from 'graphql'
import { handleStreamOrSingleExecutionResult, isAsyncIterable, mapAsyncIterator, type GraphQLHTTPExtensions, type Plugin } from 'graphql-yoga'
import pino, { type Logger } from 'pino'
import { DomainError, ERRORS, errorBody, isErrorCode, type ErrorCode, type ErrorDetails } from '../domain/errors.js'
import { isConnectionLoss } from '../store/pg.js'
import type { GraphQLContext } from './context.js'

export interface ClientError {
  code: ErrorCode
  status: number
  message: string
  details?: ErrorDetails
}

/** The DomainError behind a GraphQL error, if any. */
function domainCause(err: GraphQLError): DomainError | null {
  let e: unknown = err.originalError
  while (e instanceof GraphQLError && e.originalError) e = e.originalError
  return e instanceof DomainError ? e : null
}

export function classify(err: GraphQLError, correlationId: string, log: Logger): ClientError {
  const domain = domainCause(err)
  if (domain) {
    const out: ClientError = { code: domain.code, status: domain.status, message: domain.message }
    if (domain.details !== undefined) out.details = domain.details
    return out
  }
  const code = err.extensions?.['code']
  if (isErrorCode(code)) return { code, status: ERRORS[code].status, message: err.message }
  if (!err.originalError || err.originalError instanceof GraphQLError) {
    return { code: 'INVALID_REQUEST', status: 400, message: err.message }
  }
  if (isConnectionLoss(err.originalError)) {
    log.warn({ err: err.originalError, correlationId, path: err.path }, 'PostgreSQL unavailable')
    return { code: 'UPSTREAM_DEGRADED', status: 503, message: 'The database is unavailable; retry shortly' }
  }
  log.error({ err: err.originalError, correlationId, path: err.path }, 'unexpected error in resolver')
  return { code: 'INTERNAL_ERROR', status: 500, message: `${ERRORS.INTERNAL_ERROR.message} (${correlationId})` }
}

const unlogged = pino({ level: 'silent' })

/** The error table's code an error leaves GraphQL with: classify's rule, without its log line (metrics). */
export function errorCode(err: GraphQLError): ErrorCode {
  return classify(err, '', unlogged).code
}

/** Errors already in the client shape, so a later pass leaves them (and their details) alone. */
const shaped = new WeakSet<GraphQLError>()

function shape(err: GraphQLError, c: ClientError, correlationId: string, http?: GraphQLHTTPExtensions): GraphQLError {
  const extensions: Record<string, unknown> = { code: c.code, status: c.status, correlationId }
  if (c.details !== undefined) extensions['details'] = c.details
  // yoga reads `http` for the response status and headers, and never serializes it
  if (http) extensions['http'] = http
  const out = new GraphQLError(c.message, { nodes: err.nodes, source: err.source, positions: err.positions, path: err.path, extensions })
  shaped.add(out)
  return out
}

export function toClientGraphQLError(err: GraphQLError, correlationId: string, log: Logger): GraphQLError {
  if (shaped.has(err)) return err
  return shape(err, classify(err, correlationId, log), correlationId)
}

/**
 * An error that stopped a request before execution (yoga's request parser and parameter checks, the
 * parse, choosing the operation, building the context): its client shape, with the HTTP status yoga
 * chose for it (400, 405 for a mutation over GET, 413) whatever the Accept header, or the code's own.
 */
function toRequestError(err: GraphQLError, correlationId: string, log: Logger): GraphQLError {
  if (shaped.has(err)) return err
  const c = classify(err, correlationId, log)
  const given = err.extensions?.['http'] as GraphQLHTTPExtensions | undefined
  if (c.code === 'INVALID_REQUEST' && given?.status && given.status >= 400 && given.status < 500) c.status = given.status
  const http: GraphQLHTTPExtensions = { status: c.status }
  if (given?.headers) http.headers = given.headers
  return shape(err, c, correlationId, http)
}

/** A request yoga's own parsers could not read (a GET's variables or extensions that are not JSON). */
function malformedRequest(err: unknown): GraphQLError {
  const why = err instanceof Error ? `: ${err.message}` : ''
  return new GraphQLError(`Malformed GraphQL request${why}`, { extensions: { code: 'INVALID_REQUEST', http: { status: 400 } } })
}

/** The spec's error body for a response yoga sends without one (415 media type, 406 Accept). */
function bodyFor(response: Response, fetchAPI: { Response: typeof Response }): Response {
  const message =
    response.status === 415
      ? 'Unsupported media type: send a JSON body with Content-Type: application/json, or use GET'
      : response.status === 406
        ? `Not acceptable: GraphQL answers ${response.headers.get('accept')?.replace(/; charset=utf-8/g, '') || 'application/json'}`
        : `${response.status} ${STATUS_CODES[response.status] ?? 'error'}`
  const headers: Record<string, string> = {}
  response.headers.forEach((value, key) => {
    if (key !== 'content-length') headers[key] = value
  })
  headers['content-type'] = 'application/json; charset=utf-8'
  const body = JSON.stringify(errorBody('INVALID_REQUEST', message))
  return new fetchAPI.Response(body, { status: response.status, statusText: response.statusText, headers })
}

/** The correlation id of a request: the operation context's, or the HTTP request's before it exists. */
function correlationIdOf(ctx: object): string {
  const c = ctx as { correlationId?: string; req?: { id?: string } }
  return c.correlationId ?? c.req?.id ?? 'unknown'
}

/**
 * Rewrites every error of every result (queries, mutations, each subscription event); over HTTP also
 * the errors that stop a request before execution, and the bodiless 4xx/5xx responses.
 */
export function useClientErrors(log: Logger): Plugin<GraphQLContext, { req: { id: string } }> {
  const rewrite = (errors: readonly Error[], ctx: object) =>
    errors.map((e) => toClientGraphQLError(e instanceof GraphQLError ? e : new GraphQLError(e.message), correlationIdOf(ctx), log))
  const rewriteResult = (result: ExecutionResult, correlationId: string): ExecutionResult => {
    if (!result.errors?.some((e) => !shaped.has(e))) return result
    // with data, the errors came from execution; without, they stopped the request
    const one = result.data === undefined ? toRequestError : toClientGraphQLError
    return { ...result, errors: result.errors.map((e) => one(e, correlationId, log)) }
  }
  return {
    onRequestParse: ({ requestParser, setRequestParser }) => {
      if (!requestParser) return
      setRequestParser(async (request) => {
        try {
          return await requestParser(request)
        } catch (err) {
          throw err instanceof GraphQLError ? err : malformedRequest(err)
        }
      })
    },
    onResultProcess: ({ result, setResult, serverContext }) => {
      const correlationId = correlationIdOf(serverContext)
      if (Array.isArray(result)) setResult(result.map((r) => rewriteResult(r, correlationId)))
      else if (!isAsyncIterable(result)) setResult(rewriteResult(result, correlationId))
      // A subscription that fails mid-stream (its credential ended) reaches here as yoga's last
      // `{errors}` item, past onSubscribeResult: give it the spec's code too.
      else setResult(mapAsyncIterator(result, (r) => (r.errors?.length ? { ...r, errors: rewrite(r.errors, serverContext) } : r)))
    },
    onResponse: ({ response, setResponse, fetchAPI }) => {
      if (response.status >= 400 && response.body === null) setResponse(bodyFor(response, fetchAPI))
    },
    // yoga caches validation results per document, shaped for an earlier request: shape them afresh
    onValidate: ({ context }) => ({ result, setResult }) => {
      if (result.length > 0) setResult(result.map((e) => shape(e, classify(e, correlationIdOf(context), log), correlationIdOf(context))))
    },
    onExecute: () => ({
      onExecuteDone: (payload) =>
        handleStreamOrSingleExecutionResult(payload, ({ result, setResult }) => {
          if (result.errors?.length) setResult({ ...result, errors: rewrite(result.errors, payload.args.contextValue) })
        }),
    }),
    onSubscribe: () => ({
      onSubscribeResult: (payload) =>
        handleStreamOrSingleExecutionResult(payload, ({ result, setResult }) => {
          if (result.errors?.length) setResult({ ...result, errors: rewrite(result.errors, payload.args.contextValue) })
        }),
    }),
  }
}
