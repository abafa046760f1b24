// The schema's vocabularies are generated from the code's single lists, so they cannot drift: the error
// codes from the error table (each described with its status and family), the stream event types from
// the engine's EVENT_TYPES, the cancel reasons from the order domain plus the codes a refused trigger
// carries.
import { isEnumType, isObjectType, type GraphQLEnumType } from 'graphql'
import { describe, expect, it } from 'vitest'
import { ERRORS, type ErrorCode } from '../../src/domain/errors.js'
import { CANCEL_REASONS } from '../../src/domain/orders.js'
import { EVENT_TYPES } from '../../src/engine/events.js'
import { schema } from '../../src/graphql/schema.js'

function enumOf(name: string): GraphQLEnumType {
  const t = schema.getType(name)
  if (!isEnumType(t)) throw new Error(`${name} is not an enum of the schema`)
  return t
}
const names = (e: GraphQLEnumType) => e.getValues().map((v) => v.name).sort()

describe('schema vocabularies', () => {
  it('ErrorCode has every code of the error table, each with its HTTP status, family and meaning', () => {
    const e = enumOf('ErrorCode')
    expect(names(e)).toEqual(Object.keys(ERRORS).sort())
    for (const [code, row] of Object.entries(ERRORS)) {
      expect(e.getValue(code)!.description).toBe(`HTTP ${row.status} · ${row.family}. ${row.message}${/[.!?]$/.test(row.message) ? '' : '.'}`)
    }
    // What a client parses from `extensions.code` is a value of the enum, serialized as itself.
    expect(e.serialize('INSUFFICIENT_MARGIN' satisfies ErrorCode)).toBe('INSUFFICIENT_MARGIN')
  })

  it('is reachable: PreviewResult.reason is an ErrorCode', () => {
    const preview = schema.getType('PreviewResult')
    expect(isObjectType(preview) && String(preview.getFields()['reason']!.type)).toBe('ErrorCode')
  })

  it('StreamEventType is the envelope eventTypes, values as on the wire', () => {
    const e = enumOf('StreamEventType')
    expect(names(e)).toEqual([...EVENT_TYPES].sort())
    for (const t of EVENT_TYPES) expect(e.serialize(t)).toBe(t)
  })

  it('CancelReason is the engine reasons (lower case on the wire) and the error codes', () => {
    const e = enumOf('CancelReason')
    expect(names(e)).toEqual([...CANCEL_REASONS.map((r) => r.toUpperCase()), ...Object.keys(ERRORS)].sort())
    expect(e.serialize('ioc_unfilled')).toBe('IOC_UNFILLED')
    expect(e.serialize('REDUCE_ONLY_VIOLATION')).toBe('REDUCE_ONLY_VIOLATION')
  })
})
