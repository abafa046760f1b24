// Malformed input for the fuzz run (test/e2e/fuzz.test.ts), drawn from a seeded PRNG: nasty strings
// and numbers, random JSON, structural mutations of valid request bodies, percent-encoded path
// segments, query strings, token-level mutations of GraphQL documents. Each request is drawn from its
// own generator (seed and index), so one failure replays alone.
import { mulberry32, type Rng } from '../../src/domain/prng.js'

/** Strings that have broken parsers, validators and databases somewhere: controls, lone surrogates,
 * numbers in every spelling, ids of the right and wrong shape, names of real things, injections. */
export const NASTY_STRINGS: readonly string[] = [
  '', ' ', '\u0000', 'a\u0000b', '\u0007', '\n', '\r\n', '\t', '\u007f', '\u2028', '\ud800', '\udfff', '\uffff', '💥', 'é',
  'x'.repeat(70), 'x'.repeat(3_000), '-1', '0', '-0', '1', '1e309', '1e-400', 'NaN', 'Infinity', '0x1f', '1,5', '1.', '.5',
  '00001', '9'.repeat(40), `0.${'0'.repeat(30)}1`, '95000', '95000.05', '0.01', '0.001', '-95000', '1e3', ' 1 ',
  'BTC-PERP', 'btc-perp', 'BTC-USDC-SPOT', 'XAUT-USDC-PERP', 'BTC', 'XAUT', 'WTIOIL', 'BTC-USDC-2099-12-25-95000-C',
  '01ARZ3NDEKTSV4RRFFQ69G5FAV', '01arz3ndektsv4rrffq69g5fav', 'ZZZZZZZZZZZZZZZZZZZZZZZZZZ', '00000000000000000000000000',
  '../../etc/passwd', '%00', '%', '%zz', '{}', '[]', 'null', 'true', '__proto__', 'constructor', "' OR 1=1 --", '<script>',
  '${x}', 'buy', 'sell', 'market', 'limit', 'gtc', 'ioc', 'fok', 'cross', 'isolated', 'wallet', 'perps', 'spot', 'options',
  'read', 'trade', 'Bearer x', 'svc_sk_x', '2026-01-01T00:00:00Z', '1700000000', '1700000000000', '15', '1m', '1d',
]

const BAD_CHARS: readonly string[] = ['\u0000', '\u0001', '\u001f', '\u007f', '\ud800', '\udc00', '\u2028', '\ufeff', '\n', '%', '/', '\\', '"', "'", ' ', '\uffff']

export const NASTY_NUMBERS: readonly number[] = [
  0, -0, 1, -1, 0.5, 1.5, 100, 5_000, 1e21, -1e21, 1e308, -1e308, 2 ** 31, 2 ** 53, 2 ** 53 + 2, 0.1, 1e-7, 95_000, 600_001,
]

const GRAPHQL_TOKENS: readonly string[] = [
  '{', '}', '(', ')', '[', ']', ':', '!', '...', '$x', '$input', 'on', 'fragment F on Query', 'query', 'mutation', 'subscription',
  '@include(if: true)', '@skip(if: $x)', '@deprecated', '"\\u0000"', '"x"', '1e999', '-0', 'null', 'true', '__typename',
  '__schema { types { name } }', 'me', 'id', '...F', 'a: id', '# comment', '"""block"""', '$', '@', '=', '|', '&',
]

/** Percent-encoding of the UTF-8 bytes (a lone surrogate becomes U+FFFD; encodeURIComponent throws). */
export function encode(s: string): string {
  let out = ''
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b)
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

export class Fuzz {
  readonly rng: Rng

  constructor(seed: number) {
    this.rng = mulberry32(seed)
  }

  /** The generator of request `index` of a run seeded `seed`. */
  static of(seed: number, index: number): Fuzz {
    return new Fuzz((seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0)
  }

  int(n: number): number {
    return Math.floor(this.rng() * n)
  }

  chance(p: number): boolean {
    return this.rng() < p
  }

  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!
  }

