// How errors leave the GraphQL layer, for yoga and for the REST executor alike: a DomainError keeps its
// code, status and details in extensions; a GraphQL request error (parse, validation, coercion, limits)
// is INVALID_REQUEST; anything else is masked as INTERNAL_ERROR with the correlation id, and logged.
import { GraphQLError } from 'graphql'
import { handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga'
import type { Logger } from 'pino'
import { DomainError, ERRORS, isErrorCode, type ErrorCode, type ErrorDetails } from '../domain/errors.js'
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
  log.error({ err: err.originalError, correlationId, path: err.path }, 'unexpected error in resolver')
  return { code: 'INTERNAL_ERROR', status: 500, message: `${ERRORS.INTERNAL_ERROR.message} (${correlationId})` }
}

export function toClientGraphQLError(err: GraphQLError, correlationId: string, log: Logger): GraphQLError {
  const c = classify(err, correlationId, log)
  const extensions: Record<string, unknown> = { code: c.code, status: c.status, correlationId }
  if (c.details !== undefined) extensions['details'] = c.details
  return new GraphQLError(c.message, { nodes: err.nodes, source: err.source, positions: err.positions, path: err.path, extensions })
}

/** Rewrites every error of every result (queries, mutations, each subscription event). */
export function useClientErrors(log: Logger): Plugin<GraphQLContext> {
  const rewrite = (errors: readonly Error[], ctx: GraphQLContext) =>
    errors.map((e) => toClientGraphQLError(e instanceof GraphQLError ? e : new GraphQLError(e.message), ctx.correlationId, log))
  return {
    onValidate: ({ context }) => ({ result, setResult }) => {
      if (result.length > 0) setResult(rewrite(result, context as GraphQLContext))
    },
    onExecute: () => ({
      onExecuteDone: (payload) =>
        handleStreamOrSingleExecutionResult(payload, ({ result, setResult }) => {
          if (result.errors?.length) setResult({ ...result, errors: rewrite(result.errors, payload.args.contextValue as GraphQLContext) })
        }),
    }),
    onSubscribe: () => ({
      onSubscribeResult: (payload) =>
        handleStreamOrSingleExecutionResult(payload, ({ result, setResult }) => {
          if (result.errors?.length) setResult({ ...result, errors: rewrite(result.errors, payload.args.contextValue as GraphQLContext) })
        }),
    }),
  }
}
