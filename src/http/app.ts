// The HTTP host: Fastify with correlation ids and one error shape, the REST route table, yoga at
// /graphql, operator routes under /admin, and the health probes.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import type { GraphQLSchema } from 'graphql'
import { newId } from '../domain/ids.js'
import { createContext } from '../graphql/context.js'
import { createGraphQLServer } from '../graphql/yoga.js'
import { registerAdminRoutes } from '../rest/adminRoutes.js'
import { runRoute, type CompiledRoute } from '../rest/executor.js'
import type { Services } from '../services/services.js'
import { errorBody } from '../domain/errors.js'
import { installErrorHandling } from './errors.js'

export interface HttpOptions {
  services: Services
  schema: GraphQLSchema
  routes: readonly CompiledRoute[]
  /** Named dependency checks for /ready. */
  readiness: () => Promise<Record<string, boolean>>
}

const CORRELATION_ID = /^[A-Za-z0-9._:-]{8,128}$/

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
  })
  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Correlation-Id', req.id)
  })
  installErrorHandling(app)

  for (const route of o.routes) {
    app.route({
      method: route.method,
      url: route.path,
      handler: async (req, reply) => {
        const ctx = createContext(o.services, req.id, true)
        const rreq = {
          params: req.params as Record<string, string>,
          query: req.query as Record<string, unknown>,
          body: req.body,
        }
        const body = await runRoute(o.schema, route, rreq, ctx)
        return reply.status(route.status ?? 200).send(body)
      },
    })
  }

  const yoga = createGraphQLServer(o.schema, o.services)
  app.route({
    url: yoga.graphqlEndpoint,
    method: ['GET', 'POST', 'OPTIONS'],
    handler: async (req, reply) => {
      const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply })
      response.headers.forEach((value, key) => {
        reply.header(key, value)
      })
      reply.status(response.status)
      return reply.send(response.body)
    },
  })

  registerAdminRoutes(app, o.services)

  app.get('/health', async () => ({ status: 'ok' }))
  app.get('/ready', async (_req, reply) => {
    const checks = await o.readiness()
    const ready = Object.values(checks).every(Boolean)
    if (ready) return { status: 'ready', checks }
    return reply.status(503).send(errorBody('UPSTREAM_DEGRADED', 'Not ready', { checks }))
  })
  return app
}
