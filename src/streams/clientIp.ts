// Owns the client address of a raw request (WebSocket upgrades, which Fastify never sees as requests):
// the socket peer, or the X-Forwarded-For hop before it only while the peer is a configured trusted
// proxy. It is Fastify's own rule for `req.ip` with `trustProxy` (src/http/app.ts), by the same package.
import type { IncomingMessage } from 'node:http'
import proxyAddr from '@fastify/proxy-addr'

export type ClientIp = (req: IncomingMessage) => string

export function clientIpResolver(trustedProxies: readonly string[]): ClientIp {
  if (trustedProxies.length === 0) return (req) => req.socket.remoteAddress ?? ''
  const trust = proxyAddr.compile([...trustedProxies])
  // A socket already gone has no peer address: '' as without proxies (proxy-addr would answer undefined).
  return (req) => (req.socket.remoteAddress === undefined ? '' : proxyAddr(req, trust))
}
