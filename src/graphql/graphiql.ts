// GraphiQL at GET /graphql, working without internet: yoga's built-in page loads its script, styles and
// editor workers from a CDN, so offline it is blank. Here the page is a few lines that load those assets
// from this server, which serves them from the pinned @graphql-yoga/render-graphiql package (the same
// GraphiQL build yoga would fetch). Assets live under a path carrying the package's version, so a browser
// may cache them for good; each is read on its first request and gzipped once for clients that take it.
import { createRequire } from 'node:module'
import { promisify } from 'node:util'
import { gzip } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import type { GraphiQLOptions } from 'graphql-yoga'
import { DomainError } from '../domain/errors.js'

const pkg = createRequire(import.meta.url)('@graphql-yoga/render-graphiql/package.json') as { version: string }

/** Where the assets are served; versioned so that an upgrade is never answered from a stale cache. */
export const GRAPHIQL_ASSETS = `/graphiql-assets/${pkg.version}`

type Bundle = typeof import('@graphql-yoga/render-graphiql/graphiql')

/** File name → the bundle's export and its content type. */
const FILES: Record<string, { pick: (b: Bundle) => Buffer; type: string }> = {
  'graphiql.js': { pick: (b) => Buffer.from(b.js), type: 'text/javascript; charset=utf-8' },
  'graphiql.css': { pick: (b) => Buffer.from(b.css), type: 'text/css; charset=utf-8' },
  'editor.worker.js': { pick: (b) => Buffer.from(b.editorWorkerService), type: 'text/javascript; charset=utf-8' },
  'json.worker.js': { pick: (b) => Buffer.from(b.jsonWorker), type: 'text/javascript; charset=utf-8' },
  'graphql.worker.js': { pick: (b) => Buffer.from(b.graphqlWorker), type: 'text/javascript; charset=utf-8' },
  // The package ships the icon as a data URL.
  'favicon.ico': { pick: (b) => Buffer.from(b.favicon.slice(b.favicon.indexOf(',') + 1), 'base64'), type: 'image/x-icon' },
}

/** The files served under GRAPHIQL_ASSETS. */
export const GRAPHIQL_ASSET_FILES = Object.keys(FILES) as [string, ...string[]]

/** Monaco asks for a worker by label; these are the labels GraphiQL's editors use. */
const WORKERS: Record<string, string> = {
  editorWorkerService: `${GRAPHIQL_ASSETS}/editor.worker.js`,
  json: `${GRAPHIQL_ASSETS}/json.worker.js`,
  graphql: `${GRAPHIQL_ASSETS}/graphql.worker.js`,
}

/** JSON safe inside a <script> element (no `</script>` or comment openers can close it early). */
const scriptJson = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c')
const htmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/** yoga's `renderGraphiQL`: the page, with the options yoga passes (title, default query, …). */
export function renderGraphiQLPage(opts: GraphiQLOptions): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${htmlText(opts.title ?? 'GraphiQL')}</title>
<link rel="icon" href="${GRAPHIQL_ASSETS}/favicon.ico">
<link rel="stylesheet" href="${GRAPHIQL_ASSETS}/graphiql.css">
</head>
<body id="body" class="no-focus-outline">
<noscript>GraphiQL needs JavaScript.</noscript>
<div id="root"></div>
<script>
const workers = ${scriptJson(WORKERS)};
self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (_moduleId, label) => workers[label] ?? workers.editorWorkerService };
</script>
<script src="${GRAPHIQL_ASSETS}/graphiql.js"></script>
<script>YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), ${scriptJson(opts)});</script>
</body>
</html>
`
}

interface Asset {
  type: string
  raw: Buffer
  gzipped: Promise<Buffer>
}

/** Serves GraphiQL's assets under GRAPHIQL_ASSETS. Public and credential-free, like the page itself. */
export function registerGraphiQLAssets(app: FastifyInstance): void {
  // ~9 MB of strings: loaded on the first request for an asset, not at start.
  let bundle: Promise<Bundle> | null = null
  const assets = new Map<string, Promise<Asset>>()
  const load = (name: string): Promise<Asset> | undefined => {
    if (!Object.hasOwn(FILES, name)) return undefined // not `constructor` or `__proto__` either
    const file = FILES[name]!
    let asset = assets.get(name)
    if (!asset) {
      bundle ??= import('@graphql-yoga/render-graphiql/graphiql')
      asset = bundle.then((b) => {
        const raw = file.pick(b)
        const gzipped = promisify(gzip)(raw)
        gzipped.catch(() => {}) // a failure is reported to the request that awaits it
        return { type: file.type, raw, gzipped }
      })
      assets.set(name, asset)
    }
    return asset
  }

  app.get<{ Params: { file: string } }>(`${GRAPHIQL_ASSETS}/:file`, async (req, reply) => {
    const asset = await load(req.params.file)
    if (!asset) throw new DomainError('NOT_FOUND', `No GraphiQL asset ${req.params.file}`)
    reply.header('content-type', asset.type)
    reply.header('cache-control', 'public, max-age=31536000, immutable')
    reply.header('vary', 'accept-encoding')
    if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
      reply.header('content-encoding', 'gzip')
      return reply.send(await asset.gzipped)
    }
    return reply.send(asset.raw)
  })
}
