// Owns GraphQL over graphql-ws at /graphql: the caller is authenticated once, at connection_init, from
// `connectionParams.authorization` (`Bearer <jwt or svc_sk_ key>`), else the upgrade request's
// Authorization header or session cookie (the cookie only from an allowed Origin, so another site cannot
// ride a browser's session), through the same resolver as HTTP. Each operation gets the same GraphQL
// context as yoga and REST, so scope auth is checked on subscribe and errors carry the spec's codes. A
// refused credential does not refuse the connection: public fields work, private ones answer with the
// credential's own code (KEY_REVOKED, INVALID_TOKEN), as over HTTP.
//
// Fan-out: every subscriber of a stream receives the same Frame object from the hub, so the GraphQL
// result of one frame for one document and variables is executed and serialized once and shared (a book
// with a thousand subscribers executes each delta once, not a thousand times), and each subscriber's
// `next` message is written straight to its socket within the buffer limit (src/streams/socketFeed.ts).
import { createSourceEventStream, execute, GraphQLError, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql'
import { useServer } from 'graphql-ws/use/ws'
import type { WebSocket, WebSocketServer } from 'ws'
import { corsOriginAllowed } from '../auth/cors.js'
import { normalizeIp } from '../auth/ipAllowlist.js'
import { SESSION_COOKIE } from '../auth/sessionCookie.js'
import { DomainError } from '../domain/errors.js'
import { newId } from '../domain/ids.js'
import { createContext, type Caller, type GraphQLContext } from '../graphql/context.js'
import { documentLimitError } from '../graphql/documentLimits.js'
import { operationLimitError } from '../graphql/operationLimits.js'
import { toClientGraphQLError } from '../graphql/errors.js'
import type { Services } from '../services/services.js'
import type { ClientIp } from './clientIp.js'
import { SocketFeed } from './socketFeed.js'
import { FrameQueue, slowConsumer } from './subscriber.js'

interface Connection {
  caller: Caller
  correlationId: string
}

export interface GraphqlWsDeps {
  schema: GraphQLSchema
  services: Services
  clientIp: ClientIp
  parseCookie(header: string): Record<string, string | undefined>
}

const CORRELATION_ID = /^[A-Za-z0-9._:-]{8,128}$/

interface Operation {
  socket: WebSocket
  /** The graphql-ws subscription id. */
  id: string
  /** Document, operation name and variables: operations with equal keys produce equal results. */
  key: string
  correlationId: string
}

/** By GraphQL context (one per operation). */
const operations = new WeakMap<object, Operation>()
/** A result as subscribers share it: its JSON when error-free, else the result (serialized per subscriber). */
type Shared = string | ExecutionResult
/**
 * Results by frame and operation key, computed by the first subscriber and reused by the rest: the JSON
 * of an error-free result, or an execution still running. A result with errors is not kept: its errors
 * carry each connection's own correlation id.
 */
const serialized = new WeakMap<object, Map<string, string | Promise<Shared>>>()

const isPromise = <T>(v: T | Promise<T>): v is Promise<T> => typeof (v as { then?: unknown }).then === 'function'

export function serveGraphqlWs(wss: WebSocketServer, d: GraphqlWsDeps) {
  const { services } = d
  const connections = new WeakMap<WebSocket, Connection>()
  const log = services.log
  const rewrite = (errors: readonly GraphQLError[], correlationId: string) =>
    errors.map((e) => toClientGraphQLError(e instanceof GraphQLError ? e : new GraphQLError(String(e)), correlationId, log).toJSON())
  const serialize = (r: ExecutionResult, correlationId: string) =>
    JSON.stringify(r.errors?.length ? { ...r, errors: rewrite(r.errors, correlationId) } : r)

  /** The `next` payload of one frame for one operation, as JSON; shared unless it carries errors. */
  function payloadJson(args: ExecutionArgs, frame: object, op: Operation): string | Promise<string> {
    let byKey = serialized.get(frame)
    if (!byKey) serialized.set(frame, (byKey = new Map()))
    const own = (s: Shared) => (typeof s === 'string' ? s : serialize(s, op.correlationId))
    const cached = byKey.get(op.key)
    if (cached !== undefined) return isPromise(cached) ? cached.then(own) : cached
    const result = execute({ ...args, rootValue: frame })
    if (isPromise(result)) {
      const shared = result.then((r): Shared => (r.errors?.length ? r : JSON.stringify(r)))
      byKey.set(op.key, shared)
      const forget = () => byKey.delete(op.key)
      shared.then((s) => {
        if (typeof s !== 'string') forget()
      }, forget)
      return shared.then(own)
    }
    const json = serialize(result, op.correlationId)
    if (!result.errors?.length) byKey.set(op.key, json)
    return json
  }

  /**
   * The fan-out path: frames are written to the socket as the protocol's `next` messages as soon as
   * they come, within the socket's buffer limit. graphql-ws keeps the handshake, subscribe, complete,
   * error and keep-alive; the iterator it gets ends when the stream does.
   */
  function sendDirect(queue: FrameQueue, args: ExecutionArgs, op: Operation): AsyncIterableIterator<ExecutionResult> {
    const prefix = `{"id":${JSON.stringify(op.id)},"type":"next","payload":`
    const at = 'graphqlWs#sendDirect'
    const feed = new SocketFeed(
      op.socket,
      services.config.streamMaxBufferBytes,
      queue.stream?.resync ?? null,
      (bufferedAmount) => {
        log.info({ at, bufferedAmount }, 'slow stream consumer disconnected')
        queue.end(slowConsumer())
      },
      (bufferedAmount) => log.info({ at, bufferedAmount }, 'slow stream consumer conflated'),
    )
    const write = (json: string) => feed.send(prefix + json + '}')
    // Results are written in frame order; an asynchronous one holds the ones after it.
    let pending: Promise<void> | null = null
    const ended = queue.direct((frame) => {
      const json = payloadJson(args, frame, op)
      if (pending === null && !isPromise(json)) return write(json)
      const prev: Promise<unknown> = pending ?? Promise.resolve()
      pending = prev.then(() => json).then(write, (err: unknown) => queue.end(err))
    })
    const done = ended.finally(() => feed.close())
    done.catch(() => {})
    return {
      next: () => done.then(() => ({ value: undefined, done: true as const })),
      return: () => {
        queue.end()
        return Promise.resolve({ value: undefined, done: true as const })
      },
      throw: (err: unknown) => {
        queue.end()
        return Promise.reject(err)
      },
      [Symbol.asyncIterator]() {
        return this
      },
    }
  }

  /**
   * graphql's subscribe(), on the fan-out path only: every subscription field opens its stream through
   * frameIterator (src/graphql/types/subscriptions.ts), so any other source is a bug, closed and refused.
   */
  async function subscribe(args: ExecutionArgs): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
    const refused = operationLimitError(args)
    if (refused) return { errors: [refused] }
    const source = await createSourceEventStream(args)
    if (!(Symbol.asyncIterator in source)) return source
    const op = operations.get(args.contextValue as object)
    if (op && source instanceof FrameQueue) return sendDirect(source, args, op)
    await (source as AsyncIterableIterator<unknown>).return?.()
    return { errors: [new GraphQLError('The subscription source is not a stream of src/streams')] }
  }

  return useServer<Record<string, unknown> | undefined>(
    {
      schema: d.schema,
      onConnect: async (ctx) => {
        const req = ctx.extra.request
        const given = ctx.connectionParams?.['authorization'] ?? ctx.connectionParams?.['Authorization']
        const origin = req.headers.origin
        const cookieOk = origin === undefined || corsOriginAllowed(origin, services.config)
        const ip = d.clientIp(req)
        const userAgent = req.headers['user-agent'] ?? null
        const credential = await services.identity.credentials.resolve({
          authorization: typeof given === 'string' ? given : req.headers.authorization,
          sessionCookie: cookieOk && req.headers.cookie ? d.parseCookie(req.headers.cookie)[SESSION_COOKIE] : undefined,
          ip,
          userAgent,
        })
        const header = req.headers['x-correlation-id']
        const correlationId = typeof header === 'string' && CORRELATION_ID.test(header) ? header : newId()
        connections.set(ctx.extra.socket, { caller: { credential, ip: normalizeIp(ip), userAgent, cookies: null }, correlationId })
        return true
      },
      context: (ctx, id, payload): GraphQLContext => {
        const c = connections.get(ctx.extra.socket)!
        const context = createContext(services, c.correlationId, false, c.caller)
        const key = `${payload.operationName ?? ''}\n${payload.query}\n${JSON.stringify(payload.variables ?? null)}`
        operations.set(context, { socket: ctx.extra.socket, id, key, correlationId: c.correlationId })
        return context
      },
      onSubscribe: (ctx, _id, payload) => {
        // graphql-ws holds every operation of the socket, this one included, from its subscribe message
        // until it completes (a subscription while it opens too): at most WS_MAX_SUBSCRIPTIONS, as on
        // the /ws sockets. The refused one gets an `error` message; the socket and the others go on.
        const max = services.config.wsMaxSubscriptions
        if (Object.keys(ctx.subscriptions).length > max) {
          return [new GraphQLError(`At most ${max} subscriptions per socket`, { originalError: new DomainError('INVALID_REQUEST', `At most ${max} subscriptions per socket`) })]
        }
        // A document past the limits is refused before graphql-ws parses it (deep ones overflow the stack).
        const refused = documentLimitError(payload.query)
        return refused ? [refused] : undefined
      },
      subscribe,
      // Queries and mutations: within the depth and cost limits, as over HTTP.
      execute: (args) => {
        const refused = operationLimitError(args)
        return refused ? { errors: [refused] } : execute(args)
      },
      onNext: (ctx, _id, _payload, _args, result) => {
        if (!result.errors?.length) return undefined
        const c = connections.get(ctx.extra.socket)
        return { ...result, errors: rewrite(result.errors, c?.correlationId ?? newId()) }
      },
      onError: (ctx, _id, _payload, errors) => rewrite(errors, connections.get(ctx.extra.socket)?.correlationId ?? newId()),
    },
    wss,
  )
}