  string(): string {
    const r = this.int(10)
    // A plausible value with one bad character in it: past the first checks, into the lookups.
    if (r < 3) {
      const v = this.pick(NASTY_STRINGS.slice(NASTY_STRINGS.indexOf('95000')))
      const at = this.int(v.length + 1)
      return v.slice(0, at) + this.pick(BAD_CHARS) + v.slice(at)
    }
    if (r < 4) return this.pick(NASTY_STRINGS) + this.pick(NASTY_STRINGS)
    if (r < 5) return Array.from({ length: 1 + this.int(12) }, () => String.fromCharCode(this.int(0x3000))).join('')
    return this.pick(NASTY_STRINGS)
  }

  number(): number {
    return this.chance(0.7) ? this.pick(NASTY_NUMBERS) : (this.rng() - 0.5) * 10 ** this.int(20)
  }

  /** A random JSON value, now and then nested past any real request. */
  json(depth = 0): unknown {
    const r = this.int(depth > 3 ? 5 : 8)
    if (r === 0) return null
    if (r === 1) return this.chance(0.5)
    if (r === 2) return this.number()
    if (r <= 4) return this.string()
    if (r === 5) return Array.from({ length: this.int(4) }, () => this.json(depth + 1))
    const o: Record<string, unknown> = {}
    for (let i = this.int(4); i > 0; i--) o[this.pick([...NASTY_STRINGS.slice(0, 20), '__proto__', 'constructor', 'toString', 'a'])] = this.json(depth + 1)
    return o
  }

  /** JSON text of arrays or objects nested thousands deep (JSON.parse takes it; a recursive walker of
   * the result overflows the stack), wrapping `inner` (JSON text) when given. */
  deepJson(inner = 'null'): string {
    const n = 500 + this.int(15_000)
    const object = this.chance(0.5)
    return object ? '{"a":'.repeat(n) + inner + '}'.repeat(n) : '['.repeat(n) + inner + ']'.repeat(n)
  }

  /** A valid template with one to three structural faults: a field dropped, retyped, nulled, added,
   * or the whole value replaced. */
  mutate(template: unknown): unknown {
    let v = structuredClone(template)
    for (let n = 1 + this.int(3); n > 0; n--) v = this.mutateOnce(v)
    return v
  }

  private mutateOnce(v: unknown): unknown {
    if (this.chance(0.08)) return this.json()
    if (Array.isArray(v)) {
      if (v.length === 0 || this.chance(0.2)) return [...v, this.json()]
      const i = this.int(v.length)
      const copy = [...v]
      copy[i] = this.mutateOnce(copy[i])
      return this.chance(0.1) ? Array.from({ length: 150 }, () => copy[0]) : copy
    }
    if (typeof v === 'object' && v !== null) {
      const o = { ...(v as Record<string, unknown>) }
      const keys = Object.keys(o)
      const r = this.int(6)
      if (r === 0 || keys.length === 0) o[this.chance(0.5) ? this.string() : `${this.pick(keys.length ? keys : ['x'])}X`] = this.json()
      else if (r === 1) delete o[this.pick(keys)]
      else if (r === 2) o[this.pick(keys)] = null
      else {
        const k = this.pick(keys)
        o[k] = this.mutateOnce(o[k])
      }
      return o
    }
    if (typeof v === 'string') return this.chance(0.7) ? this.string() : this.chance(0.5) ? this.number() : v + this.string()
    if (typeof v === 'number') return this.chance(0.6) ? this.number() : String(v)
    return this.json()
  }

  /** A path segment as sent: percent-encoded nasty text, or raw bytes the router must cope with. */
  segment(): string {
    const r = this.int(10)
    if (r === 0) return this.pick(['%', '%zz', '%0', '%C3', '%E0%A4%A', '..', '.', '', '%2F', '%2e%2e', ';', '%25', '%ff%fe', '%C0%80'])
    if (r === 1) return 'x'.repeat(90 + this.int(40))
    return encode(this.string()).slice(0, 4_000)
  }

