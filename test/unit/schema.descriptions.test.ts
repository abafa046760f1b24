// The schema documents itself: every type, field, argument, input field and enum value of the built
// schema has a description (graphql's own introspection types and built-in scalars aside), so GraphiQL
// and generated clients show units, formats, what null means and the REST path of each operation.
import { buildSchema, isEnumType, isInputObjectType, isInterfaceType, isIntrospectionType, isObjectType, isSpecifiedScalarType, type GraphQLSchema } from 'graphql'
import { describe, expect, it } from 'vitest'
import { schema } from '../../src/graphql/schema.js'

const blank = (d: string | null | undefined) => !d || d.trim() === ''

/** Every element of the schema without a description, named `Type`, `Type.field`, `Type.field(arg)` or `Enum.VALUE`. */
function undocumented(s: GraphQLSchema): string[] {
  const missing: string[] = []
  for (const type of Object.values(s.getTypeMap())) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue
    if (blank(type.description)) missing.push(type.name)
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (blank(field.description)) missing.push(`${type.name}.${field.name}`)
        for (const arg of field.args) if (blank(arg.description)) missing.push(`${type.name}.${field.name}(${arg.name})`)
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) if (blank(field.description)) missing.push(`${type.name}.${field.name}`)
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) if (blank(value.description)) missing.push(`${type.name}.${value.name}`)
    }
  }
  return missing.sort()
}

describe('schema descriptions', () => {
  it('describe every type, field, argument, input field and enum value', () => {
    expect(undocumented(schema)).toEqual([])
  })

  it('are checked on every kind of element (the check names what it misses)', () => {
    const sdl = `
      """Documented."""
      type Query { a(x: Int): Int, """Documented.""" b: E, c(i: In): Int }
      enum E { ONE, """Documented.""" TWO }
      input In { f: Int }
      interface Node { id: ID }
      scalar Money`
    expect(undocumented(buildSchema(sdl))).toEqual(['E', 'E.ONE', 'In', 'In.f', 'Money', 'Node', 'Node.id', 'Query.a', 'Query.a(x)', 'Query.c', 'Query.c(i)'])
  })
})
