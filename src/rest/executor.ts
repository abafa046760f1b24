// Runs REST routes as GraphQL: each route's document is parsed, validated and compiled to a function
// (graphql-jit) once at start-up, then run in-process against the same schema and resolvers yoga
// serves, so the two APIs cannot drift and REST skips yoga's HTTP layer. Compiled rather than walked by
// execute(): the walk (collecting fields, coercing arguments, completing values on every request) was
// the largest cost of an order request in the API process after the HTTP stack (docs/decisions.md).
import { parse, validate, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql'
import { compileQuery, isCompiledQuery } from 'graphql-jit'
import { DomainError } from '../domain/errors.js'
import { endContext, type GraphQLContext } from '../graphql/context.js'
import { classify } from '../graphql/errors.js'
import { nulAt } from '../graphql/nulArguments.js'
import { parsePart } from './requestSchema.js'
import type { RestInput, RestRequest, RestRoute } from './route.js'

export interface CompiledRoute extends RestRoute {
  readonly document: DocumentNode
  /** The document compiled to a function by graphql-jit: same resolvers, coercion and errors as execute(). */
  readonly run: (ctx: GraphQLContext, variables: Record<string, unknown>) => Promise<ExecutionResult> | ExecutionResult
}

export function compileRoutes(schema: GraphQLSchema, routes: readonly RestRoute[]): CompiledRoute[] {
  return routes.map((route) => {
    const declared = route.params?.shape ?? {}
    const undeclared = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!).filter((name) => !declared[name])
    if (undeclared.length > 0) throw new Error(`REST route ${route.method} ${route.path}: declare path parameter(s) ${undeclared.join(', ')} in params`)
    const document = parse(route.operation)
    const errors = validate(schema, document)
    if (errors.length > 0) {
      throw new Error(`REST route ${route.method} ${route.path}: invalid operation: ${errors.map((e) => e.message).join('; ')}`)
    }
    const compiled = compileQuery(schema, document)
    if (!isCompiledQuery(compiled)) throw new Error(`REST route ${route.method} ${route.path}: ${compiled.errors?.map((e) => e.message).join('; ')}`)
    return { ...route, document, run: (ctx, variables) => compiled.query(undefined, ctx, variables) }
  })
}

/** The request checked against the route's schemas (path, then query, then body), or the DomainError REST reports. */
export function checkRequest(route: RestRoute, req: RestRequest): RestInput {
  return {
    params: route.params ? parsePart(route.params, req.params, 'path') : {},
    query: route.query ? parsePart(route.query, req.query, 'query') : {},
    // A JSON `null` body is no body.
    body: route.body ? parsePart(route.body, req.body ?? undefined, 'body') : undefined,
  }
}

/** The documented body (and headers) of a successful call; a failure is thrown as the DomainError REST reports. */
export async function runRoute(route: CompiledRoute, req: RestRequest, ctx: GraphQLContext): Promise<{ body: unknown; headers: Record<string, string> }> {
  const input = checkRequest(route, req)
  // After the schemas (a field's own code comes first). The operation refuses a NUL in its arguments
  // too; here the error names the request's field.
  const nul = nulAt(req.query, 'query') ?? nulAt(req.body, 'body')
  if (nul) throw new DomainError('INVALID_REQUEST', `${nul} contains the NUL character (U+0000)`, { field: nul })
  const variableValues = route.variables?.(input) ?? {}
  let result: ExecutionResult
  try {
    result = await route.run(ctx, variableValues)
  } finally {
    endContext(ctx)
  }
  const first = result.errors?.[0]
  if (first) {
    const c = classify(first, ctx.correlationId, ctx.services.log)
    if (c.code === 'INTERNAL_ERROR') throw Object.assign(new Error(c.message), { reported: true })
    throw new DomainError(c.code, c.message, c.details)
  }
  const data = result.data as Record<string, any>
  return { body: route.shape(data, input), headers: route.headers?.(data) ?? {} }
}