  /** A query string over `keys` (and others): repeated, empty, bracketed and nasty keys and values. */
  query(keys: readonly string[]): string {
    const parts: string[] = []
    for (let n = this.int(5); n > 0; n--) {
      const key = this.chance(0.75) ? this.pick(keys.length ? keys : ['x']) : this.pick(['__proto__', 'constructor[prototype][x]', 'a[b]', 'a[]', '', this.string()])
      const value = this.chance(0.1) ? '' : this.chance(0.5) ? this.string() : String(this.number())
      parts.push(this.chance(0.05) ? encode(key) : `${encode(key)}=${encode(value)}`)
    }
    return parts.length ? `?${parts.join(this.chance(0.1) ? ';' : '&')}` : this.pick(['', '?', '?&&', '?=', '?%zz'])
  }

  /** A GraphQL document with tokens deleted, duplicated, swapped or inserted. */
  document(source: string): string {
    const tokens = source.split(/(\s+|[{}()[\]:,!$@=|&])/).filter((t) => t.trim() !== '')
    for (let n = 1 + this.int(4); n > 0; n--) {
      const i = this.int(tokens.length + 1)
      const r = this.int(4)
      if (r === 0) tokens.splice(i, 1)
      else if (r === 1 && tokens[i] !== undefined) tokens.splice(i, 0, tokens[i]!)
      else if (r === 2) tokens.splice(i, 0, this.pick(GRAPHQL_TOKENS))
      else tokens.splice(i, 1, JSON.stringify(this.string()))
    }
    return tokens.join(' ')
  }

  /** Random bytes (binary frames, bodies that are no text at all). */
  bytes(max: number): Buffer {
    return Buffer.from(Array.from({ length: this.int(max) }, () => this.int(256)))
  }

  /**
   * A WebSocket frame a client library would never send, as raw bytes for the socket under a
   * connection: reserved bits or opcodes, unmasked, a control frame too long or fragmented, a
   * continuation with nothing to continue, a close with a code no one may send, a length that lies.
   */
  badFrame(): Buffer {
    const payload = this.bytes(40)
    const r = this.int(9)
    if (r === 0) return frame({ opcode: 1, payload, rsv: 1 + this.int(7) })
    if (r === 1) return frame({ opcode: this.pick([3, 4, 5, 6, 7, 0xb, 0xc, 0xf]), payload })
    if (r === 2) return frame({ opcode: 1, payload: Buffer.from('{}'), masked: false })
    if (r === 3) return frame({ opcode: 9, payload: Buffer.alloc(126 + this.int(100)) })
    if (r === 4) return frame({ opcode: 9, payload, fin: false })
    if (r === 5) return frame({ opcode: 0, payload })
    if (r === 6) return frame({ opcode: 8, payload: Buffer.from([this.int(256), this.int(256), ...this.bytes(10)]) })
    if (r === 7) return frame({ opcode: 8, payload: Buffer.from([0x03]) })
    return Buffer.concat([frame({ opcode: 1, payload: Buffer.from('{"a"'), fin: false }), frame({ opcode: 2, payload })])
  }
}

/** One client frame: FIN, RSV bits, opcode, masked unless told, a 7, 16 or 64-bit length. */
function frame(o: { opcode: number; payload: Buffer; fin?: boolean; rsv?: number; masked?: boolean }): Buffer {
  const { payload } = o
  const masked = o.masked ?? true
  const head = [((o.fin ?? true) ? 0x80 : 0) | ((o.rsv ?? 0) << 4) | o.opcode]
  const maskBit = masked ? 0x80 : 0
  if (payload.length < 126) head.push(maskBit | payload.length)
  else if (payload.length < 65_536) head.push(maskBit | 126, payload.length >> 8, payload.length & 0xff)
  else throw new Error('frame: payload too long for this helper')
  if (!masked) return Buffer.concat([Buffer.from(head), payload])
  const mask = Buffer.from([0x12, 0x34, 0x56, 0x78])
  return Buffer.concat([Buffer.from(head), mask, Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!))])
}
