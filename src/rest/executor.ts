// Runs REST routes as GraphQL: each route's document is parsed and validated once at start-up, then
// executed in-process with graphql's execute() against the same schema and resolvers yoga serves, so
// the two APIs cannot drift and REST skips yoga's HTTP layer.
import { execute, parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql'
import { DomainError } from '../domain/errors.js'
import type { GraphQLContext } from '../graphql/context.js'
import { classify } from '../graphql/errors.js'
import type { RestRequest, RestRoute } from './route.js'

export interface CompiledRoute extends RestRoute {
  readonly document: DocumentNode
}

export function compileRoutes(schema: GraphQLSchema, routes: readonly RestRoute[]): CompiledRoute[] {
  return routes.map((route) => {
    const document = parse(route.operation)
    const errors = validate(schema, document)
    if (errors.length > 0) {
      throw new Error(`REST route ${route.method} ${route.path}: invalid operation: ${errors.map((e) => e.message).join('; ')}`)
    }
    return { ...route, document }
  })
}

/** The documented body (and headers) of a successful call; a failure is thrown as the DomainError REST reports. */
export async function runRoute(schema: GraphQLSchema, route: CompiledRoute, req: RestRequest, ctx: GraphQLContext): Promise<{ body: unknown; headers: Record<string, string> }> {
  const variableValues = route.variables?.(req) ?? {}
  const result = await execute({ schema, document: route.document, variableValues, contextValue: ctx })
  const first = result.errors?.[0]
  if (first) {
    const c = classify(first, ctx.correlationId, ctx.services.log)
    if (c.code === 'INTERNAL_ERROR') throw Object.assign(new Error(c.message), { reported: true })
    throw new DomainError(c.code, c.message, c.details)
  }
  const data = result.data as Record<string, any>
  return { body: route.shape(data, req), headers: route.headers?.(data) ?? {} }
}
