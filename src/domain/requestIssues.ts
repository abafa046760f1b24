// The `details.issues` of a 400 INVALID_REQUEST (DESIGN.md §11), one shape wherever a request is
// checked against a schema (REST routes, API key requests, operator routes): a flat list, each issue
// naming the field by its path in the request, what was wrong (zod's issue code) and a sentence.
import type { z } from 'zod'

export interface RequestIssue {
  /** Keys and indexes from the validated value to the field, e.g. `["quotes", 0, "price"]`; `[]` is the value itself. */
  path: Array<string | number>
  /** zod's issue code: `invalid_type`, `invalid_value`, `unrecognized_keys`, `too_big`, … */
  code: string
  message: string
  /** The unknown fields, for `unrecognized_keys`. */
  keys?: string[]
}

export function requestIssues(error: z.ZodError): RequestIssue[] {
  return error.issues.map((i) => ({
    path: i.path.map((k) => (typeof k === 'symbol' ? String(k) : k)),
    code: i.code,
    message: i.message,
    ...(i.code === 'unrecognized_keys' ? { keys: i.keys } : {}),
  }))
}

/** `quotes.0.price: Invalid input…`, the issue as one line for a message. */
export const issueLine = (i: RequestIssue): string => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message)
