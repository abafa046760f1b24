// The API reference the server serves itself: the OpenAPI document at /openapi.json (built from the
// routes on first request, src/rest/openapi.ts) and a documentation page at /docs, Swagger UI from the
// swagger-ui-dist package, every asset served from node_modules by this server: the page works with no
// network but this server, and its Content-Security-Policy lets it reach nothing else.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { DomainError } from '../domain/errors.js'
import { GRAPHIQL_ASSET_FILES, GRAPHIQL_ASSETS } from '../graphql/graphiql.js'
import { buildOpenApi, errorTable, type DocumentedRoute } from '../rest/openapi.js'

const require = createRequire(import.meta.url)
const SWAGGER_UI = dirname(require.resolve('swagger-ui-dist/package.json'))
const VERSION = (require('../../package.json') as { version: string }).version

// Relative URLs, so the page works behind a path prefix too: from /docs, `docs/x` is /docs/x and
// `openapi.json` is /openapi.json.
const INIT = `window.ui = SwaggerUIBundle({
  url: 'openapi.json', dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis], layout: 'BaseLayout', withCredentials: true,
})
`

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Exchange API: REST reference</title>
<link rel="stylesheet" href="docs/swagger-ui.css">
<link rel="icon" type="image/png" href="docs/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/init.js"></script>
</body>
</html>
`

/** The page's assets: file name → where it comes from and its type. */
const ASSETS: Record<string, { type: string; file?: string; text?: string }> = {
  'swagger-ui.css': { type: 'text/css; charset=utf-8', file: 'swagger-ui.css' },
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', file: 'swagger-ui-bundle.js' },
  'favicon-32x32.png': { type: 'image/png', file: 'favicon-32x32.png' },
  'init.js': { type: 'text/javascript; charset=utf-8', text: INIT },
}

const CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:; base-uri 'none'; frame-ancestors 'none'"

const DESCRIPTION = `REST reference of the exchange: spot, perpetuals and quarterly futures on BTC, gold (XAUT) and WTI crude (WTIOIL), and European options on BTC, margined in one collateral asset, USDC-T (6 decimals, chain 84532).

