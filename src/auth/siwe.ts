// Owns sign-in with Ethereum (EIP-4361, DESIGN.md §9): issuing single-use nonces kept in Redis, and
// checking a signed message: its domain against the configured list (never the request's Host), its
// URI, chain, version and times, its nonce (consumed atomically), and its signature, recovered
// locally from the EOA's personal_sign signature: no RPC call, so smart-contract wallets are not
// supported.
import type { Redis } from 'ioredis'
import { getAddress, isAddress, recoverMessageAddress, type Hex } from 'viem'
import { parseSiweMessage } from 'viem/siwe'
import type { RedisKeys } from '../bus/keys.js'
import { ownOrigin } from '../config/env.js'
import { systemClock, type Clock } from '../domain/clock.js'
import { DomainError } from '../domain/errors.js'
import { newNonce } from './keyMaterial.js'

export const SIWE_CHAIN_ID = 84532
/** Clock skew tolerated between a wallet and this server for issuedAt and notBefore. */
const SKEW_MS = 60_000
const MAX_MESSAGE_CHARS = 4_096
const SIGNATURE = /^0x[0-9a-fA-F]{130}$/

/**
 * The domains a sign-in message may name when SIWE_DOMAINS is unset: this node on its bound port, as
 * localhost and 127.0.0.1 and, when HOST names one address or host name, as that too (the liquidity
 * simulator signs in through it). Written as a URL's host, as the message's URI must be. An IPv6 literal
 * is listed for completeness only: viem's EIP-4361 parser refuses a bracketed domain, so such a message
 * never verifies; a deployment bound to one IPv6 address sets SIWE_DOMAINS to a host name.
 */
export function defaultSiweDomains(host: string, port: number): string[] {
  return [...new Set([`localhost:${port}`, `127.0.0.1:${port}`, new URL(ownOrigin(host, port)).host])]
}

export interface IssuedNonce {
  nonce: string
  expiresAt: Date
}

/** Refused: the message is well formed but not a valid sign-in to this service now. */
const refused = (reason: string, message: string) => new DomainError('INVALID_SIGNATURE', message, { reason })
const malformed = (message: string) => new DomainError('INVALID_REQUEST', message)

export class Siwe {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly nonceTtlMs: number,
    /** The host[:port] values a message may name; a function because the default follows the bound port. */
    private readonly domains: () => readonly string[],
    private readonly clock: Clock = systemClock,
  ) {}

  async issueNonce(nowMs: number = this.clock()): Promise<IssuedNonce> {
    const nonce = newNonce()
    await this.redis.set(this.keys.siweNonce(nonce), '1', 'PX', this.nonceTtlMs)
    return { nonce, expiresAt: new Date(nowMs + this.nonceTtlMs) }
  }

  /** The EIP-55 address that signed a valid sign-in message; throws the spec's code otherwise. */
  async verify(message: unknown, signature: unknown, nowMs: number = this.clock()): Promise<string> {
    if (typeof message !== 'string' || message.length === 0 || message.length > MAX_MESSAGE_CHARS) {
      throw malformed(`message must be an EIP-4361 message of at most ${MAX_MESSAGE_CHARS} characters`)
    }
    const m = parseSiweMessage(message)
    if (!m.domain || !m.address || !m.uri || !m.version || m.chainId === undefined || !m.nonce || !m.issuedAt) {
      throw malformed('message is not an EIP-4361 sign-in message')
    }
    const dates = [m.issuedAt, m.expirationTime, m.notBefore].filter((d) => d !== undefined)
    if (dates.some((d) => Number.isNaN(d.getTime()))) throw malformed('message has a malformed timestamp')
    if (m.version !== '1') throw malformed('message version must be 1')
    if (!isAddress(m.address, { strict: false }) || getAddress(m.address) !== m.address) {
      throw malformed('message address must be an EIP-55 checksummed address')
    }

    const domain = m.domain.toLowerCase()
    if (!this.domains().includes(domain)) throw refused('domain', `message is for ${m.domain}, not this service`)
    let uri: URL
    try {
      uri = new URL(m.uri)
    } catch {
      throw malformed('message URI is not a URI')
    }
    if (uri.host !== domain) throw refused('uri', 'message URI does not belong to its domain')
    if (m.scheme && `${m.scheme.toLowerCase()}:` !== uri.protocol) throw refused('uri', 'message scheme does not match its URI')
    if (m.chainId !== SIWE_CHAIN_ID) throw refused('chainId', `message chain id must be ${SIWE_CHAIN_ID}`)
    if (m.issuedAt.getTime() > nowMs + SKEW_MS) throw refused('issuedAt', 'message is issued in the future')
    if (m.notBefore && m.notBefore.getTime() > nowMs + SKEW_MS) throw refused('notBefore', 'message is not valid yet')
    if (m.expirationTime && m.expirationTime.getTime() <= nowMs) throw refused('expired', 'message has expired')

    // Consumed before the signature is checked: an unknown nonce is refused without the ~10 ms of
    // signature recovery, and a nonce is spent by its first attempt whatever the outcome.
    if ((await this.redis.getdel(this.keys.siweNonce(m.nonce))) === null) throw new DomainError('NONCE_MISMATCH')

    if (typeof signature !== 'string' || !SIGNATURE.test(signature)) throw refused('signature', 'signature must be 65 bytes of hex')
    let signer: string
    try {
      signer = await recoverMessageAddress({ message, signature: signature as Hex })
    } catch {
      throw refused('signature', 'signature does not recover to an address')
    }
    if (signer !== m.address) throw refused('signature', 'message was not signed by its address')
    return m.address
  }
}
