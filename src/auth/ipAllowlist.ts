// Owns API key IP allowlists: which entries are valid (IPv4 addresses, SPEC.md rule 8), how a caller's
// address is compared with them, and the bounds on a list. The caller's address itself comes from
// Fastify (`req.ip`): the socket peer, or X-Forwarded-For only when the peer is a trusted proxy.
import { isIPv4 } from 'node:net'

export const MAX_ALLOWED_IPS = 32

/** An IPv4 peer on a dual-stack socket shows up as `::ffff:a.b.c.d`; allowlists name the IPv4 form. */
export function normalizeIp(ip: string): string {
  return ip.startsWith('::ffff:') && isIPv4(ip.slice(7)) ? ip.slice(7) : ip
}

/** Node's isIPv4 refuses leading zeros and out-of-range octets, so accepted entries are canonical. */
export const isAllowlistEntry = (s: string) => isIPv4(s)

/** Empty means any address. */
export function ipAllowed(allowedIps: readonly string[], ip: string): boolean {
  return allowedIps.length === 0 || allowedIps.includes(normalizeIp(ip))
}
