// Owns writing one stream to a WebSocket (the /ws sockets and graphql-ws alike), within the slow-consumer
// rule (src/streams/slowConsumer.ts) measured on the socket's unsent bytes; a conflated stream looks
// every DRAIN_CHECK_MS whether its socket has drained, as ws has no event for it.
// The first message to a socket in a tick is written at once; any further ones in the same tick are held
// and leave together at the end of it: when the node is busy and events arrive in bursts, a burst costs
// each subscriber two system calls instead of one per event, while a lone event is not delayed.
// A fan-out message made of a part shared by every subscriber is framed here and written to the TCP
// socket as one chunk: ws would write its header and the payload as two, one more allocation and a
// vectored write per message and socket. When the whole message is ASCII (sendAscii) the chunk is a
// latin1 string, which the socket encodes straight into the kernel's buffer: a Buffer per subscriber
// and message (sendBytes, the fallback) is memory outside V8's heap, and at 1,000 subscribers its
// growth alone made V8 start a major collection every few seconds, the loop running several times
// slower while one was marking (docs/decisions.md, Performance). ws writes its own frames (graphql-ws's
// handshake, errors, pings) whole and in order, and without permessage-deflate nothing of a message
// waits in ws, so frames from the two never interleave; ws.bufferedAmount counts both.
import type { Duplex } from 'node:stream'
import type { WebSocket } from 'ws'
import { SlowConsumerGate, type Backlog, type SlowConsumerOptions } from './slowConsumer.js'
import { textFrame, textFrameHeader } from './textFrame.js'

/** How often a conflated stream looks whether its socket has drained. */
const DRAIN_CHECK_MS = 50

/** The TCP socket under an upgraded WebSocket (the one handed to handleUpgrade), and its writes this tick. */
interface Transport {
  readonly socket: Duplex
  /** The tick of its last write (see `tick`). */
  tick: number
  corked: boolean
}

const transports = new WeakMap<WebSocket, Transport>()
/** Counts ticks in which something was written; a transport written to in this one holds further writes. */
let tick = 0
let endScheduled = false
const corked: Transport[] = []

export function adoptTransport(ws: WebSocket, socket: Duplex): void {
  transports.set(ws, { socket, tick: -1, corked: false })
}

function endOfTick(): void {
  endScheduled = false
  tick++
  for (const t of corked.splice(0)) {
    t.corked = false
    t.socket.uncork()
  }
}

/** Before a write: the socket's second message in this tick and the ones after wait for its end. */
function batchWithinTick(t: Transport): void {
  if (!endScheduled) {
    endScheduled = true
    process.nextTick(endOfTick)
  }
  if (t.tick !== tick) {
    t.tick = tick
  } else if (!t.corked) {
    t.corked = true
    t.socket.cork()
    corked.push(t)
  }
}

export class SocketFeed {
  private readonly gate: SlowConsumerGate
  /** The TCP socket, when frames may be written to it directly (no extension such as compression). */
  private readonly transport: Transport | null

  constructor(
    private readonly ws: WebSocket,
    rule: SlowConsumerOptions,
  ) {
    this.transport = ws.extensions === '' ? (transports.get(ws) ?? null) : null
    this.gate = new SlowConsumerGate(socketBacklog(ws), rule)
  }

  send(text: string): void {
    if (!this.admit()) return
    if (this.transport) batchWithinTick(this.transport)
    this.ws.send(text)
  }

  /** The text message `head` + `body` (UTF-8 bytes; `body` the same buffer for every subscriber). */
  sendBytes(head: Uint8Array, body: Uint8Array): void {
    if (!this.admit()) return
    const t = this.transport
    if (!t) return this.ws.send(Buffer.concat([head, body]), { binary: false })
    batchWithinTick(t)
    t.socket.write(textFrame(head, body))
  }

  /**
   * The text message `head` + `body`, both all ASCII (the caller knows: `body` is shared by every
   * subscriber and checked once): the frame goes to the socket as one latin1 string, no Buffer.
   */
  sendAscii(head: string, body: string): void {
    if (!this.admit()) return
    const t = this.transport
    if (!t) return this.ws.send(head + body)
    batchWithinTick(t)
    t.socket.write(textFrameHeader(head.length + body.length) + head + body, 'latin1')
  }

  close(): void {
    this.gate.close()
  }

  private admit(): boolean {
    return this.ws.readyState === 1 && this.gate.admit()
  }
}

function socketBacklog(ws: WebSocket): Backlog {
  return {
    bytes: () => ws.bufferedAmount,
    whenBelow(bytes, drained) {
      const check = setInterval(() => {
        if (ws.bufferedAmount > bytes) return
        clearInterval(check)
        drained()
      }, DRAIN_CHECK_MS)
      return () => clearInterval(check)
    },
  }
}
