// The NUL guard's walk: the path of the first string holding U+0000, or null, whatever the nesting.
import { describe, expect, it } from 'vitest'
import { nulAt } from '../../src/graphql/nulArguments.js'

describe('nulAt', () => {
  it('finds no NUL where there is none', () => {
    expect(nulAt({ marketId: 'BTC-PERP', side: 'buy', quotes: [{ price: '1' }, { price: '2' }], at: new Date(0), n: 1, x: null }, 'body')).toBeNull()
    expect(nulAt(undefined, 'body')).toBeNull()
    expect(nulAt('plain', 'id')).toBeNull()
  })

  it('names the first string holding one, in key and item order', () => {
    expect(nulAt('a\u0000', 'id')).toBe('id')
    expect(nulAt({ a: 'x', b: { c: ['ok', 'n\u0000'] }, d: '\u0000' }, 'body')).toBe('body.b.c[1]')
    expect(nulAt([{ k: 'ok' }, { k: 'ok', j: 'x\u0000y' }], 'query')).toBe('query[1].j')
    expect(nulAt({ ['k\u0000']: 'key only' }, 'body')).toBeNull() // keys are not arguments' values
  })

  it('walks own keys only, and skips Dates', () => {
    const proto = { inherited: '\u0000' }
    expect(nulAt(Object.create(proto), 'body')).toBeNull()
    const bare = Object.create(null) as Record<string, unknown>
    bare['v'] = 'x\u0000'
    expect(nulAt({ bare }, 'args')).toBe('args.bare.v')
  })

  it('walks a value nested deeper than the call stack', () => {
    let deep: unknown = 'end\u0000'
    for (let i = 0; i < 100_000; i++) deep = [deep]
    expect(nulAt(deep, 'body')?.startsWith('body[0][0]')).toBe(true)
    let clean: unknown = 'end'
    for (let i = 0; i < 100_000; i++) clean = { a: clean }
    expect(nulAt(clean, 'body')).toBeNull()
  })
})
