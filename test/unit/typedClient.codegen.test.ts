// The typed client example's generated documents match schema.graphql and its operations: a schema
// change (a field renamed, an enum added, a description) makes this fail until `npm run example:codegen`.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { GENERATED_FILE, generateTypedDocuments } from '../../examples/typed-client/codegen.js'

describe('examples/typed-client/generated/graphql.ts', () => {
  it('is what codegen makes of schema.graphql today (else: npm run example:codegen)', async () => {
    expect(readFileSync(GENERATED_FILE, 'utf8')).toBe(await generateTypedDocuments())
  })
})
