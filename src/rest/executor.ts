// Runs REST routes as GraphQL: each route's document is parsed and validated once at start-up, then
// executed in-process with graphql's execute() against the same schema and resolvers yoga serves, so
// the two APIs cannot drift and REST skips yoga's HTTP layer.
import { execute, parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql'
import { DomainError } from '../domain/errors.js'
import { isUlid } from '../domain/ids.js'
import type { GraphQLContext } from '../graphql/context.js'
import { classify } from '../graphql/errors.js'
import { nulAt } from '../graphql/nulArguments.js'
import type { PathParam, RestRequest, RestRoute } from './route.js'

export interface CompiledRoute extends RestRoute {
  readonly document: DocumentNode
}

export function compileRoutes(schema: GraphQLSchema, routes: readonly RestRoute[]): CompiledRoute[] {
  return routes.map((route) => {
    const undeclared = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!).filter((name) => !route.params?.[name])
    if (undeclared.length > 0) throw new Error(`REST route ${route.method} ${route.path}: declare path parameter(s) ${undeclared.join(', ')} in params`)
    const document = parse(route.operation)
    const errors = validate(schema, document)
    if (errors.length > 0) {
      throw new Error(`REST route ${route.method} ${route.path}: invalid operation: ${errors.map((e) => e.message).join('; ')}`)
    }
    return { ...route, document }
  })
}

// C0 controls and DEL: no id or name of ours has one.
const CONTROL = /[\u0000-\u001f\u007f]/

function checkParam(name: string, value: string, p: PathParam): void {
  if (CONTROL.test(value) || (p.ulid && !isUlid(value))) throw new DomainError(p.notFound, undefined, { [name]: value })
}

/** The documented body (and headers) of a successful call; a failure is thrown as the DomainError REST reports. */
export async function runRoute(schema: GraphQLSchema, route: CompiledRoute, req: RestRequest, ctx: GraphQLContext): Promise<{ body: unknown; headers: Record<string, string> }> {
  for (const [name, p] of Object.entries(route.params ?? {})) checkParam(name, req.params[name] ?? '', p)
  const variableValues = route.variables?.(req) ?? {}
  // After the route's own checks (a field's own code comes first). The operation refuses a NUL in its
  // arguments too; here the error names the request's field.
  const nul = nulAt(req.query, 'query') ?? nulAt(req.body, 'body')
  if (nul) throw new DomainError('INVALID_REQUEST', `${nul} contains the NUL character (U+0000)`, { field: nul })
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
