// Refuses the NUL character (U+0000) in any argument of any field, before its resolver runs: PostgreSQL
// refuses NUL in text, so an id, cursor or filter carrying one failed there as an internal error. Every
// way in passes through field arguments (REST bodies, queries and path ids become an operation's
// variables; GraphQL over HTTP and WebSocket sends literals and variables), so one check covers them all.
import { defaultFieldResolver, isObjectType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql'
import { DomainError } from '../domain/errors.js'

/** The path of the first string holding a NUL in a value (JSON or a coerced argument), or null. */
export function nulAt(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null
  if (typeof value !== 'object' || value === null || value instanceof Date) return null
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const at = nulAt(value[i], `${path}[${i}]`)
      if (at) return at
    }
    return null
  }
  for (const [k, v] of Object.entries(value)) {
    const at = nulAt(v, `${path}.${k}`)
    if (at) return at
  }
  return null
}

function refuseNul(args: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(args)) {
    const at = nulAt(value, name)
    if (at) throw new DomainError('INVALID_REQUEST', `${at} contains the NUL character (U+0000)`, { argument: at })
  }
}

const guarded = <R extends GraphQLFieldResolver<unknown, unknown>>(fn: R): R =>
  ((source, args, ctx, info) => {
    refuseNul(args)
    return fn(source, args, ctx, info)
  }) as R

/** Wraps the resolver (a subscription field: its subscribe) of every field that takes arguments. */
export function refuseNulArguments(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue
    for (const field of Object.values(type.getFields())) {
      if (field.args.length === 0) continue
      if (field.subscribe) field.subscribe = guarded(field.subscribe)
      else field.resolve = guarded(field.resolve ?? defaultFieldResolver)
    }
  }
  return schema
}
