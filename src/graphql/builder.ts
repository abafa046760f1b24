// The Pothos builder: plugins and scalar typing only; types live in graphql/types/*, one file per area.
// Access control is scope-auth with one scope, `level`, taking the same AuthLevel as the REST route
// table (public, read, trade, session), checked against the request's principal.
import SchemaBuilder from '@pothos/core'
import ComplexityPlugin from '@pothos/plugin-complexity'
import RelayPlugin from '@pothos/plugin-relay'
import ScopeAuthPlugin, { AuthScopeFailureType, type AuthFailure } from '@pothos/plugin-scope-auth'
import { permits, refusal, type AuthLevel } from '../auth/principal.js'
import { DomainError } from '../domain/errors.js'
import type { GraphQLContext } from './context.js'
import { defaultFieldCost } from './cost.js'

/** The level a failed check asked for (the highest, should a field combine several). */
function requiredLevel(failure: AuthFailure): AuthLevel {
  if (failure.kind === AuthScopeFailureType.AuthScope && failure.scope === 'level') return failure.parameter as AuthLevel
  if (failure.kind === AuthScopeFailureType.AnyAuthScopes || failure.kind === AuthScopeFailureType.AllAuthScopes) {
    const levels = failure.failures.map(requiredLevel)
    return levels.includes('session') ? 'session' : levels.includes('trade') ? 'trade' : 'read'
  }
  return 'read'
}

export const builder = new SchemaBuilder<{
  Context: GraphQLContext
  AuthScopes: { level: AuthLevel }
  Scalars: {
    Decimal: { Input: string; Output: string }
    DateTime: { Input: Date; Output: Date | number }
    SafeInt: { Input: number; Output: number }
  }
  DefaultFieldNullability: false
  DefaultEdgesNullability: false
  DefaultNodeNullability: false
}>({
  defaultFieldNullability: false,
  // Scope auth first, so no other plugin's wrapper runs before a field is authorized.
  plugins: [ScopeAuthPlugin, RelayPlugin, ComplexityPlugin],
  scopeAuth: {
    authorizeOnSubscribe: true,
    authScopes: (ctx) => ({ level: (level) => permits(ctx.principal, level) }),
    // The spec's codes: the presented credential's own refusal, else MISSING_CREDENTIAL or SCOPE_INSUFFICIENT.
    unauthorizedError: (_parent, ctx, _info, result) =>
      refusal(ctx.credential, requiredLevel(result.failure)) ?? new DomainError('SCOPE_INSUFFICIENT'),
  },
  relay: {
    edgesFieldOptions: { nullable: false },
    nodeFieldOptions: { nullable: false },
    nodeQueryOptions: false,
    nodesQueryOptions: false,
  },
  complexity: {
    // A field without a charge of its own costs what cost.ts measured for its kind (leaf, object, list).
    fieldComplexity: (_args, _ctx, field) => defaultFieldCost(field.type),
    // No `limit`: src/graphql/operationLimits.ts checks each external operation once, before it runs.
  },
})

builder.queryType({})
builder.mutationType({})
builder.subscriptionType({})
