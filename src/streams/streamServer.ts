// Owns the streaming side of the HTTP host: the SSE routes, and WebSocket upgrades routed by path on
// Fastify's server (/graphql → graphql-ws; /ws/perps/prices, /ws/feeds, /ws/quotes → the spec's
// protocol; anything else is refused). Every long-lived connection counts against its client address
// (STREAM_MAX_CONNECTIONS_PER_IP, the address found as for HTTP requests); all of them are closed before
// the server stops.
import { STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import type { GraphQLSchema } from 'graphql'
import { WebSocketServer, type WebSocket } from 'ws'
import { errorBody, type ErrorCode } from '../domain/errors.js'
import type { Services } from '../services/services.js'
import { clientIpResolver } from './clientIp.js'
import { ConnectionCaps } from './connectionCaps.js'
import { serveGraphqlWs } from './graphqlWs.js'
import { adoptTransport } from './socketFeed.js'
import { registerSseRoutes, type SseHost } from './sse.js'
import { FeedSocket, SOCKETS } from './wsFeeds.js'

/** A WebSocket still open this long after the server said goodbye (1001) is cut. */
const CLOSE_GRACE_MS = 1_000

function refuse(socket: Duplex, status: number, code: ErrorCode, message?: string): void {
  const body = JSON.stringify(errorBody(code, message))
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  )
}

function goAway(ws: WebSocket): Promise<void> {
  return new Promise((resolve) => {
    if (ws.readyState === ws.CLOSED) return resolve()
    const cut = setTimeout(() => ws.terminate(), CLOSE_GRACE_MS)
    ws.once('close', () => {
      clearTimeout(cut)
      resolve()
    })
    ws.close(1001, 'server shutting down')
  })
}

export function installStreams(app: FastifyInstance, services: Services, schema: GraphQLSchema): void {
  const config = services.config
  const caps = new ConnectionCaps(config.streamMaxConnectionsPerIp)
  const sse: SseHost = { services, caps, open: new Set() }
  registerSseRoutes(app, sse)

  const clientIp = clientIpResolver(config.trustedProxies)
  const feeds = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 })
  const graphql = new WebSocketServer({ noServer: true, maxPayload: config.bodyLimitBytes })
  const graphqlWs = serveGraphqlWs(graphql, { schema, services, clientIp, parseCookie: (h) => app.parseCookie(h) })

  app.server.on('upgrade', (req, socket: Duplex, head: Buffer) => {
    const path = new URL(req.url ?? '/', 'http://host').pathname
    const types = SOCKETS[path]
    const wss = path === '/graphql' ? graphql : types ? feeds : null
    if (!wss) return refuse(socket, 404, 'NOT_FOUND', `No WebSocket endpoint at ${path}`)
    const ip = clientIp(req)
    if (!caps.acquire(ip)) return refuse(socket, 429, 'CONNECTION_LIMIT', `At most ${config.streamMaxConnectionsPerIp} stream connections per address`)
    // The TCP socket's end frees the slot, whether the handshake succeeded or not.
    socket.once('close', () => caps.release(ip))
    wss.handleUpgrade(req, socket, head, (ws) => {
      adoptTransport(ws, socket)
      if (types) new FeedSocket(ws, types, services.streams, config, services.log)
      else graphql.emit('connection', ws, req)
    })
  })

  // Before the HTTP server closes: it waits for upgraded sockets, which only we can end.
  app.addHook('preClose', async () => {
    for (const stop of [...sse.open]) stop()
    await Promise.all([...feeds.clients, ...graphql.clients].map(goAway))
    await graphqlWs.dispose()
    feeds.close()
  })
}
