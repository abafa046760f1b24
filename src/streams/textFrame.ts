// Owns the bytes of one unmasked, unfragmented WebSocket text frame (RFC 6455 §5.2), as a server sends
// it: a fan-out writes a message that differs between subscribers only in its head (the graphql-ws
// subscription id) as one buffer per socket, built from bytes encoded once for all of them.

/** The frame of the text message `head` + `body` (both UTF-8), in one buffer. */
export function textFrame(head: Uint8Array, body: Uint8Array): Buffer {
  const n = head.length + body.length
  const h = n < 126 ? 2 : n < 65_536 ? 4 : 10
  const frame = Buffer.allocUnsafe(h + n)
  frame[0] = 0x81 // FIN, opcode 1 (text)
  if (h === 2) {
    frame[1] = n
  } else if (h === 4) {
    frame[1] = 126
    frame.writeUInt16BE(n, 2)
  } else {
    frame[1] = 127
    frame.writeUInt32BE(Math.floor(n / 2 ** 32), 2)
    frame.writeUInt32BE(n >>> 0, 6)
  }
  frame.set(head, h)
  frame.set(body, h + head.length)
  return frame
}

/**
 * The same frame's header as a latin1 string (one char per byte), for a message of `n` bytes: with an
 * all-ASCII message the whole frame is a string (header + text), which the socket encodes straight into
 * the kernel's buffer, where a Buffer per subscriber and message would be memory outside V8's heap that
 * it answers with major collections (see socketFeed.ts).
 */
export function textFrameHeader(n: number): string {
  if (n < 126) return String.fromCharCode(0x81, n)
  if (n < 65_536) return String.fromCharCode(0x81, 126, n >>> 8, n & 0xff)
  const hi = Math.floor(n / 2 ** 32)
  const lo = n >>> 0
  return String.fromCharCode(0x81, 127, hi >>> 24, (hi >>> 16) & 0xff, (hi >>> 8) & 0xff, hi & 0xff, lo >>> 24, (lo >>> 16) & 0xff, (lo >>> 8) & 0xff, lo & 0xff)
}
