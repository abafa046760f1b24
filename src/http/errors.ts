// One error handler for every HTTP route: the spec's body {error, code, message, details?} with the
// code's status. Malformed or oversized bodies are client errors, never 500s; an unexpected error is
// logged with its correlation id and shown to the client only as INTERNAL_ERROR.
import type { FastifyError, FastifyInstance } from 'fastify'
import { DomainError, errorBody, ERRORS, type ErrorCode } from '../domain/errors.js'

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_REQUEST',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_REQUEST',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'INVALID_REQUEST',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'INVALID_REQUEST',
  FST_ERR_VALIDATION: 'INVALID_REQUEST',
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
    if (!(err as { reported?: boolean }).reported) req.log.error({ err, correlationId: req.id }, 'unhandled error')
    return reply.status(500).send(errorBody('INTERNAL_ERROR', `${ERRORS.INTERNAL_ERROR.message} (${req.id})`))
  })
  app.setNotFoundHandler((req, reply) => {
    reply.status(404).send(errorBody('NOT_FOUND', `No route ${req.method} ${req.url.split('?')[0]}`))
  })
}
