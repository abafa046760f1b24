// The batch writer's SQL literals: the same text pg's escapeLiteral writes, for every kind of string.
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { sqlLiteral } from '../../src/store/batchWriter.js'

describe('sqlLiteral', () => {
  it("writes exactly pg's escapeLiteral", () => {
    const cases = [
      '', 'plain', "it's", "''", '\\', 'a\\b', "x'y\\z", '\\\'', '{"a":"q\\"uote"}', "$' $& $$ $1::json $`",
      'snow ☃ and 𝄞', '\n\t\r\0', "E'", ' E\'', JSON.stringify([{ id: "o'1", note: 'back\\slash' }]),
    ]
    for (const s of cases) expect(sqlLiteral(s), s).toBe(pg.escapeLiteral(s))
  })
})
