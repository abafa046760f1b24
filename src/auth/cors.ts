// Owns cross-origin access (SPEC.md "Other"): browsers on the service's own domain and its subdomains,
// and on the configured partner origins, may call the API with credentials (cookies); any other origin
// gets no CORS headers, so the browser refuses to hand it the response. Outside production the service
// domain may also be served over plain http (a front-end on http://localhost:5173).
import cors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config/env.js'

type CorsConfig = Pick<Config, 'env' | 'serviceDomain' | 'corsOrigins'>

export function corsOriginAllowed(origin: string, config: CorsConfig): boolean {
  if (config.corsOrigins.includes(origin)) return true
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false
  }
  // An Origin header is scheme://host[:port] and nothing else; anything more is not a browser's.
  if (url.origin !== origin) return false
  const schemeOk = url.protocol === 'https:' || (url.protocol === 'http:' && config.env !== 'production')
  const host = url.hostname
  return schemeOk && (host === config.serviceDomain || host.endsWith(`.${config.serviceDomain}`))
}

export function registerCors(app: FastifyInstance, config: CorsConfig): void {
  app.register(cors, {
    origin: (origin, cb) => cb(null, origin !== undefined && corsOriginAllowed(origin, config)),
    credentials: true,
    methods: ['GET', 'POST', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Correlation-Id'],
    exposedHeaders: ['X-Correlation-Id', 'Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Next-Cursor'],
    maxAge: 600,
    // Strict mode answers an OPTIONS without Access-Control-Request-Method with a bare text/plain 400,
    // outside the spec's error bodies; answered as a preflight instead, it is a harmless 204.
    strictPreflight: false,
  })
}
