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
    DateTime: { Input: Date; Output: Date | number | string }
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
    edgesFieldOptions: { nullable: false, description: 'The items of this page, in the list\'s order.' },
    nodeFieldOptions: { nullable: false, description: 'The item.' },
    cursorFieldOptions: { description: 'Opaque position of this item: pass it as `after` (or `before`) to page from here.' },
    pageInfoFieldOptions: { description: 'Where this page sits in the list, and the cursors to page on.' },
    pageInfoTypeOptions: { description: 'Paging state of a connection (Relay cursor connections). Cursors are opaque strings.' },
    hasNextPageFieldOptions: { description: 'More items follow this page: ask again with `after: endCursor`.' },
    hasPreviousPageFieldOptions: { description: 'Items precede this page (always false on lists that page forward only).' },
    startCursorFieldOptions: { description: 'Cursor of the first item of the page; null when the page is empty.' },
    endCursorFieldOptions: { description: 'Cursor of the last item of the page; null when the page is empty.' },
    firstArgOptions: { description: 'Page size: at most this many items from the start (or after `after`); the connection type says the default and the maximum.' },
    afterArgOptions: { description: 'Items after this cursor (an `endCursor` or edge `cursor` of an earlier page).' },
    lastArgOptions: { description: 'At most this many items from the end (or before `before`).' },
    beforeArgOptions: { description: 'Items before this cursor (a `startCursor` or edge `cursor` of a later page).' },
    nodeQueryOptions: false,
    nodesQueryOptions: false,
  },
  complexity: {
    // A field without a charge of its own costs what cost.ts measured for its kind (leaf, object, list).
    fieldComplexity: (_args, _ctx, field) => defaultFieldCost(field.type),
    // No `limit`: src/graphql/operationLimits.ts checks each external operation once, before it runs.
  },
})

builder.queryType({ description: 'Reads: public market data, and the caller\'s account under `me`. Each REST GET runs one of these.' })
builder.mutationType({ description: 'Writes: sign-in and keys, orders and quotes, wallet moves, market-maker protection. Each REST POST or DELETE runs one of these.' })
builder.subscriptionType({
  description: 'Live streams over graphql-ws (ws://…/graphql) or SSE: the SPEC.md streams with the same envelope (StreamEvent). Snapshot streams start with a snapshot; event streams replay from `fromSeq` while the 5,000-frame buffer holds it.',
})
