// Sign-in and API key routes (DESIGN.md §9, SPEC.md "API key management"), each one GraphQL operation.
// Enum values travel lower case here and upper case in GraphQL.
import { z } from 'zod'
import { apiKeyRequest } from '../auth/apiKeyRequest.js'
import { namedRequest, pathId, upper } from './requestSchema.js'
import { ApiKey, CreatedApiKey, Me, Message, SignIn, SignInNonce } from './responseSchemas.js'
import { defineRoute, type RestRoute } from './route.js'
import { lower, nodes } from './shapes.js'

const KEY_FIELDS = /* GraphQL */ `
  fragment RestApiKey on ApiKey {
    id name scope allowedIps expiresAt createdAt revokedAt lastUsedAt lastUsedIp status
  }`

const restKey = (k: Record<string, any>) => ({ ...k, scope: lower(k['scope']), status: lower(k['status']) })

export const identityRoutes: RestRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/auth/nonce',
    auth: 'public',
    tag: 'Identity',
    summary: 'A sign-in nonce',
    description: 'Single use, valid for NONCE_TTL_MS (5 minutes); put it in the EIP-4361 (SIWE) message you sign.',
    response: SignInNonce,
    operation: `mutation RestNonce { signInNonce { nonce expiresAt } }`,
    shape: (data) => data['signInNonce'],
  }),
  defineRoute({
    method: 'POST',
    path: '/auth/verify',
    auth: 'public',
    tag: 'Identity',
    summary: 'Sign in with Ethereum (EIP-4361)',
    description:
      'Checks the message\'s domain (one of SIWE_DOMAINS), URI, chain id 84532, times and nonce, and the signature; answers a session JWT and sets the same session as an HttpOnly cookie. The first sign-in creates the user. Unknown or used nonce: 400 `NONCE_MISMATCH`; bad signature: 401 `INVALID_SIGNATURE`.',
    errors: ['NONCE_MISMATCH', 'INVALID_SIGNATURE'],
    body: z.object({
      message: z.string().meta({ description: 'The EIP-4361 message, as signed.' }),
      signature: z.string().meta({ description: 'The wallet\'s signature of the message (0x…).' }),
    }),
    response: SignIn,
    operation: `mutation RestSignIn($message: String!, $signature: String!) {
      signIn(message: $message, signature: $signature) { token expiresAt user { id address } } }`,
    variables: ({ body }) => body,
    shape: (data) => data['signIn'],
  }),
  defineRoute({
    method: 'POST',
    path: '/auth/logout',
    auth: 'session',
    tag: 'Identity',
    summary: 'End the session',
    description: 'The session (cookie or JWT) stops working on every node at once.',
    response: Message,
    operation: `mutation RestSignOut { signOut }`,
    shape: () => ({ message: 'Signed out' }),
  }),
  defineRoute({
    method: 'GET',
    path: '/auth/me',
    auth: 'read',
    tag: 'Identity',
    summary: 'The caller',
    description: 'User id, address, order-rate tier and when the user was created.',
    response: Me,
    operation: `query RestMe { me { id address rateTier createdAt } }`,
    shape: (data) => data['me'],
  }),
  defineRoute({
    method: 'POST',
    path: '/perps/me/api-keys',
    auth: 'session',
    status: 201,
    tag: 'Identity',
    summary: 'Create an API key',
    description:
      'Session only: a key cannot create keys. The `secret` is in this response only and cannot be retrieved later. A call from an address outside a non-empty `allowedIps` fails with 403 `IP_NOT_ALLOWED`.',
    body: namedRequest('ApiKeyRequest', apiKeyRequest),
    response: CreatedApiKey,
    operation: `mutation RestCreateApiKey($input: CreateApiKeyInput!) {
      createApiKey(input: $input) { secret apiKey { id name scope allowedIps expiresAt } } }`,
    variables: ({ body }) => ({ input: { ...body, scope: upper(body.scope) } }),
    shape: (data) => {
      const { secret, apiKey } = data['createApiKey']
      return { id: apiKey.id, secret, name: apiKey.name, scope: lower(apiKey.scope), allowedIps: apiKey.allowedIps, expiresAt: apiKey.expiresAt }
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/perps/me/api-keys',
    auth: 'session',
    tag: 'Identity',
    summary: 'The caller\'s API keys',
    description: 'Session only. Every key with its status (`active`, `expired`, `revoked`) and last use; never a secret.',
    response: z.object({ keys: z.array(ApiKey) }),
    operation: `query RestApiKeys { me { apiKeys(first: 1000) { edges { node { ...RestApiKey } } } } } ${KEY_FIELDS}`,
    shape: (data) => ({ keys: nodes(data['me'].apiKeys).map((k) => restKey(k as Record<string, any>)) }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/perps/me/api-keys/:id',
    params: z.object({ id: pathId('NOT_FOUND', 'API key id (`svc_kid_…`).') }),
    auth: 'session',
    tag: 'Identity',
    summary: 'Revoke an API key',
    description: 'Session only. The next call with the key gets 401 `KEY_REVOKED`, on every node; requests already in flight finish.',
    errors: ['KEY_ALREADY_REVOKED'],
    response: Message,
    operation: `mutation RestRevokeApiKey($id: String!) { revokeApiKey(id: $id) { id } }`,
    variables: ({ params }) => params,
    shape: (data) => ({ message: `API key ${data['revokeApiKey'].id} revoked` }),
  }),
]
