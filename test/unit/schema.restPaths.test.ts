// The schema names the REST path of each operation: every route of the REST table is named ("GET
// /perps/markets") in the description of a field its GraphQL document selects, and every REST path a
// description names is a route (or an operator route under /admin, which runs no GraphQL).
import { GraphQLSchema, isInputObjectType, isInterfaceType, isObjectType, parse, TypeInfo, visit, visitWithTypeInfo } from 'graphql'
import { describe, expect, it } from 'vitest'
import { schema } from '../../src/graphql/schema.js'
import { restRoutes } from '../../src/rest/routes.js'

/** `/perps/orders/:id/cancel` as SPEC.md and the descriptions write it: `/perps/orders/{id}/cancel`. */
const specPath = (path: string) => path.replace(/:(\w+)/g, '{$1}')
const routeName = (r: { method: string; path: string }) => `${r.method} ${specPath(r.path)}`
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
/** The name as a whole: `POST /orders` is not named by `POST /orders/preview`. */
const names = (description: string, name: string) => new RegExp(`${escape(name)}(?![\\w/{}-])`).test(description)

function selectedFieldDescriptions(s: GraphQLSchema, operation: string): string[] {
  const typeInfo = new TypeInfo(s)
  const out: string[] = []
  visit(parse(operation), visitWithTypeInfo(typeInfo, { Field: () => void out.push(typeInfo.getFieldDef()?.description ?? '') }))
  return out
}

function allDescriptions(s: GraphQLSchema): string[] {
  const out: string[] = []
  for (const type of Object.values(s.getTypeMap())) {
    if (type.name.startsWith('__')) continue
    out.push(type.description ?? '')
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const f of Object.values(type.getFields())) out.push(f.description ?? '', ...f.args.map((a) => a.description ?? ''))
    } else if (isInputObjectType(type)) {
      for (const f of Object.values(type.getFields())) out.push(f.description ?? '')
    }
  }
  return out
}

describe('REST paths in the schema', () => {
  it.each(restRoutes.map((r) => [routeName(r), r] as const))('%s is named by a field its operation selects', (name, route) => {
    expect(selectedFieldDescriptions(schema, route.operation).some((d) => names(d, name)), `no field of ${route.operation} names ${name}`).toBe(true)
  })

  it('names only paths that exist', () => {
    const routes = new Set(restRoutes.map(routeName))
    const named = allDescriptions(schema).flatMap((d) => [...d.matchAll(/\b(GET|POST|DELETE) (\/[\w/{}.-]*\w}?)/g)].map((m) => `${m[1]} ${m[2]}`))
    expect(named.length).toBeGreaterThan(restRoutes.length)
    expect([...new Set(named)].filter((n) => !routes.has(n) && !n.includes(' /admin/'))).toEqual([])
  })

  it('tells a path from a longer one', () => {
    expect(names('REST: POST /orders/preview (kind OPTION).', 'POST /orders')).toBe(false)
    expect(names('REST: POST /perps/orders (kind LINEAR), POST /orders (kind OPTION).', 'POST /orders')).toBe(true)
    expect(names('REST: GET /perps/orders/{id}/cancel.', 'GET /perps/orders')).toBe(false)
    expect(names('REST: GET /perps/market-stats.', 'GET /perps/market')).toBe(false)
  })
})
