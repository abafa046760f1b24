// Identity: sign-in with Ethereum, sessions, the caller's user and API keys (SPEC.md "Authentication",
// "API key management"). Access levels are the REST table's: sign-in is public, `me` needs any
// credential, everything about keys needs an interactive session.
import { resolveArrayConnection } from '@pothos/plugin-relay'
import { parseApiKeyRequest } from '../../auth/apiKeyRequest.js'
import type { ApiKeyView } from '../../auth/apiKeyStore.js'
import type { IssuedNonce } from '../../auth/siwe.js'
import type { SignedIn } from '../../auth/identity.js'
import type { UserRow } from '../../auth/users.js'
import { DomainError } from '../../domain/errors.js'
import { builder } from '../builder.js'
import type { GraphQLContext } from '../context.js'
import { countedConnection } from '../connections.js'
import { connectionCost, COST, OWN_LIST_PAGE } from '../cost.js'

export const ApiKeyScopeEnum = builder.enumType('ApiKeyScope', {
  description: 'What an API key may do. Neither scope manages keys (that needs a session). REST writes `read` or `trade`.',
  values: {
    READ: { value: 'read', description: 'Public data and every read of the account (queries, GETs, subscriptions).' },
    TRADE: { value: 'trade', description: 'Everything READ may, plus orders, quotes, cancels, transfers, withdrawals and the faucet.' },
  } as const,
})
const ApiKeyStatusEnum = builder.enumType('ApiKeyStatus', {
  description: 'Whether a key still works. REST writes these in lower case.',
  values: {
    ACTIVE: { value: 'active', description: 'Works.' },
    EXPIRED: { value: 'expired', description: 'Past its expiresAt: refused with INVALID_TOKEN.' },
    REVOKED: { value: 'revoked', description: 'Revoked: refused with KEY_REVOKED.' },
  } as const,
})

/** The caller, guaranteed by the field's auth level. */
function principalOf(ctx: GraphQLContext) {
  if (!ctx.principal) throw new DomainError('MISSING_CREDENTIAL')
  return ctx.principal
}

const ApiKeyRef = builder.objectRef<ApiKeyView>('ApiKey').implement({
  description: 'An API key. Its secret is shown once, by createApiKey, and never again.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The public key id, `svc_kid_` and 16 characters (DELETE /perps/me/api-keys/{id} takes it).' }),
    name: t.exposeString('name', { description: 'The caller\'s label for it.' }),
    scope: t.field({ type: ApiKeyScopeEnum, description: 'What it may do.', resolve: (k) => k.scope }),
    allowedIps: t.exposeStringList('allowedIps', { description: 'IPv4 addresses the key may be used from; empty means any (IP_NOT_ALLOWED otherwise).' }),
    expiresAt: t.field({ type: 'DateTime', nullable: true, description: 'When it stops working; null: never.', resolve: (k) => k.expiresAt }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was created.', resolve: (k) => k.createdAt }),
    revokedAt: t.field({ type: 'DateTime', nullable: true, description: 'When it was revoked; null while not revoked.', resolve: (k) => k.revokedAt }),
    lastUsedAt: t.field({ type: 'DateTime', nullable: true, description: 'Best effort: updated at most once a minute; null before its first use.', resolve: (k) => k.lastUsedAt }),
    lastUsedIp: t.exposeString('lastUsedIp', { nullable: true, description: 'The address of its last use (best effort); null before its first use.' }),
    status: t.field({ type: ApiKeyStatusEnum, description: 'Active, expired or revoked.', resolve: (k) => k.status }),
  }),
})

const ApiKeyConnectionRef = countedConnection(ApiKeyRef, 'ApiKey', 'API keys', OWN_LIST_PAGE)

export const UserRef = builder.objectRef<UserRow>('User').implement({
  description: 'The signed-in user and, under it, everything of the caller\'s account (only the caller\'s own: `me`).',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The user id, a ULID.' }),
    address: t.exposeString('address', { description: 'EIP-55 checksummed wallet address.' }),
    rateTier: t.exposeInt('rateTier', { description: 'Order-rate multiple: the user may send rateTier × the standard order rate.' }),
    createdAt: t.field({ type: 'DateTime', description: 'When the user first signed in.', resolve: (u) => u.createdAt }),
    apiKeys: t.connection(
      {
        nullable: true,
        type: ApiKeyRef,
        description: 'The caller\'s API keys, newest first. Needs an interactive session: API keys cannot list keys. REST: GET /perps/me/api-keys.',
        authScopes: { level: 'session' },
        complexity: connectionCost(COST.apiKeys, OWN_LIST_PAGE),
        resolve: async (user, args, ctx) => {
          if (principalOf(ctx).userId !== user.id) throw new DomainError('SCOPE_INSUFFICIENT', 'Only your own keys can be listed')
          return resolveArrayConnection({ args, ...OWN_LIST_PAGE }, await ctx.services.identity.apiKeys.list(user.id))
        },
      },
      ApiKeyConnectionRef,
    ),
  }),
})

const NonceRef = builder.objectRef<IssuedNonce>('SignInNonce').implement({
  description: 'A single-use nonce to put in an EIP-4361 sign-in message.',
  fields: (t) => ({
    nonce: t.exposeString('nonce', { description: 'The nonce to put in the message\'s Nonce field.' }),
    expiresAt: t.field({ type: 'DateTime', description: 'When it stops being accepted.', resolve: (n) => n.expiresAt }),
  }),
})

