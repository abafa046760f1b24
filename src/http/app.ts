// The HTTP host: Fastify with correlation ids and one error shape, CORS, cookies and access control,
// the REST route table, yoga at /graphql, operator routes under /admin, the health probes, the API
// reference (/openapi.json, /docs) describing all of them, and each request's latency for the metrics
// (src/metrics/httpMetrics.ts).
import cookie from '@fastify/cookie'
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type RouteOptions } from 'fastify'
import type { GraphQLSchema } from 'graphql'
import { registerCors } from '../auth/cors.js'
import { callerOf, installAuth } from '../auth/httpAuth.js'
import { newId } from '../domain/ids.js'
import { createContext } from '../graphql/context.js'
import { registerGraphiQLAssets } from '../graphql/graphiql.js'
import { serveGraphqlWs } from '../graphql/graphqlWs.js'
import { createGraphQLServer } from '../graphql/yoga.js'
import { adminRoutes, registerAdminRoutes } from '../rest/adminRoutes.js'
import { runRoute, type CompiledRoute } from '../rest/executor.js'
import { documentRestRoute, type DocumentedRoute } from '../rest/openapi.js'
import type { Services } from '../services/services.js'
import { DomainError, errorBody } from '../domain/errors.js'
import { ConnectionCaps } from '../streams/connectionCaps.js'
import { streamRouteDocs } from '../streams/streamDocs.js'
import { installStreams } from '../streams/streamServer.js'
import { registerDocs, serviceRouteDocs } from './docs.js'
import { installErrorHandling, onClientError, onFrameworkError } from './errors.js'

export interface HttpOptions {
  services: Services
  schema: GraphQLSchema
  routes: readonly CompiledRoute[]
  /** Named dependency checks for /ready. */
  readiness: () => Promise<Record<string, boolean>>
  /** Routes the composition root registers itself (the metrics page), for the API reference. */
  extraDocs?: readonly DocumentedRoute[]
}

const CORRELATION_ID = /^[A-Za-z0-9._:-]{8,128}$/

/** yoga's single-result media types (application/json, application/graphql-response+json), not its streams. */
const JSON_RESPONSE = /^application\/(graphql-response\+)?json\b/
const hasKeys = (o: unknown): boolean => {
  for (const _ in o as object) return true
  return false
}
const registered = new WeakMap<FastifyInstance, Array<Pick<RouteOptions, 'method' | 'url'>>>()

/** Every route registered on an app built by buildHttp (HEAD and OPTIONS included), for the test
 * that holds the OpenAPI document to them. */
export const registeredRoutes = (app: FastifyInstance): ReadonlyArray<Pick<RouteOptions, 'method' | 'url'>> => registered.get(app) ?? []

