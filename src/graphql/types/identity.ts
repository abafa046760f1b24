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
import { connectionCost, COST, OWN_LIST_PAGE } from '../cost.js'

export const ApiKeyScopeEnum = builder.enumType('ApiKeyScope', {
  values: { READ: { value: 'read' }, TRADE: { value: 'trade' } } as const,
})
const ApiKeyStatusEnum = builder.enumType('ApiKeyStatus', {
  values: { ACTIVE: { value: 'active' }, EXPIRED: { value: 'expired' }, REVOKED: { value: 'revoked' } } as const,
})

/** The caller, guaranteed by the field's auth level. */
function principalOf(ctx: GraphQLContext) {
  if (!ctx.principal) throw new DomainError('MISSING_CREDENTIAL')
  return ctx.principal
}

const ApiKeyRef = builder.objectRef<ApiKeyView>('ApiKey').implement({
  description: 'An API key. Its secret is shown once, by createApiKey, and never again.',
  fields: (t) => ({
    id: t.exposeString('id'),
    name: t.exposeString('name'),
    scope: t.field({ type: ApiKeyScopeEnum, resolve: (k) => k.scope }),
    allowedIps: t.exposeStringList('allowedIps', { description: 'IPv4 addresses the key may be used from; empty means any.' }),
    expiresAt: t.field({ type: 'DateTime', nullable: true, resolve: (k) => k.expiresAt }),
    createdAt: t.field({ type: 'DateTime', resolve: (k) => k.createdAt }),
    revokedAt: t.field({ type: 'DateTime', nullable: true, resolve: (k) => k.revokedAt }),
    lastUsedAt: t.field({ type: 'DateTime', nullable: true, description: 'Best effort: updated at most once a minute.', resolve: (k) => k.lastUsedAt }),
    lastUsedIp: t.exposeString('lastUsedIp', { nullable: true }),
    status: t.field({ type: ApiKeyStatusEnum, resolve: (k) => k.status }),
  }),
})

export const UserRef = builder.objectRef<UserRow>('User').implement({
  fields: (t) => ({
    id: t.exposeString('id'),
    address: t.exposeString('address', { description: 'EIP-55 checksummed wallet address.' }),
    rateTier: t.exposeInt('rateTier', { description: 'Order-rate multiple: the user may send rateTier × the standard order rate.' }),
    createdAt: t.field({ type: 'DateTime', resolve: (u) => u.createdAt }),
    apiKeys: t.connection(
      {
        nullable: true,
        type: ApiKeyRef,
        description: 'Newest first. Needs an interactive session: API keys cannot list keys.',
        authScopes: { level: 'session' },
        complexity: connectionCost(COST.apiKeys, OWN_LIST_PAGE),
        resolve: async (user, args, ctx) => {
          if (principalOf(ctx).userId !== user.id) throw new DomainError('SCOPE_INSUFFICIENT', 'Only your own keys can be listed')
          return resolveArrayConnection({ args, ...OWN_LIST_PAGE }, await ctx.services.identity.apiKeys.list(user.id))
        },
      },
      { name: 'ApiKeyConnection' },
      { name: 'ApiKeyEdge' },
    ),
  }),
})

const NonceRef = builder.objectRef<IssuedNonce>('SignInNonce').implement({
  description: 'A single-use nonce to put in an EIP-4361 sign-in message.',
  fields: (t) => ({
    nonce: t.exposeString('nonce'),
    expiresAt: t.field({ type: 'DateTime', resolve: (n) => n.expiresAt }),
  }),
})

const SessionRef = builder.objectRef<SignedIn>('Session').implement({
  description: 'A signed-in session: `token` is a JWT for `Authorization: Bearer`; over HTTP it is also set as the `session` cookie.',
  fields: (t) => ({
    token: t.exposeString('token'),
    expiresAt: t.field({ type: 'DateTime', resolve: (s) => s.expiresAt }),
    user: t.field({ type: UserRef, resolve: (s) => s.user }),
  }),
})

const CreatedApiKeyRef = builder.objectRef<{ key: ApiKeyView; secret: string }>('CreatedApiKey').implement({
  fields: (t) => ({
    secret: t.exposeString('secret', { description: 'The `svc_sk_` secret. Returned only here: store it now.' }),
    apiKey: t.field({ type: ApiKeyRef, resolve: (c) => c.key }),
  }),
})

const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    scope: t.field({ type: ApiKeyScopeEnum, required: true }),
    allowedIps: t.stringList({ description: 'IPv4 addresses; empty or omitted means any.' }),
    expiresInDays: t.int({ description: 'Days until the key expires; 0 or omitted means never.' }),
  }),
})

builder.queryField('me', (t) =>
  t.field({
    nullable: true,
    type: UserRef,
    description: 'The signed-in user (session, JWT or API key).',
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
    description: 'Issues a nonce for signIn; single use, valid for a few minutes.',
    resolve: (_root, _args, ctx) => ctx.services.identity.siwe.issueNonce(),
  }),
  signIn: t.field({
    nullable: true,
    type: SessionRef,
    description: 'Signs in with an EIP-4361 message and its signature; creates the user on first sign-in.',
    args: { message: t.arg.string({ required: true }), signature: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const session = await ctx.services.identity.signIn(args.message, args.signature)
      ctx.cookies?.set(session.token, session.expiresAt)
      return session
    },
  }),
  signOut: t.boolean({
    nullable: true,
    description: 'Ends the current session: its cookie and its JWT stop working on every node.',
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
    authScopes: { level: 'session' },
    args: { input: t.arg({ type: CreateApiKeyInput, required: true }) },
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
    description: 'Revokes one of your keys; the next request with it fails on every node. A key already revoked is KEY_ALREADY_REVOKED (409).',
    authScopes: { level: 'session' },
    args: { id: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.identity.apiKeys.revoke(principalOf(ctx).userId, args.id, ctx),
  }),
}))
