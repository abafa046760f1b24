// Scalars: Decimal travels as a decimal string (never a float), DateTime as ISO 8601 UTC, SafeInt as a
// JSON integer up to 2^53 (sequences and unix times outgrow GraphQL's 32-bit Int).
import { GraphQLError, Kind } from 'graphql'
import { builder } from './builder.js'

const invalid = (message: string) => new GraphQLError(message, { extensions: { code: 'INVALID_REQUEST', status: 400 } })

builder.scalarType('Decimal', {
  description: 'An exact decimal number as a string, e.g. "95000.5". Never a float.',
  serialize: (v) => v,
  // Shape only: whether a decimal is a valid price or quantity is the validators' call (their codes).
  parseValue: (v) => {
    if (typeof v !== 'string') throw invalid('Decimal must be a string')
    return v
  },
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw invalid('Decimal must be a string')
    return ast.value
  },
})

builder.scalarType('DateTime', {
  description: 'An instant as an ISO 8601 UTC string.',
  serialize: (v) => new Date(v).toISOString(),
  parseValue: (v) => {
    const d = typeof v === 'string' ? new Date(v) : null
    if (!d || Number.isNaN(d.getTime())) throw invalid('DateTime must be an ISO 8601 string')
    return d
  },
  parseLiteral: (ast) => {
    const d = ast.kind === Kind.STRING ? new Date(ast.value) : null
    if (!d || Number.isNaN(d.getTime())) throw invalid('DateTime must be an ISO 8601 string')
    return d
  },
})

builder.scalarType('SafeInt', {
  description: 'An integer up to 2^53 − 1 in magnitude.',
  serialize: (v) => v,
  parseValue: (v) => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw invalid('SafeInt must be a safe integer')
    return v
  },
  parseLiteral: (ast) => {
    const n = ast.kind === Kind.INT ? Number(ast.value) : NaN
    if (!Number.isSafeInteger(n)) throw invalid('SafeInt must be a safe integer')
    return n
  },
})
