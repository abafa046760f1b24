// Stream clients for end-to-end tests, the way real clients read the streams: an EventSource-style SSE
// reader over fetch's streaming body (the browser EventSource parsing rules, plus headers such as
// Authorization and Last-Event-ID), and a WebSocket with a message queue. Both hand out messages in
// order with next(), so tests await the exact message instead of sleeping.
import WebSocket from 'ws'
import { deferred, type Deferred } from './deferred.js'

/** A FIFO that hands items to waiters in order; next() fails after `timeoutMs` with what was seen. */
export class Inbox<T> {
  private readonly items: T[] = []
  private readonly waiters: Array<Deferred<T>> = []
  private closedWith: unknown = null
  readonly seen: T[] = []

  push(item: T): void {
    this.seen.push(item)
    const w = this.waiters.shift()
    if (w) w.resolve(item)
    else this.items.push(item)
  }

  close(reason: unknown): void {
    this.closedWith = reason
    for (const w of this.waiters.splice(0)) w.reject(reason)
  }

  next(timeoutMs = 10_000): Promise<T> {
    const item = this.items.shift()
    if (item !== undefined) return Promise.resolve(item)
    if (this.closedWith !== null) return Promise.reject(this.closedWith)
    const d = deferred<T>()
    this.waiters.push(d)
    const timer = setTimeout(() => {
      const i = this.waiters.indexOf(d)
      if (i >= 0) this.waiters.splice(i, 1)
      d.reject(new Error(`no message within ${timeoutMs} ms; last seen: ${JSON.stringify(this.seen.slice(-3))}`))
    }, timeoutMs)
    return d.promise.finally(() => clearTimeout(timer))
  }

  /** Skips messages until one matches. */
  async until(match: (item: T) => boolean, timeoutMs = 10_000): Promise<T> {
    for (;;) {
      const item = await this.next(timeoutMs)
      if (match(item)) return item
    }
  }
}

export interface SseEvent {
  id: string | undefined
  event: string
  data: string
}

export class SseClient {
  readonly events = new Inbox<SseEvent>()
  readonly comments = new Inbox<string>()
  readonly ended = deferred<void>()
  private reader: ReadableStreamDefaultReader<Uint8Array> | null = null
  private paused: Deferred<void> | null = null

  private constructor(
    readonly status: number,
    readonly headers: Headers,
    /** The response body when it is not a stream (errors). */
    readonly body: any,
    private readonly abort: AbortController,
  ) {}

  /** Opens the stream; a non-2xx answer comes back with its JSON body and no events. */
  static async open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const abort = new AbortController()
    const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal })
    if (!res.ok || !res.body) {
      const text = await res.text()
      let body: unknown = text
      try {
        body = JSON.parse(text)
      } catch {
        // not JSON
      }
      const c = new SseClient(res.status, res.headers, body, abort)
      c.ended.resolve()
      return c
    }
    const c = new SseClient(res.status, res.headers, null, abort)
    c.reader = res.body.getReader()
    void c.pump()
    return c
  }

  /** Stops reading the body (the server's socket buffer fills), until resume(). */
  pause(): void {
    this.paused ??= deferred<void>()
  }

  resume(): void {
    this.paused?.resolve()
    this.paused = null
  }

  close(): void {
    this.abort.abort()
  }

  /** The next event's data as JSON. */
  async nextJson(timeoutMs?: number): Promise<{ event: SseEvent; data: any }> {
    const event = await this.events.next(timeoutMs)
    return { event, data: JSON.parse(event.data) }
  }

  private async pump(): Promise<void> {
    const decoder = new TextDecoder()
    let buffer = ''
    let event: { id?: string; event?: string; data: string[] } = { data: [] }
    try {
      for (;;) {
        if (this.paused) await this.paused.promise
        const { value, done } = await this.reader!.read()
        if (done) break
        buffer += decoder.decode(value, { stream: true })
        let nl: number
        while ((nl = buffer.search(/\r\n|\r|\n/)) >= 0) {
          const line = buffer.slice(0, nl)
          buffer = buffer.slice(nl + (buffer.startsWith('\r\n', nl) ? 2 : 1))
          if (line === '') {
            if (event.data.length > 0) this.events.push({ id: event.id, event: event.event ?? 'message', data: event.data.join('\n') })
            event = { data: [] }
          } else if (line.startsWith(':')) {
            this.comments.push(line.slice(1).trim())
          } else {
            const colon = line.indexOf(':')
            const field = colon < 0 ? line : line.slice(0, colon)
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
            if (field === 'data') event.data.push(value)
            else if (field === 'event') event.event = value
            else if (field === 'id') event.id = value
          }
        }
      }
      this.events.close(new Error('stream ended'))
    } catch (err) {
      this.events.close(err)
    } finally {
      this.ended.resolve()
    }
  }
}

export class WsClient {
  readonly messages = new Inbox<string>()
  readonly closed = deferred<{ code: number; reason: string }>()

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => this.messages.push(String(data)))
    ws.on('close', (code, reason) => {
      this.closed.resolve({ code, reason: String(reason) })
      this.messages.close(new Error(`socket closed ${code} ${String(reason)}`))
    })
  }

  static open(url: string, headers: Record<string, string> = {}, protocol?: string): Promise<WsClient> {
    const ws = new WebSocket(url, protocol, { headers })
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new WsClient(ws)))
      ws.once('error', reject)
      ws.once('unexpected-response', (_req, res) => {
        let body = ''
        res.on('data', (c: Buffer) => (body += c))
        res.on('end', () => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode, body: body ? JSON.parse(body) : null })))
      })
    })
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message))
  }

  async json(timeoutMs?: number): Promise<any> {
    return JSON.parse(await this.messages.next(timeoutMs))
  }

  /** Stops reading from the TCP socket (the server's buffer fills), until resume(). */
  pause(): void {
    ;(this.ws as unknown as { _socket: { pause(): void } })._socket.pause()
  }

  resume(): void {
    ;(this.ws as unknown as { _socket: { resume(): void } })._socket.resume()
  }

  close(): void {
    this.ws.close()
  }
}

export const wsUrl = (httpUrl: string, path: string) => `${httpUrl.replace(/^http/, 'ws')}${path}`

/** Applies an OrderbookSnapshot/OrderbookDelta payload to a book of [price, size] levels. */
export function applyBook(book: { bids: Map<string, string>; asks: Map<string, string> } | null, payload: any) {
  if (payload.kind === 'snapshot') return { bids: new Map<string, string>(payload.bids), asks: new Map<string, string>(payload.asks) }
  if (!book) throw new Error('delta before snapshot')
  for (const c of payload.changes) {
    const side = c.side === 'bid' ? book.bids : book.asks
    if (c.size === '0') side.delete(c.price)
    else side.set(c.price, c.size)
  }
  return book
}

/** A book of levels in the snapshot's shape: best first. */
export function levels(book: { bids: Map<string, string>; asks: Map<string, string> }) {
  const sort = (m: Map<string, string>, dir: 1 | -1) => [...m.entries()].sort((a, b) => dir * (Number(a[0]) - Number(b[0])))
  return { bids: sort(book.bids, -1), asks: sort(book.asks, 1) }
}
