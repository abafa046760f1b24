// Owns the streaming side of the HTTP host: the SSE routes, and WebSocket upgrades routed by path on
// Fastify's server (/graphql → graphql-ws; /ws/perps/prices, /ws/feeds, /ws/quotes → the spec's
// protocol; any other path is refused, and an upgrade to another protocol is served as plain HTTP).
// Every long-lived connection counts against its client address (STREAM_MAX_CONNECTIONS_PER_IP, the
// address found as for HTTP requests); all of them are closed before the server stops.
import { ServerResponse, type IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { WebSocketServer, type WebSocket } from 'ws'
import { corsOriginAllowed } from '../auth/cors.js'
import type { CredentialResult } from '../auth/principal.js'
import { SESSION_COOKIE } from '../auth/sessionCookie.js'
import type { ErrorCode } from '../domain/errors.js'
import { rawErrorResponse } from '../http/errors.js'
import type { Services } from '../services/services.js'
import { clientIpResolver, type ClientIp } from './clientIp.js'
import type { ConnectionCaps } from './connectionCaps.js'
import { adoptTransport } from './socketFeed.js'
import { registerSseRoutes, type SseHost } from './sse.js'
import { FeedSocket, SOCKETS } from './wsFeeds.js'

/** A WebSocket still open this long after the server said goodbye (1001) is cut. */
const CLOSE_GRACE_MS = 1_000

function refuse(socket: Duplex, status: number, code: ErrorCode, message?: string): void {
  socket.end(rawErrorResponse(status, code, message))
}

/** The request's path, or null when its target is no URL at all (`//`, `//[`: new URL throws). */
function pathOf(req: IncomingMessage): string | null {
  try {
    return new URL(req.url ?? '/', 'http://host').pathname
  } catch {
    return null
  }
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

/**
 * Serves GraphQL over the WebSocket server it is given (the GraphQL layer's graphql-ws, src/graphql/graphqlWs.ts):
 * this side routes the upgrades, counts and closes the sockets.
 */
export type GraphqlSocketServer = (wss: WebSocketServer, clientIp: ClientIp) => { dispose(): void | Promise<void> }

export function installStreams(app: FastifyInstance, services: Services, caps: ConnectionCaps, serveGraphql: GraphqlSocketServer): void {
  const config = services.config
  const sse: SseHost = { services, caps, open: new Set() }
  registerSseRoutes(app, sse)

  const clientIp = clientIpResolver(config.trustedProxies)
  const feeds = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 })
  const graphql = new WebSocketServer({ noServer: true, maxPayload: config.bodyLimitBytes })
  // With noServer, ws has no server of its own to report; a listener all the same, as on every emitter.
  feeds.on('error', (err) => services.log.error({ err, at: 'streamServer#feeds' }, 'WebSocket server error'))
  const graphqlWs = serveGraphql(graphql, clientIp)

  /**
   * The credential of a /ws socket's upgrade request, resolved on first use (most subscriptions are
   * public): the Authorization header, else the session cookie when there is no Origin or an allowed
   * one (another site cannot ride a browser's session), as graphql-ws does.
   */
  const socketCredential = (req: IncomingMessage, ip: string) => {
    let result: Promise<CredentialResult> | null = null
    const origin = req.headers.origin
    const cookieOk = origin === undefined || corsOriginAllowed(origin, config)
    const input = {
      authorization: req.headers.authorization,
      sessionCookie: cookieOk && req.headers.cookie ? app.parseCookie(req.headers.cookie)[SESSION_COOKIE] : undefined,
      ip,
      userAgent: req.headers['user-agent'] ?? null,
    }
    // A failed lookup (Redis or PostgreSQL away) is not kept: the next subscription asks again.
    return () =>
      (result ??= services.identity.credentials.resolve(input).catch((err: unknown) => {
        result = null
        throw err
      }))
  }

  /**
   * Node hands every request with an Upgrade header to the upgrade listener once one exists; a client
   * may offer a protocol we do not speak (curl offers h2c on http://) and expects the request served as
   * plain HTTP/1.1. One without a body is, on its socket, closed after the answer; one with a body would
   * need its bytes re-framed by hand, so it is refused.
   */
  const asPlainHttp = (req: IncomingMessage, socket: Duplex): void => {
    const hasBody = req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0'
    if (hasBody) return refuse(socket, 400, 'INVALID_REQUEST', `Upgrade to ${req.headers.upgrade} is not supported: send the request without it`)
    req.push(null)
    const res = new ServerResponse(req)
    res.shouldKeepAlive = false
    res.assignSocket(socket as Socket)
    res.once('finish', () => socket.end())
    app.server.emit('request', req, res)
  }

  /**
   * ws reports a frame it refuses (over maxPayload, text that is not UTF-8, a protocol violation) as an
   * 'error' on the socket after closing it with the frame's code (1009, 1007, 1002): unhandled, that
   * one frame ended the process. The connection is already closing; the error only needs noting.
   */
  const socketError = (path: string) => (err: Error & { code?: string }) => {
    services.log.info({ at: 'streamServer#socketError', path, code: err.code, message: err.message }, 'WebSocket closed on a bad frame')
  }

  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    // Node drops its own 'error' listener from a socket it hands over for an upgrade: a reset while we
    // answer or hand it to ws would be uncaught. Its 'close' still follows, which is what we act on.
    socket.on('error', () => {})
    if (req.headers.upgrade?.toLowerCase() !== 'websocket') return asPlainHttp(req, socket)
    const path = pathOf(req)
    if (path === null) return refuse(socket, 400, 'INVALID_REQUEST', 'The request target is not a valid path')
    const types = SOCKETS[path]
    const wss = path === '/graphql' ? graphql : types ? feeds : null
    if (!wss) return refuse(socket, 404, 'NOT_FOUND', `No WebSocket endpoint at ${path}`)
    const ip = clientIp(req)
    if (!caps.acquire(ip)) return refuse(socket, 429, 'CONNECTION_LIMIT', caps.limitMessage)
    // The TCP socket's end frees the slot, whether the handshake succeeded or not.
    socket.once('close', () => caps.release(ip))
    wss.handleUpgrade(req, socket, head, (ws) => {
      adoptTransport(ws, socket)
      if (types) new FeedSocket(ws, types, services.streams, config, services.log, socketCredential(req, ip), services.metrics.streams.slowConsumers.ws)
      else graphql.emit('connection', ws, req)
      // graphql-ws adds its own listener, which prints the error and its stack to stderr per bad frame.
      ws.removeAllListeners('error')
      ws.on('error', socketError(path))
    })
  }
  // A throw in an 'upgrade' listener would be uncaught and end the process with every role in it.
  app.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    try {
      upgrade(req, socket, head)
    } catch (err) {
      services.log.error({ err, at: 'streamServer#upgrade', url: req.url }, 'upgrade failed')
      if (!socket.destroyed) refuse(socket, 500, 'INTERNAL_ERROR')
    }
  })

  // Before the HTTP server closes: it waits for upgraded sockets, which only we can end.
  app.addHook('preClose', async () => {
    for (const stop of [...sse.open]) stop()
    await Promise.all([...feeds.clients, ...graphql.clients].map(goAway))
    await graphqlWs.dispose()
    feeds.close()
  })
}