export function buildHttp(o: HttpOptions): FastifyInstance {
  const { config, log } = o.services
  const app = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    bodyLimit: config.bodyLimitBytes,
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'correlationId' }),
    // A caller's own correlation id is kept when it is sane, so its logs and ours line up.
    genReqId: (req) => {
      const given = req.headers['x-correlation-id']
      return typeof given === 'string' && CORRELATION_ID.test(given) ? given : newId()
    },
    // req.ip is the socket peer; X-Forwarded-For counts only when that peer is a configured proxy, so
    // a client cannot name its own address to pass an API key's IP allowlist.
    trustProxy: config.trustedProxies.length > 0 ? [...config.trustedProxies] : false,
    frameworkErrors: onFrameworkError,
    clientErrorHandler: onClientError,
  })
  const routes: Array<Pick<RouteOptions, 'method' | 'url'>> = []
  registered.set(app, routes)
  app.addHook('onRoute', (r) => {
    routes.push({ method: r.method, url: r.url })
  })
  // A callback, not an async function: Fastify would settle a promise for it on every request.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('X-Correlation-Id', req.id)
    done()
  })
  // Latency by route pattern (a request no route matched is `unmatched`). An event stream's response
  // lasts as long as its stream: it is not a latency, and is left out.
  const requests = o.services.metrics.http
  app.addHook('onResponse', (req, reply, done) => {
    const type = reply.getHeader('content-type')
    if (typeof type !== 'string' || !type.startsWith('text/event-stream')) {
      requests.observe(req.routeOptions.url ?? 'unmatched', req.method, reply.statusCode, reply.elapsedTime / 1000)
    }
    done()
  })
  installErrorHandling(app)
  registerCors(app, config)
  app.register(cookie)
  installAuth(app, o.services.identity)

  for (const route of o.routes) {
    app.route({
      method: route.method,
      url: route.path,
      config: { auth: route.auth, orderRateLimited: route.orderRateLimited ?? false },
      handler: async (req, reply) => {
        const ctx = createContext(o.services, req.id, true, callerOf(req, reply, config))
        const rreq = {
          params: req.params as Record<string, string>,
          query: req.query as Record<string, unknown>,
          body: req.body,
        }
        const { body, headers } = await runRoute(route, rreq, ctx)
        return reply.status(route.status ?? 200).headers(headers).send(body)
      },
    })
  }

  // Every long-lived stream of an address counts against one quota: SSE routes, WebSockets and GraphQL
  // subscriptions over SSE alike.
  const caps = new ConnectionCaps(config.streamMaxConnectionsPerIp, o.services.metrics.refusals.connection)
  const yoga = createGraphQLServer(o.schema, o.services)
  app.route({
    url: yoga.graphqlEndpoint,
    method: ['GET', 'POST', 'OPTIONS'],
    // Public at the door: each field's scope decides (src/graphql/builder.ts).
    config: { auth: 'public' },
    handler: async (req, reply) => {
      // Without query parameters (any POST), the adapter is given no `query`: it rebuilds the URL from
      // one (a URL parsed and printed per request) even when it is empty.
      const nodeRequest = hasKeys(req.query) ? req : { raw: req.raw, method: req.method, headers: req.headers, body: req.body }
      const response = await yoga.handleNodeRequestAndResponse(nodeRequest, reply, { req, reply })
      if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
        const ip = req.ip
        if (!caps.acquire(ip)) {
          // yoga opens the subscription's iterator when its stream starts (on the first read, which
          // its opening ping answers at once) and closes it on cancel: cancelled unstarted, it throws.
          const reader = response.body!.getReader()
          await reader.read()
          await reader.cancel()
          throw new DomainError('CONNECTION_LIMIT', caps.limitMessage)
        }
        reply.raw.once('close', () => caps.release(ip))
      }
      response.headers.forEach((value, key) => {
        reply.header(key, value)
      })
      reply.status(response.status)
      // A single JSON result leaves as its string, written with its headers in one go; as a stream
      // (yoga's body for anything) it cost a Readable, a pipe and a write per chunk (docs/decisions.md D-210).
      if (JSON_RESPONSE.test(response.headers.get('content-type') ?? '')) return reply.send(await response.text())
      return reply.send(response.body)
    },
  })
  registerGraphiQLAssets(app)

  registerAdminRoutes(app, o.services)
  installStreams(app, o.services, caps, (wss, clientIp) => serveGraphqlWs(wss, { schema: o.schema, services: o.services, clientIp, parseCookie: (h) => app.parseCookie(h) }))

  registerDocs(app, (): DocumentedRoute[] => [
    ...o.routes.map(documentRestRoute),
    ...(config.adminToken ? adminRoutes.map((r): DocumentedRoute => ({ ...r, auth: 'admin', responses: [{ status: 200, description: r.summary, schema: r.response }] })) : []),
    ...streamRouteDocs,
    ...serviceRouteDocs,
    ...(o.extraDocs ?? []),
  ])

  app.get('/health', async () => ({ status: 'ok' }))
  app.get('/ready', async (_req, reply) => {
    const checks = await o.readiness()
    const ready = Object.values(checks).every(Boolean)
    if (ready) return { status: 'ready', checks }
    return reply.status(503).send(errorBody('UPSTREAM_DEGRADED', 'Not ready', { checks }))
  })
  return app
}
