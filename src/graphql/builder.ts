// The Pothos builder: plugins and scalar typing only; types live in graphql/types/*, one file per area.
import SchemaBuilder from '@pothos/core'
import ComplexityPlugin from '@pothos/plugin-complexity'
import RelayPlugin from '@pothos/plugin-relay'
import type { GraphQLContext } from './context.js'

const UNLIMITED = { complexity: Number.MAX_SAFE_INTEGER, depth: 1_000, breadth: Number.MAX_SAFE_INTEGER }

export const builder = new SchemaBuilder<{
  Context: GraphQLContext
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
  plugins: [RelayPlugin, ComplexityPlugin],
  relay: {
    edgesFieldOptions: { nullable: false },
    nodeFieldOptions: { nullable: false },
    nodeQueryOptions: false,
    nodesQueryOptions: false,
  },
  complexity: {
    defaultComplexity: 1,
    defaultListMultiplier: 10,
    limit: (ctx) =>
      ctx.internal
        ? UNLIMITED
        : {
            complexity: ctx.services.config.graphqlMaxComplexity,
            depth: ctx.services.config.graphqlMaxDepth,
            breadth: Number.MAX_SAFE_INTEGER,
          },
  },
})

builder.queryType({})
