// The per-operation context every resolver receives, whatever the transport (yoga over HTTP, the REST
// executor in-process, graphql-ws).
import type { Services } from '../services/services.js'

export interface GraphQLContext {
  readonly services: Services
  readonly correlationId: string
  /** True for the REST layer's own prepared documents: trusted, so no depth or cost limits. */
  readonly internal: boolean
  /** Per-operation memo, so fields of one operation share one read (marks, lists). */
  readonly memo: Map<string, Promise<unknown>>
}

export function createContext(services: Services, correlationId: string, internal = false): GraphQLContext {
  return { services, correlationId, internal, memo: new Map() }
}

export function memoize<T>(ctx: GraphQLContext, key: string, load: () => Promise<T>): Promise<T> {
  let p = ctx.memo.get(key) as Promise<T> | undefined
  if (!p) ctx.memo.set(key, (p = load()))
  return p
}
