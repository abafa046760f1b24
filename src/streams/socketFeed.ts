// Owns backpressure for one stream sent on a WebSocket (the /ws sockets and graphql-ws alike): a
// message is sent only while the socket's unsent bytes stay under STREAM_MAX_BUFFER_BYTES. Past it, a
// stream that can start again from a snapshot skips messages and, once the socket has drained to half
// the limit, asks for a fresh snapshot (conflation); any other stream is given up (the caller closes or
// ends it with SLOW_CONSUMER). Server memory per subscriber stays bounded either way.
// The first message to a socket in a tick is written at once; any further ones in the same tick are held
// and leave together at the end of it: when the node is busy and events arrive in bursts, a burst costs
// each subscriber two system calls instead of one per event, while a lone event is not delayed.
// A fan-out message made of bytes shared by every subscriber (sendBytes) is framed here and written to
// the TCP socket as one buffer: ws would write its header and the payload as two chunks, one more
// allocation and a vectored write per message and socket. ws writes its own frames (graphql-ws's
// handshake, errors, pings) whole and in order, and without permessage-deflate nothing of a message
// waits in ws, so frames from the two never interleave; ws.bufferedAmount counts both.
import type { Duplex } from 'node:stream'
import type { WebSocket } from 'ws'
import type { SlowConsumerMeter } from './subscriber.js'
import { textFrame } from './textFrame.js'

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
  private stale = false
  private closed = false
  private drainCheck: NodeJS.Timeout | null = null
  /** The TCP socket, when frames may be written to it directly (no extension such as compression). */
  private readonly transport: Transport | null

  constructor(
    private readonly ws: WebSocket,
    private readonly maxBytes: number,
    private readonly meter: SlowConsumerMeter,
    /** Fresh snapshot on demand; null for event streams. */
    private readonly resync: (() => void) | null,
    /** The consumer is too slow and the stream cannot skip: the caller ends it. */
    private readonly overflow: (bufferedAmount: number) => void,
    /** Told when a stream starts skipping (for logs). */
    private readonly conflated: (bufferedAmount: number) => void = () => {},
  ) {
    this.transport = transports.get(ws) ?? null
    if (ws.extensions !== '') this.transport = null
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

  close(): void {
    this.closed = true
    this.stopChecking()
  }

  /** Whether a message may be written now; past the limit, starts skipping or gives the stream up. */
  private admit(): boolean {
    if (this.closed || this.ws.readyState !== 1) return false
    if (this.stale) {
      this.meter.conflated(1)
      return false
    }
    const buffered = this.ws.bufferedAmount
    if (buffered <= this.maxBytes) return true
    if (!this.resync) {
      this.meter.dropped()
      this.overflow(buffered)
      return false
    }
    this.meter.conflated(1)
    this.conflated(buffered)
    this.stale = true
    this.drainCheck = setInterval(() => {
      if (this.ws.bufferedAmount > this.maxBytes / 2) return
      this.stopChecking()
      this.stale = false
      this.resync?.()
    }, DRAIN_CHECK_MS)
    return false
  }

  private stopChecking(): void {
    if (this.drainCheck) clearInterval(this.drainCheck)
    this.drainCheck = null
  }
}
