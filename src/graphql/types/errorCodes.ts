// The error vocabulary in the schema: an ErrorCode enum generated from the one error table
// (src/domain/errors.ts), each value described with its HTTP status, family and meaning. Errors keep
// carrying the code as the string `extensions.code` (GraphQL) and `code` (REST); the enum is where a
// client finds every code it may meet, and the type of the fields that report a code as data.
import { ERRORS, type ErrorCode } from '../../domain/errors.js'
import { builder } from '../builder.js'

/** A code's meaning as a sentence: `Initial margin too low.` */
export const errorMeaning = (code: ErrorCode) => (/[.!?]$/.test(ERRORS[code].message) ? ERRORS[code].message : `${ERRORS[code].message}.`)

/** `HTTP 422 · MarginError. Initial margin too low.` */
export function errorCodeDescription(code: ErrorCode): string {
  return `HTTP ${ERRORS[code].status} · ${ERRORS[code].family}. ${errorMeaning(code)}`
}

export const ErrorCodeEnum = builder.enumType('ErrorCode', {
  description:
    'Every error code the API answers. A failed GraphQL field is null with an entry in `errors` whose `extensions` hold `code` (one of these), `status` (the HTTP status REST answers with), `correlationId` and sometimes `details`; REST answers that status with `{error, code, message, details?}`. Each value says its status, family and meaning.',
  values: Object.fromEntries((Object.keys(ERRORS) as ErrorCode[]).map((code) => [code, { value: code, description: errorCodeDescription(code) }])) as {
    [C in ErrorCode]: { value: C; description: string }
  },
})
