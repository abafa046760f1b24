// Owns the validation of an API key creation request, shared by REST (POST /perps/me/api-keys) and
// GraphQL (createApiKey) so both refuse the same inputs with 400 INVALID_REQUEST and `details.issues`.
import { z } from 'zod'
import { DomainError } from '../domain/errors.js'
import { requestIssues } from '../domain/requestIssues.js'
import { isAllowlistEntry, MAX_ALLOWED_IPS } from './ipAllowlist.js'

/** Ten years: long enough for any integration, short enough that a date stays in range. */
export const MAX_EXPIRES_IN_DAYS = 3_650

// Strict: an unknown field is refused, so a typo such as `allowedIP` cannot silently create a key
// usable from anywhere.
export const apiKeyRequest = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1, 'name is required')
    .max(64, 'name is at most 64 characters')
    // PostgreSQL text cannot hold NUL, and no name needs a control character.
    .refine((s) => !/\p{Cc}/u.test(s), 'name may not contain control characters'),
  scope: z.enum(['read', 'trade']),
  allowedIps: z
    .array(z.string().refine(isAllowlistEntry, 'must be an IPv4 address such as 203.0.113.7'))
    .max(MAX_ALLOWED_IPS, `at most ${MAX_ALLOWED_IPS} addresses`)
    .default([])
    .transform((ips) => [...new Set(ips)]),
  expiresInDays: z.number().int().min(0).max(MAX_EXPIRES_IN_DAYS).default(0),
})

export type ApiKeyRequest = z.output<typeof apiKeyRequest>

export function parseApiKeyRequest(input: unknown): ApiKeyRequest {
  const r = apiKeyRequest.safeParse(input)
  if (!r.success) throw new DomainError('INVALID_REQUEST', 'Invalid API key request', { issues: requestIssues(r.error) })
  return r.data
}
