// Refuses the NUL character (U+0000) in any argument of any field, before its resolver runs: PostgreSQL
// refuses NUL in text, so an id, cursor or filter carrying one failed there as an internal error. Every
// way in passes through field arguments (REST bodies, queries and path ids become an operation's
// variables; GraphQL over HTTP and WebSocket sends literals and variables), so one check covers them all.
import { defaultFieldResolver, isObjectType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql'
import { DomainError } from '../domain/errors.js'

/**
 * Whether any string in a value holds a NUL: the same walk as nulAt's (own enumerable keys, array
 * items, Dates skipped), without the paths: every request passes here, and almost none holds one.
 */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000')
  if (typeof value !== 'object' || value === null) return false
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return true
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push(v[i])
    } else if (typeof v === 'object' && v !== null && !(v instanceof Date)) {
      for (const k in v) if (Object.hasOwn(v, k)) stack.push((v as Record<string, unknown>)[k])
    }
  }
  return false
}

/**
 * The path of the first string holding a NUL in a value (JSON or a coerced argument), or null. Walks
 * with a stack of its own: a request body may nest tens of thousands deep (JSON.parse takes it), and a
 * recursive walk overflowed the call stack into a 500.
 */
export function nulAt(value: unknown, path: string): string | null {
  return holdsNul(value) ? firstNul(value, path) : null
}

function firstNul(value: unknown, path: string): string | null {
  // Each entry links to its parent; the path is spelt out only for a hit (spelling it per level
  // costs the square of the depth).
  interface At {
    parent: At | null
    key: string
  }
  const spell = (at: At): string => {
    const keys: string[] = []
    for (let a: At | null = at; a; a = a.parent) keys.push(a.key)
    const spelt = keys.reverse().join('')
    return spelt.length > 200 ? `${spelt.slice(0, 200)}…` : spelt
  }
  const stack: Array<[unknown, At]> = [[value, { parent: null, key: path }]]
  while (stack.length > 0) {
    const [v, at] = stack.pop()!
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return spell(at)
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], { parent: at, key: `[${i}]` }])
    } else if (typeof v === 'object' && v !== null && !(v instanceof Date)) {
      for (const [k, x] of Object.entries(v).reverse()) stack.push([x, { parent: at, key: `.${k}` }])
    }
  }
  return null
}

function refuseNul(args: Record<string, unknown>): void {
  if (!holdsNul(args)) return
  for (const [name, value] of Object.entries(args)) {
    const at = firstNul(value, name)
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
