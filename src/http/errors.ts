// One error handler for every HTTP route: the spec's body {error, code, message, details?} with the
// code's status. Malformed or oversized bodies are client errors, never 500s; PostgreSQL out of reach is
// 503 UPSTREAM_DEGRADED (retry shortly), as it is in GraphQL (graphql/errors.ts); an unexpected error is
// logged with its correlation id and shown to the client only as INTERNAL_ERROR. Requests that never
// reach a route get the same shape: a path the router cannot decode (frameworkErrors), and HTTP that
// Node's parser refuses, answered on the raw socket (clientErrorHandler).
import { STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { DomainError, errorBody, ERRORS, type ErrorCode } from '../domain/errors.js'
import { newId } from '../domain/ids.js'
import { isConnectionLoss } from '../store/pg.js'

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_REQUEST',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_REQUEST',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'INVALID_REQUEST',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'INVALID_REQUEST',
  FST_ERR_VALIDATION: 'INVALID_REQUEST',
}

/** A whole HTTP/1.1 error response for a socket no reply object owns: the spec's body, a fresh
 * correlation id, and the connection closed after it. */
export function rawErrorResponse(status: number, code: ErrorCode, message?: string): string {
  const body = JSON.stringify(errorBody(code, message))
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Correlation-Id: ${newId()}\r\nConnection: close\r\n\r\n${body}`
  )
}

/** Fastify's `frameworkErrors`: a path that is not valid percent-encoding, or a segment longer than the
 * router takes, before any route or hook has run (so the correlation id is set here). */
export function onFrameworkError(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  reply.header('X-Correlation-Id', req.id)
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') reply.status(414).send(errorBody('INVALID_REQUEST', 'A path segment is too long'))
  else if (err.code === 'FST_ERR_BAD_URL') reply.status(400).send(errorBody('INVALID_REQUEST', 'The path is not valid percent-encoding'))
  else {
    req.log.error({ err, correlationId: req.id }, 'router error')
    reply.status(500).send(errorBody('INTERNAL_ERROR', `${ERRORS.INTERNAL_ERROR.message} (${req.id})`))
  }
}

/** Fastify's `clientErrorHandler`: HTTP that Node's parser refuses (bad request line or headers,
 * conflicting lengths, headers too large, a timeout) gets the spec's body as Fastify's default would
 * get its own. A reset or already closed connection gets nothing. */
export function onClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  if (socket.writable) {
    socket.write(
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? rawErrorResponse(408, 'INVALID_REQUEST', 'The request was not received in time')
        : err.code === 'HPE_HEADER_OVERFLOW'
          ? rawErrorResponse(431, 'INVALID_REQUEST', 'The request line or headers are too large')
          : rawErrorResponse(400, 'INVALID_REQUEST', 'Malformed HTTP request'),
    )
  }
  socket.destroy(err)
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | DomainError | Error, req, reply) => {
    if (err instanceof DomainError) {
      const body: Record<string, unknown> = { ...errorBody(err.code, err.message, err.details) }
      // The spec puts retryAfterMs at the top of a 429 body (it stays in details too, for uniform readers).
      if (err.code === 'ORDER_RATE_LIMIT' && err.details?.['retryAfterMs'] !== undefined) body['retryAfterMs'] = err.details['retryAfterMs']
      return reply.status(err.status).send(body)
    }
    const fastifyCode = (err as FastifyError).code
    const mapped = fastifyCode ? FASTIFY_CODES[fastifyCode] : undefined
    if (mapped) return reply.status(ERRORS[mapped].status).send(errorBody(mapped, err.message))
    const status = (err as FastifyError).statusCode
    if (status && status >= 400 && status < 500) {
      return reply.status(status).send(errorBody('INVALID_REQUEST', err.message))
    }
    if (isConnectionLoss(err)) {
      req.log.warn({ err, correlationId: req.id }, 'PostgreSQL unavailable')
      return reply.status(503).send(errorBody('UPSTREAM_DEGRADED', 'The database is unavailable; retry shortly'))
    }
    if (!(err as { reported?: boolean }).reported) req.log.error({ err, correlationId: req.id }, 'unhandled error')
    return reply.status(500).send(errorBody('INTERNAL_ERROR', `${ERRORS.INTERNAL_ERROR.message} (${req.id})`))
  })
  app.setNotFoundHandler((req, reply) => {
    reply.status(404).send(errorBody('NOT_FOUND', `No route ${req.method} ${req.url.split('?')[0]}`))
  })
}
