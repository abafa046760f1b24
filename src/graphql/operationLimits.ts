// The depth and cost limits of an external operation (GRAPHQL_MAX_DEPTH, GRAPHQL_MAX_COMPLEXITY), checked
// once before it runs, over HTTP (yoga) and WebSocket (graphql-ws) alike, with the cost model of
// src/graphql/cost.ts. A refused operation is one INVALID_REQUEST error and no resolver runs. The
// complexity plugin's own check runs inside each root field's resolver instead: with nullable root
// fields it would answer every root field with a copy of the same error (thousands for an alias bomb).
import { complexityFromQuery } from '@pothos/plugin-complexity'
import { getOperationAST, getVariableValues, GraphQLError, Kind, type DocumentNode, type ExecutionArgs } from 'graphql'
import type { GraphQLContext } from './context.js'

const refusal = (message: string) => new GraphQLError(message, { extensions: { code: 'INVALID_REQUEST', http: { status: 400 } } })

/** What an operation is charged: its cost (cost.ts) and its depth in fields. */
export function operationCost(args: ExecutionArgs): { complexity: number; depth: number } | null {
  const op = getOperationAST(args.document, args.operationName)
  // No such operation, or variables that do not coerce: execution reports it with its own message.
  if (!op) return null
  const variables = args.variableValues ?? {}
  // The plugin prices a document's first operation: give it the chosen one and the fragments.
  const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [op, ...args.document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION)] }
  try {
    const { complexity, depth } = complexityFromQuery(document, { schema: args.schema, variables, ctx: args.contextValue as object })
    return { complexity, depth }
  } catch (err) {
    // The plugin coerces the variables and throws their first error: they are coerced again only when
    // it threw (coercing them is a good part of pricing a small operation).
    if (getVariableValues(args.schema, op.variableDefinitions ?? [], variables).errors) return null
    throw err
  }
}

/** The INVALID_REQUEST error of an external operation past the limits, or null (also for REST's own documents). */
export function operationLimitError(args: ExecutionArgs): GraphQLError | null {
  const ctx = args.contextValue as GraphQLContext
  if (ctx.internal) return null
  let cost: ReturnType<typeof operationCost>
  try {
    cost = operationCost(args)
  } catch (err) {
    return refusal(err instanceof Error ? err.message : String(err))
  }
  if (!cost) return null
  const { graphqlMaxDepth: maxDepth, graphqlMaxComplexity: maxComplexity } = ctx.services.config
  if (cost.depth > maxDepth) return refusal(`Query exceeds maximum depth (depth: ${cost.depth}, max: ${maxDepth})`)
  // Fields may cost fractions of a unit: report whole units.
  if (cost.complexity > maxComplexity) return refusal(`Query exceeds maximum complexity (complexity: ${Math.ceil(cost.complexity)}, max: ${maxComplexity})`)
  return null
}
