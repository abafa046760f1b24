// restOrder builds the REST order field by field (a spread of graphql's prototype-less result is slow):
// it must answer exactly the RestOrder fragment's fields, in the fragment's order, enums lower case.
import { parse, type FieldNode, type FragmentDefinitionNode } from 'graphql'
import { describe, expect, it } from 'vitest'
import { ORDER_FIELDS, restOrder } from '../../src/rest/orderEntryRoutes.js'

const fragment = parse(ORDER_FIELDS).definitions[0] as FragmentDefinitionNode
const fields = fragment.selectionSet.selections.map((s) => (s as FieldNode).name.value)

/** A result object as graphql's execute() builds it: no prototype, the fragment's fields in order. */
function result(values: Record<string, unknown>): Record<string, unknown> {
  const o = Object.create(null) as Record<string, unknown>
  for (const f of fields) o[f] = f in values ? values[f] : `${f}-value`
  return o
}

describe('restOrder', () => {
  it('answers the fragment’s fields in its order, enums lower case', () => {
    const out = restOrder(result({ side: 'BUY', type: 'LIMIT', timeInForce: 'GTC', status: 'OPEN', marginMode: 'CROSS', cancelReason: null }))
    expect(Object.keys(out)).toEqual(fields)
    expect(out).toMatchObject({ side: 'buy', type: 'limit', timeInForce: 'gtc', status: 'open', marginMode: 'cross', cancelReason: null, price: 'price-value' })
  })

  it('lower-cases an engine cancel reason and keeps an error code as it is', () => {
    expect(restOrder(result({ cancelReason: 'USER' })).cancelReason).toBe('user')
    expect(restOrder(result({ cancelReason: 'INSUFFICIENT_MARGIN' })).cancelReason).toBe('INSUFFICIENT_MARGIN')
  })
})