const SessionRef = builder.objectRef<SignedIn>('Session').implement({
  description: 'A signed-in session: `token` is a JWT for `Authorization: Bearer`; over HTTP it is also set as the `session` cookie.',
  fields: (t) => ({
    token: t.exposeString('token', { description: 'The session JWT: send it as `Authorization: Bearer <token>`.' }),
    expiresAt: t.field({ type: 'DateTime', description: 'When the session ends.', resolve: (s) => s.expiresAt }),
    user: t.field({ type: UserRef, description: 'The user signed in.', resolve: (s) => s.user }),
  }),
})

const CreatedApiKeyRef = builder.objectRef<{ key: ApiKeyView; secret: string }>('CreatedApiKey').implement({
  description: 'A new API key with its secret.',
  fields: (t) => ({
    secret: t.exposeString('secret', { description: 'The `svc_sk_` secret, for `Authorization: Bearer`. Returned only here: store it now.' }),
    apiKey: t.field({ type: ApiKeyRef, description: 'The key\'s record.', resolve: (c) => c.key }),
  }),
})

const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', {
  description: 'A new API key (REST POST /perps/me/api-keys takes the same fields).',
  fields: (t) => ({
    name: t.string({ required: true, description: 'A label for it.' }),
    scope: t.field({ type: ApiKeyScopeEnum, required: true, description: 'What it may do.' }),
    allowedIps: t.stringList({ description: 'IPv4 addresses; empty or omitted means any.' }),
    expiresInDays: t.int({ description: 'Days until the key expires; 0 or omitted means never.' }),
  }),
})

builder.queryField('me', (t) =>
  t.field({
    nullable: true,
    type: UserRef,
    description: 'The signed-in user (session, JWT or API key) and the account reads under it; MISSING_CREDENTIAL without a credential. REST: GET /auth/me.',
    authScopes: { level: 'read' },
    complexity: COST.me,
    resolve: async (_root, _args, ctx) => {
      const user = await ctx.services.identity.users.byId(principalOf(ctx).userId)
      if (!user) throw new DomainError('INVALID_TOKEN', 'The credential names no user')
      return user
    },
  }),
)

builder.mutationFields((t) => ({
  signInNonce: t.field({
    nullable: true,
    type: NonceRef,
    description: 'Issues a nonce for signIn; single use, valid for a few minutes (NONCE_TTL_MS). REST: GET /auth/nonce.',
    resolve: (_root, _args, ctx) => ctx.services.identity.siwe.issueNonce(),
  }),
  signIn: t.field({
    nullable: true,
    type: SessionRef,
    description: 'Signs in with an EIP-4361 (SIWE) message and its signature; creates the user on first sign-in. Over HTTP it also sets the `session` cookie. NONCE_MISMATCH or INVALID_SIGNATURE when refused. REST: POST /auth/verify.',
    args: {
      message: t.arg.string({ required: true, description: 'The EIP-4361 message, for a domain the server accepts (SIWE_DOMAINS) and with a nonce from signInNonce.' }),
      signature: t.arg.string({ required: true, description: 'The wallet\'s signature of the message, 0x-prefixed hex.' }),
    },
    resolve: async (_root, args, ctx) => {
      const session = await ctx.services.identity.signIn(args.message, args.signature)
      ctx.cookies?.set(session.token, session.expiresAt)
      return session
    },
  }),
  signOut: t.boolean({
    nullable: true,
    description: 'Ends the current session: its cookie and its JWT stop working on every node. True when done. REST: POST /auth/logout.',
    authScopes: { level: 'session' },
    resolve: async (_root, _args, ctx) => {
      const { sessionId } = principalOf(ctx)
      if (sessionId) await ctx.services.identity.sessions.end(sessionId)
      ctx.cookies?.clear()
      return true
    },
  }),
  createApiKey: t.field({
    nullable: true,
    type: CreatedApiKeyRef,
    description: 'Creates an API key for the caller; needs an interactive session (SCOPE_INSUFFICIENT with a key). REST: POST /perps/me/api-keys.',
    authScopes: { level: 'session' },
    args: { input: t.arg({ type: CreateApiKeyInput, required: true, description: 'The key.' }) },
    resolve: (_root, { input }, ctx) =>
      ctx.services.identity.apiKeys.create(
        principalOf(ctx).userId,
        parseApiKeyRequest({
          name: input.name,
          scope: input.scope,
          allowedIps: input.allowedIps ?? undefined,
          expiresInDays: input.expiresInDays ?? undefined,
        }),
        ctx,
      ),
  }),
  revokeApiKey: t.field({
    nullable: true,
    type: ApiKeyRef,
    description: 'Revokes one of your keys; the next request with it fails on every node. A key already revoked is KEY_ALREADY_REVOKED (409). REST: DELETE /perps/me/api-keys/{id}.',
    authScopes: { level: 'session' },
    args: { id: t.arg.string({ required: true, description: 'The key id (`svc_kid_…`).' }) },
    resolve: (_root, args, ctx) => ctx.services.identity.apiKeys.revoke(principalOf(ctx).userId, args.id, ctx),
  }),
}))
