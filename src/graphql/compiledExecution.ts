// yoga's queries and mutations run compiled by graphql-jit, as REST's documents do (src/rest/executor.ts):
// execute() walks the document on every request (collecting fields, coercing arguments, completing
// values), the compiled function does not. Subscriptions stay with graphql-js (onSubscribe is left alone).
// A document is compiled the second time it runs: a client sending a stream of distinct documents costs
// one execute() each, never a compilation each. What a client sees stays graphql-js's: a result without
// data (variables that do not coerce; graphql-jit words those errors its own way) is run again by
// execute(); a result's errors come first, as graphql-js's; each error is remade as graphql-js makes it,
// with the document's source and positions (yoga serializes an error's locations from those alone).
import { GraphQLError, type DocumentNode, type ExecutionResult, type GraphQLSchema, type Source } from 'graphql'
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit'
import type { Plugin } from 'graphql-yoga'

type Compiled = CompiledQuery['query'] | null

/** Documents seen once (by operation name), then their compiled function (null: graphql-jit refused it). */
const SEEN = 'seen' as const

/** The offset in a source of a line and column (both from 1), as graphql-js counts lines. */
function positionOf(body: string, line: number, column: number): number {
  const breaks = /\r\n|[\n\r]/g
  let start = 0
  for (let l = 1; l < line; l++) {
    if (!breaks.exec(body)) break
    start = breaks.lastIndex
  }
  return start + column - 1
}

/**
 * A graphql-jit error (locations only) as graphql-js's locatedError makes it. An error of graphql-jit's
 * own (a null in a non-null field) gets an Error behind it as graphql-js gives it, so it is masked as
 * INTERNAL_ERROR and logged (./errors.ts), not taken for a request error.
 */
function located(err: GraphQLError, source: Source | undefined): GraphQLError {
  const positions = source && err.locations?.length ? err.locations.map((l) => positionOf(source.body, l.line, l.column)) : undefined
  const originalError = err.originalError ?? new Error(err.message)
  return new GraphQLError(err.message, { source: positions ? source : undefined, positions, path: err.path, originalError, extensions: err.extensions })
}

/** A compiled result in graphql-js's shape: errors first, each located. */
function asGraphqlJs(result: ExecutionResult, document: DocumentNode): ExecutionResult {
  if (!result.errors?.length) return { data: result.data }
  return { errors: result.errors.map((e) => located(e, document.loc?.source)), data: result.data }
}

export function useCompiledExecution(): Plugin {
  const bySchema = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string, Compiled | typeof SEEN>>>()
  const compiledFor = (schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): Compiled => {
    let byDocument = bySchema.get(schema)
    if (!byDocument) bySchema.set(schema, (byDocument = new WeakMap()))
    let byName = byDocument.get(document)
    if (!byName) byDocument.set(document, (byName = new Map()))
    const key = operationName ?? ''
    const known = byName.get(key)
    if (known === undefined) {
      byName.set(key, SEEN)
      return null
    }
    if (known !== SEEN) return known
    const compiled = compileQuery(schema, document, operationName ?? undefined)
    const query = isCompiledQuery(compiled) ? compiled.query : null
    byName.set(key, query)
    return query
  }
  return {
    onExecute: ({ args, executeFn, setExecuteFn }) => {
      const query = compiledFor(args.schema, args.document, args.operationName)
      if (!query) return
      setExecuteFn((a) => {
        const fallback = (result: ExecutionResult) => (result.data === undefined ? executeFn(a) : asGraphqlJs(result, a.document))
        const result = query(a.rootValue, a.contextValue, a.variableValues)
        return result instanceof Promise ? result.then(fallback) : fallback(result)
      })
    },
  }
}