Every REST route runs an operation of the GraphQL schema (\`/graphql\`, printed in \`schema.graphql\`), so the two APIs always agree.

**Conventions.** Prices, quantities, amounts and fees are decimal strings, never JSON numbers. Response timestamps are ISO 8601 UTC; stream timestamps (\`engineTs\`, \`sourceTs\`) unix milliseconds; query \`from\`/\`to\` unix seconds. Lists take \`limit\` (default 100, at most 200) and \`cursor\`, and answer the next page's cursor in \`X-Next-Cursor\`. An empty query parameter counts as absent.

**Credentials.** An API key (\`Authorization: Bearer svc_sk_…\`, scope \`read\` or \`trade\`) or a session from Sign-In with Ethereum (the cookie or the JWT \`POST /auth/verify\` answers). Order-path requests are rate limited per user (\`X-RateLimit-*\` headers; 429 with \`Retry-After\`).

**Errors.** Every non-2xx response is \`{error, code, message, details?}\` with \`X-Correlation-Id\`. A request that fails its schema is \`400 INVALID_REQUEST\` with \`details.issues\` (\`[{path, code, message}]\`), except a field that has a code of its own (\`INVALID_MARKET_ID\`, \`INVALID_PRICE\`, \`INVALID_QUANTITY\`, \`INVALID_TIME_IN_FORCE\`), which fails with that code; a request with several faults is judged by its first, in the order the fields are documented.

${errorTable()}`

/** The documented service routes: the GraphQL endpoint, the probes and this documentation. */
export const serviceRouteDocs: readonly DocumentedRoute[] = [
  {
    method: 'GET',
    path: '/graphql',
    auth: 'public',
    tag: 'GraphQL',
    summary: 'GraphiQL in a browser; a GraphQL query over GET',
    description: 'Query and mutation documents as `?query=…&variables=…`; a browser asking for HTML gets GraphiQL. Each field checks its own credential and scope.',
    responses: [{ status: 200, description: 'A GraphQL response `{data, errors}` (errors carry `extensions.code`), or GraphiQL.' }],
  },
  {
    method: 'GET',
    path: `${GRAPHIQL_ASSETS}/:file`,
    auth: 'public',
    tag: 'GraphQL',
    summary: 'An asset of GraphiQL',
    description:
      "The script, styles, icon and editor workers of GraphiQL (GET /graphql from a browser), from the pinned `@graphql-yoga/render-graphiql` package, so GraphiQL needs no network but this server. The path carries the package's version: cacheable for good.",
    params: z.object({ file: z.enum(GRAPHIQL_ASSET_FILES).meta({ description: 'File name.' }) }),
    errors: ['NOT_FOUND'],
    responses: [{ status: 200, description: 'The file (gzipped when the client accepts it).' }],
  },
  {
    method: 'POST',
    path: '/graphql',
    auth: 'public',
    tag: 'GraphQL',
    summary: 'A GraphQL operation',
    description: 'GraphQL over HTTP; subscriptions over SSE with `Accept: text/event-stream`, or over graphql-ws on a WebSocket to the same path. The schema is `schema.graphql`.',
    bodyDoc: {
      description: 'A GraphQL request.',
      schema: { type: 'object', required: ['query'], properties: { query: { type: 'string' }, variables: { type: 'object' }, operationName: { type: 'string' } } },
    },
    responses: [{ status: 200, description: 'A GraphQL response `{data, errors}`; a field that fails answers null and its error (with `path` and `extensions.code`), the rest of the data stands.' }],
  },
  {
    method: 'GET',
    path: '/health',
    auth: 'public',
    tag: 'Service',
    summary: 'Liveness',
    description: 'The process serves HTTP.',
    responses: [{ status: 200, description: 'Alive.', schema: z.object({ status: z.literal('ok') }) }],
  },
  {
    method: 'GET',
    path: '/ready',
    auth: 'public',
    tag: 'Service',
    summary: 'Readiness',
    description: 'PostgreSQL, Redis, an engine leader and a listed catalog; 503 `UPSTREAM_DEGRADED` with `details.checks` when one is missing.',
    responses: [{ status: 200, description: 'Ready.', schema: z.object({ status: z.literal('ready'), checks: z.record(z.string(), z.boolean()) }) }],
  },
  {
    method: 'GET',
    path: '/openapi.json',
    auth: 'public',
    tag: 'Service',
    summary: 'This document',
    description: 'OpenAPI 3.1, generated from the route table and the zod schemas that check each request.',
    responses: [{ status: 200, description: 'The OpenAPI document.' }],
  },
  {
    method: 'GET',
    path: '/docs',
    auth: 'public',
    tag: 'Service',
    summary: 'This reference as a page',
    description: 'Swagger UI, served by this server (no outside network).',
    responses: [{ status: 200, description: 'HTML.', mediaType: 'text/html', schema: z.string() }],
  },
  {
    method: 'GET',
    path: '/docs/:asset',
    auth: 'public',
    tag: 'Service',
    summary: 'An asset of the documentation page',
    params: z.object({ asset: z.enum(Object.keys(ASSETS) as [string, ...string[]]).meta({ description: 'File name.' }) }),
    errors: ['NOT_FOUND'],
    responses: [{ status: 200, description: 'The file.' }],
  },
]

/** Registers /openapi.json, /docs and its assets; the document describes `routes`. */
export function registerDocs(app: FastifyInstance, routes: () => readonly DocumentedRoute[]): void {
  let document: string | null = null
  app.get('/openapi.json', { config: { auth: 'public' } }, async (_req, reply) => {
    document ??= JSON.stringify(buildOpenApi(routes(), { title: 'Exchange API', version: VERSION, description: DESCRIPTION }))
    return reply.type('application/json; charset=utf-8').send(document)
  })
  app.get('/docs', { config: { auth: 'public' } }, async (_req, reply) =>
    reply.type('text/html; charset=utf-8').header('Content-Security-Policy', CSP).send(PAGE),
  )
  const files = new Map<string, Buffer | string>()
  app.get<{ Params: { asset: string } }>('/docs/:asset', { config: { auth: 'public' } }, async (req, reply) => {
    const asset = Object.hasOwn(ASSETS, req.params.asset) ? ASSETS[req.params.asset]! : undefined
    if (!asset) throw new DomainError('NOT_FOUND', `No asset ${req.params.asset}`)
    let body = files.get(req.params.asset)
    if (body === undefined) {
      body = asset.text ?? readFileSync(join(SWAGGER_UI, asset.file!))
      files.set(req.params.asset, body)
    }
    return reply.type(asset.type).header('Cache-Control', 'public, max-age=3600').send(body)
  })
}
