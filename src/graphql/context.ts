// The per-operation context every resolver receives, whatever the transport (yoga over HTTP, the REST
// executor in-process, graphql-ws): the node's services and who is calling, resolved once per request.
import { RequestCache } from '@pothos/plugin-scope-auth'
import { NO_CREDENTIAL, type CredentialResult, type Principal } from '../auth/principal.js'
import type { SessionCookies } from '../auth/sessionCookie.js'
import type { Services } from '../services/services.js'

/** Who sent a request and how to answer it, as the HTTP layer found it. */
export interface Caller {
  readonly credential: CredentialResult
  readonly ip: string
  readonly userAgent: string | null
  /** Sets and clears the session cookie; null where the transport has no cookies. */
  readonly cookies: SessionCookies | null
}

export interface GraphQLContext {
  readonly services: Services
  readonly correlationId: string
  /** True for the REST layer's own prepared documents: trusted, so no depth or cost limits. */
  readonly internal: boolean
  /** Per-operation memo, so fields of one operation share one read (marks, lists). */
  readonly memo: Map<string, Promise<unknown>>
  /** The authenticated caller, or null (no credential, or one that was refused: see credential). */
  readonly principal: Principal | null
  /** The whole credential check, with why a presented credential was refused; only fields that need a
   *  credential report that refusal. */
  readonly credential: CredentialResult
  readonly ip: string
  readonly userAgent: string | null
  readonly cookies: SessionCookies | null
}

const ANONYMOUS: Caller = { credential: NO_CREDENTIAL, ip: '', userAgent: null, cookies: null }

export function createContext(services: Services, correlationId: string, internal = false, caller: Caller = ANONYMOUS): GraphQLContext {
  return {
    services,
    correlationId,
    internal,
    memo: new Map(),
    principal: caller.credential.principal,
    credential: caller.credential,
    ip: caller.ip,
    userAgent: caller.userAgent,
    cookies: caller.cookies,
  }
}

/**
 * Ends an operation's context: drops the scope cache Pothos keeps for it in a WeakMap. V8's young-generation
 * collections keep a WeakMap's entries alive until a full collection, and with the cache the context and
 * all it reaches (the request, the reply, the answer): every REST request's objects were copied and
 * promoted to the old generation instead of dying young (docs/decisions.md D-225). Only once nothing
 * resolves with the context any more: a later field would build the cache again, checking every scope anew.
 */
export function endContext(ctx: object): void {
  RequestCache.clearForContext(ctx)
}

export function memoize<T>(ctx: GraphQLContext, key: string, load: () => Promise<T>): Promise<T> {
  let p = ctx.memo.get(key) as Promise<T> | undefined
  if (!p) ctx.memo.set(key, (p = load()))
  return p
}
