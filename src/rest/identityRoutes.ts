// Sign-in and API key routes (DESIGN.md §9, SPEC.md "API key management"), each one GraphQL operation.
// Enum values travel lower case here and upper case in GraphQL.
import { parseApiKeyRequest } from '../auth/apiKeyRequest.js'
import { DomainError } from '../domain/errors.js'
import type { RestRoute } from './route.js'
import { lower, nodes } from './shapes.js'

const KEY_FIELDS = /* GraphQL */ `
  fragment RestApiKey on ApiKey {
    id name scope allowedIps expiresAt createdAt revokedAt lastUsedAt lastUsedIp status
  }`

const restKey = (k: Record<string, any>) => ({ ...k, scope: lower(k['scope']), status: lower(k['status']) })

function body(req: { body: unknown }): Record<string, unknown> {
  const b = req.body
  if (typeof b !== 'object' || b === null || Array.isArray(b)) throw new DomainError('INVALID_REQUEST', 'Request body must be a JSON object')
  return b as Record<string, unknown>
}

export const identityRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/auth/nonce',
    auth: 'public',
    operation: `mutation RestNonce { signInNonce { nonce expiresAt } }`,
    shape: (data) => data['signInNonce'],
  },
  {
    method: 'POST',
    path: '/auth/verify',
    auth: 'public',
    operation: `mutation RestSignIn($message: String!, $signature: String!) {
      signIn(message: $message, signature: $signature) { token expiresAt user { id address } } }`,
    variables: (req) => {
      const { message, signature } = body(req)
      if (typeof message !== 'string' || typeof signature !== 'string') {
        throw new DomainError('INVALID_REQUEST', 'message and signature are required strings')
      }
      return { message, signature }
    },
    shape: (data) => data['signIn'],
  },
  {
    method: 'POST',
    path: '/auth/logout',
    auth: 'session',
    operation: `mutation RestSignOut { signOut }`,
    shape: () => ({ message: 'Signed out' }),
  },
  {
    method: 'GET',
    path: '/auth/me',
    auth: 'read',
    operation: `query RestMe { me { id address rateTier createdAt } }`,
    shape: (data) => data['me'],
  },
  {
    method: 'POST',
    path: '/perps/me/api-keys',
    auth: 'session',
    status: 201,
    operation: `mutation RestCreateApiKey($input: CreateApiKeyInput!) {
      createApiKey(input: $input) { secret apiKey { id name scope allowedIps expiresAt } } }`,
    // Validated here too, so REST names REST's own fields (lower-case scope) in details.issues.
    variables: (req) => {
      const r = parseApiKeyRequest(req.body)
      return { input: { ...r, scope: r.scope.toUpperCase() } }
    },
    shape: (data) => {
      const { secret, apiKey } = data['createApiKey']
      return { id: apiKey.id, secret, name: apiKey.name, scope: lower(apiKey.scope), allowedIps: apiKey.allowedIps, expiresAt: apiKey.expiresAt }
    },
  },
  {
    method: 'GET',
    path: '/perps/me/api-keys',
    auth: 'session',
    operation: `query RestApiKeys { me { apiKeys(first: 1000) { edges { node { ...RestApiKey } } } } } ${KEY_FIELDS}`,
    shape: (data) => ({ keys: nodes(data['me'].apiKeys).map((k) => restKey(k as Record<string, any>)) }),
  },
  {
    method: 'DELETE',
    path: '/perps/me/api-keys/:id',
    params: { id: { notFound: 'NOT_FOUND' } },
    auth: 'session',
    operation: `mutation RestRevokeApiKey($id: String!) { revokeApiKey(id: $id) { id } }`,
    variables: (req) => ({ id: req.params['id'] }),
    shape: (data) => ({ message: `API key ${data['revokeApiKey'].id} revoked` }),
  },
]
