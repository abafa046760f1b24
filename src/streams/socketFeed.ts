// Owns backpressure for one stream sent on a WebSocket (the /ws sockets and graphql-ws alike): a
// message is sent only while the socket's unsent bytes stay under STREAM_MAX_BUFFER_BYTES. Past it, a
// stream that can start again from a snapshot skips messages and, once the socket has drained to half
// the limit, asks for a fresh snapshot (conflation); any other stream is given up (the caller closes or
// ends it with SLOW_CONSUMER). Server memory per subscriber stays bounded either way.
// The first message to a socket in a tick is written at once; any further ones in the same tick are held
// and leave together at the end of it: when the node is busy and events arrive in bursts, a burst costs
// each subscriber two system calls instead of one per event, while a lone event is not delayed.
import type { Duplex } from 'node:stream'
import type { WebSocket } from 'ws'

/** How often a conflated stream looks whether its socket has drained. */
const DRAIN_CHECK_MS = 50

/** The TCP socket under each upgraded WebSocket (the one handed to handleUpgrade). */
const transports = new WeakMap<WebSocket, Duplex>()
/** Sockets written to in this tick, and those of them holding writes until its end. */
let written: Set<Duplex> | null = null
let corked = new Set<Duplex>()

export function adoptTransport(ws: WebSocket, socket: Duplex): void {
  transports.set(ws, socket)
}

function endOfTick(): void {
  const held = corked
  written = null
  corked = new Set()
  for (const socket of held) socket.uncork()
}

/** Before a send: the socket's second message in this tick and the ones after wait for its end. */
function batchWithinTick(ws: WebSocket): void {
  const socket = transports.get(ws)
  if (!socket) return
  if (!written) {
    written = new Set()
    process.nextTick(endOfTick)
  }
  if (!written.has(socket)) {
    written.add(socket)
  } else if (!corked.has(socket)) {
    socket.cork()
    corked.add(socket)
  }
}

export class SocketFeed {
  private stale = false
  private closed = false
  private drainCheck: NodeJS.Timeout | null = null

  constructor(
    private readonly ws: WebSocket,
    private readonly maxBytes: number,
    /** Fresh snapshot on demand; null for event streams. */
    private readonly resync: (() => void) | null,
    /** The consumer is too slow and the stream cannot skip: the caller ends it. */
    private readonly overflow: (bufferedAmount: number) => void,
    /** Told when a stream starts skipping (for logs). */
    private readonly conflated: (bufferedAmount: number) => void = () => {},
  ) {}

  send(text: string): void {
    if (this.stale || this.closed) return
    const buffered = this.ws.bufferedAmount
    if (buffered <= this.maxBytes) {
      batchWithinTick(this.ws)
      this.ws.send(text)
      return
    }
    if (!this.resync) return this.overflow(buffered)
    this.conflated(buffered)
    this.stale = true
    this.drainCheck = setInterval(() => {
      if (this.ws.bufferedAmount > this.maxBytes / 2) return
      this.stopChecking()
      this.stale = false
      this.resync?.()
    }, DRAIN_CHECK_MS)
  }

  close(): void {
    this.closed = true
    this.stopChecking()
  }

  private stopChecking(): void {
    if (this.drainCheck) clearInterval(this.drainCheck)
    this.drainCheck = null
  }
}
