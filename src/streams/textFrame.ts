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
