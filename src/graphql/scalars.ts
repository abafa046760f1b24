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

const CANONICAL_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

/**
 * An instant as DateTime answers it: `toISOString()` of the Date it names. A string already in that
 * form (a valid date and time of a four-digit year, milliseconds, `Z`: what every ISO string the engine
 * and the stores hand over looks like) is its own answer, without a Date parsed and printed again;
 * anything else goes through a Date, so it answers exactly as before (an invalid one throws RangeError).
 */
export function serializeInstant(v: Date | number | string): string {
  if (v instanceof Date) return v.toISOString()
  if (typeof v === 'string') {
    const m = CANONICAL_INSTANT.exec(v)
    if (m) {
      const year = Number(m[1])
      const month = Number(m[2])
      const day = Number(m[3])
      const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      if (month >= 1 && month <= 12 && day >= 1 && day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!)) return v
    }
  }
  return new Date(v).toISOString()
}

builder.scalarType('DateTime', {
  description: 'An instant as an ISO 8601 UTC string.',
  serialize: serializeInstant,
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
