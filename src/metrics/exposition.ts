// Owns how the metrics page is served, in Prometheus' text format: GET /metrics on the API port for
// `Authorization: Bearer <METRICS_TOKEN>` (absent without a token, as /admin is without ADMIN_TOKEN), and
// a listener of its own on METRICS_PORT that asks no credential, for a private network and for processes
// without the api role. Neither is in the public interface (SPEC.md): metrics are for operators.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import type { Registry } from 'prom-client'
import { operatorTokenCheck } from '../auth/operatorToken.js'
import { errorBody } from '../domain/errors.js'
import { portError, type PortSettings } from '../http/port.js'
import type { DocumentedRoute } from '../rest/openapi.js'

export const METRICS_PATH = '/metrics'
export const METRICS_SETTINGS: PortSettings = { port: 'METRICS_PORT', host: 'METRICS_HOST' }

/** The route in the API reference, where it is served (METRICS_TOKEN set). */
export const metricsRouteDoc: DocumentedRoute = {
  method: 'GET',
  path: METRICS_PATH,
  auth: 'metrics',
  tag: 'Operator',
  summary: 'Prometheus metrics',
  description: "This process's metrics in Prometheus' text format (README \"Metrics\" lists the families). For operators: served only with METRICS_TOKEN set; METRICS_PORT serves the same page without a credential on a port of its own.",
  responses: [{ status: 200, description: 'The metrics page.', mediaType: 'text/plain; version=0.0.4' }],
}

export function registerMetricsRoute(app: FastifyInstance, registry: Registry, token: string | undefined): void {
  if (!token) return
  const check = operatorTokenCheck(token, 'Metrics token required')
  app.get(METRICS_PATH, { preHandler: async (req) => check(req.headers.authorization) }, async (_req, reply) => {
    const page = await registry.metrics()
    return reply.type(registry.contentType).send(page)
  })
}

export interface MetricsServer {
  readonly url: string
  close(): Promise<void>
}

export async function startMetricsServer(registry: Registry, host: string, port: number): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]
    if (path !== METRICS_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' })
      res.end(JSON.stringify(errorBody('NOT_FOUND', `No route ${req.method} ${path}: this port serves GET ${METRICS_PATH}`)))
      return
    }
    registry.metrics().then(
      (page) => {
        res.writeHead(200, { 'content-type': registry.contentType })
        res.end(req.method === 'HEAD' ? undefined : page)
      },
      () => {
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' })
        res.end(JSON.stringify(errorBody('INTERNAL_ERROR')))
      },
    )
  })
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen({ host, port }, resolve)
    })
  } catch (err) {
    throw portError(err, host, port, METRICS_SETTINGS) ?? err
  }
  server.on('error', () => {})
  const bound = server.address() as AddressInfo
  const h = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address
  return {
    url: `http://${h}:${bound.port}${METRICS_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
