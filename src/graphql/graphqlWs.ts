// Owns GraphQL over graphql-ws at /graphql: the caller is authenticated once, at connection_init, from
// `connectionParams.authorization` (`Bearer <jwt or svc_sk_ key>`), else the upgrade request's
// Authorization header or session cookie (the cookie only from an allowed Origin, so another site cannot
// ride a browser's session), through the same resolver as HTTP. Each operation gets the same GraphQL
// context as yoga and REST, so scope auth is checked on subscribe and errors carry the spec's codes. A
// refused credential does not refuse the connection: public fields work, private ones answer with the
// credential's own code (KEY_REVOKED, INVALID_TOKEN), as over HTTP.
//
// Fan-out: every subscriber of a stream receives the same Frame object from the hub, so the GraphQL
// result of one frame for one document and variables is executed and serialized (to UTF-8 bytes) once
// and shared (a book with a thousand subscribers executes each delta once, not a thousand times); each
// subscriber's `next` message is its own id's head and those bytes, written straight to its socket
// within the buffer limit (src/streams/socketFeed.ts).
import { createSourceEventStream, execute, GraphQLError, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql'
import { useServer } from 'graphql-ws/use/ws'
import type { WebSocket, WebSocketServer } from 'ws'
import { corsOriginAllowed } from '../auth/cors.js'
import { normalizeIp } from '../auth/ipAllowlist.js'
import { SESSION_COOKIE } from '../auth/sessionCookie.js'
import { DomainError } from '../domain/errors.js'
import { newId } from '../domain/ids.js'
import { createContext, type Caller, type GraphQLContext } from './context.js'
import { documentLimitError } from './documentLimits.js'
import { operationLimitError } from './operationLimits.js'
import { errorCode, toClientGraphQLError } from './errors.js'
import type { Services } from '../services/services.js'
import type { ClientIp } from '../streams/clientIp.js'
import { slowConsumer } from '../streams/slowConsumer.js'
import { SocketFeed } from '../streams/socketFeed.js'
import { FrameQueue } from './frameQueue.js'

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

/**
 * A `next` payload with the message's closing brace: its text, and whether it is all ASCII (checked once
 * for every subscriber it goes to: then each message is written as a string, see SocketFeed.sendAscii);
 * otherwise its UTF-8 bytes, encoded on first use and shared.
 */
interface Body {
  readonly text: string
  readonly ascii: boolean
  bytes: Buffer | null
}

const bodyOf = (text: string): Body => ({ text, ascii: Buffer.byteLength(text) === text.length, bytes: null })

/** A frame's result, and its `next` payload when error-free. */
interface Output {
  result: ExecutionResult
  /** Null when the result has errors: those carry each connection's own correlation id. */
  body: Body | null
}

/**
 * The subscriptions of one key (document, operation name, variables) on this node: they all get the
 * same frames from the hub in the same order, so the last frame's output, computed by the first of them
 * to receive it, serves the rest (a frame goes to all of them before the next one arrives).
 */
interface Shared {
  frame: object | null
  output: Output | Promise<Output> | null
  users: number
}

const isPromise = <T>(v: T | Promise<T>): v is Promise<T> => typeof (v as { then?: unknown }).then === 'function'

const outputOf = (result: ExecutionResult): Output => ({ result, body: result.errors?.length ? null : bodyOf(`${JSON.stringify(result)}}`) })

export function serveGraphqlWs(wss: WebSocketServer, d: GraphqlWsDeps) {
  const { services } = d
  const connections = new WeakMap<WebSocket, Connection>()
  const log = services.log
  const rewrite = (errors: readonly GraphQLError[], correlationId: string) =>
    errors.map((e) => toClientGraphQLError(e instanceof GraphQLError ? e : new GraphQLError(String(e)), correlationId, log).toJSON())
  /** By key, while a subscription with it is open. */
  const sharedByKey = new Map<string, Shared>()

  function share(key: string): { shared: Shared; release(): void } {
    let shared = sharedByKey.get(key)
    if (!shared) sharedByKey.set(key, (shared = { frame: null, output: null, users: 0 }))
    shared.users++
    const s = shared
    return { shared: s, release: () => --s.users === 0 && sharedByKey.delete(key) }
  }

  /**
   * The `next` payload of one frame for one operation, executed once for all the operations with its
   * key. A result with errors is not shared: each operation executes its own (its errors name its
   * connection's correlation id, and a field may fail for one caller and not another).
   */
  function payload(args: ExecutionArgs, frame: object, op: Operation, shared: Shared): Body | Promise<Body> {
    const first = shared.frame !== frame
    if (first) {
      const result = execute({ ...args, rootValue: frame })
      shared.frame = frame
      shared.output = isPromise(result) ? result.then(outputOf) : outputOf(result)
    }
    const output = shared.output!
    if (!isPromise(output) && output.body) return output.body
    const own = (o: Output): Body | Promise<Body> => {
      if (o.body) return o.body
      if (first) return ownBody(o.result, op)
      const result = execute({ ...args, rootValue: frame })
      return isPromise(result) ? result.then((r) => ownBody(r, op)) : ownBody(result, op)
    }
    return isPromise(output) ? output.then(own) : own(output)
  }

  const ownBody = (r: ExecutionResult, op: Operation) =>
    bodyOf(`${JSON.stringify(r.errors?.length ? { ...r, errors: rewrite(r.errors, op.correlationId) } : r)}}`)

  /**
   * The fan-out path: frames are written to the socket as the protocol's `next` messages as soon as
   * they come, within the socket's buffer limit: the subscription's own head (`{"id":…,"type":"next",
   * "payload":`, encoded once) and the shared payload bytes. graphql-ws keeps the handshake, subscribe,
   * complete, error and keep-alive; the iterator it gets ends when the stream does.
   */
  function sendDirect(queue: FrameQueue, args: ExecutionArgs, op: Operation): AsyncIterableIterator<ExecutionResult> {
    const headText = `{"id":${JSON.stringify(op.id)},"type":"next","payload":`
    const headAscii = Buffer.byteLength(headText) === headText.length
    const head = Buffer.from(headText)
    const feed = new SocketFeed(op.socket, {
      maxBytes: services.config.streamMaxBufferBytes,
      meter: services.metrics.streams.slowConsumers.graphqlWs,
      resync: queue.stream?.resync ?? null,
      giveUp: () => queue.end(slowConsumer()),
      log: { logger: log, at: 'graphqlWs#sendDirect' },
    })
    const { shared, release } = share(op.key)
    const write = (body: Body) => (headAscii && body.ascii ? feed.sendAscii(headText, body.text) : feed.sendBytes(head, (body.bytes ??= Buffer.from(body.text))))
    // Results are written in frame order; an asynchronous one holds the ones after it.
    let pending: Promise<void> | null = null
    const ended = queue.direct((frame) => {
      const body = payload(args, frame, op, shared)
      if (pending === null && !isPromise(body)) return write(body)
      // Its failure ends the stream through the chain below, possibly after it settles.
      if (isPromise(body)) body.catch(() => {})
      const prev: Promise<unknown> = pending ?? Promise.resolve()
      pending = prev.then(() => body).then(write, (err: unknown) => queue.end(err))
    })
    const done = ended.finally(() => {
      feed.close()
      release()
    })
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
      // Metrics: every operation that runs, and the errors of its result (src/metrics/graphqlMetrics.ts).
      onOperation: (_ctx, _id, _payload, args, result) => {
        const labels = services.metrics.graphql.operation('ws', args.document, args.operationName)
        // graphql-ws awaited it: a result, or a subscription's stream.
        const r = result as ExecutionResult | AsyncIterable<unknown>
        if (!(Symbol.asyncIterator in r) && r.errors?.length) services.metrics.graphql.errored(labels, r.errors.map(errorCode))
        return undefined
      },
      onNext: (ctx, _id, _payload, _args, result) => {
        if (!result.errors?.length) return undefined
        const c = connections.get(ctx.extra.socket)
        return { ...result, errors: rewrite(result.errors, c?.correlationId ?? newId()) }
      },
      // An operation refused before it ran (invalid, over a limit), or a subscription that failed: its errors
      // count under the operation name the client gave, of an unknown type.
      onError: (ctx, _id, payload, errors) => {
        services.metrics.graphql.errored(services.metrics.graphql.refused('ws', null, payload.operationName), errors.map(errorCode))
        return rewrite(errors, connections.get(ctx.extra.socket)?.correlationId ?? newId())
      },
    },
    wss,
  )
}
