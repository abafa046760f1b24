// Owns the client address of a raw request (WebSocket upgrades, which Fastify never sees as requests):
// the socket peer, or the X-Forwarded-For hop before it only while the peer is a configured trusted
// proxy, the same rule Fastify applies to `req.ip` with `trustProxy` (src/http/app.ts).
import type { IncomingMessage } from 'node:http'
import { BlockList, isIPv4, isIPv6 } from 'node:net'
import { normalizeIp } from '../auth/ipAllowlist.js'

export type ClientIp = (req: IncomingMessage) => string

export function clientIpResolver(trustedProxies: readonly string[]): ClientIp {
  const trusted = new BlockList()
  for (const entry of trustedProxies) {
    const [ip, bits] = entry.split('/') as [string, string | undefined]
    const type = isIPv4(ip) ? 'ipv4' : 'ipv6'
    if (bits === undefined) trusted.addAddress(ip, type)
    else trusted.addSubnet(ip, Number(bits), type)
  }
  const isTrusted = (ip: string) => {
    const plain = normalizeIp(ip)
    if (isIPv4(plain)) return trusted.check(plain, 'ipv4')
    return isIPv6(plain) && trusted.check(plain, 'ipv6')
  }
  return (req) => {
    let ip = req.socket.remoteAddress ?? ''
    if (trustedProxies.length === 0) return ip
    const header = req.headers['x-forwarded-for']
    const hops = (Array.isArray(header) ? header.join(',') : header ?? '').split(',').map((h) => h.trim()).filter(Boolean)
    // Walk from the nearest hop outwards while the address that handed us the request is a trusted proxy.
    while (hops.length > 0 && isTrusted(ip)) ip = hops.pop()!
    return ip
  }
}
