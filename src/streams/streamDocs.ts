// The streams as the OpenAPI document describes them, and the query schemas the SSE routes check their
// requests with (src/streams/sse.ts). OpenAPI has no words for a WebSocket: each socket is a GET that
// answers 101 Switching Protocols, its protocol in the description.
import { z } from 'zod'
import type { DocumentedRoute } from '../rest/openapi.js'
import { queryText } from '../rest/requestSchema.js'
import { SOCKETS } from './wsFeeds.js'

const underlying = z.object({ underlying: queryText('Underlying symbol; default `BTC`.').optional() })

export const sseQueries = {
  book: z.object({ marketId: queryText('Linear market id, e.g. `BTC-PERP`.') }),
  board: underlying,
  ticks: underlying,
}

const ENVELOPE =
  'Each event is `id: <eventSeq>`, `event: <eventType>`, `data: <envelope>` where the envelope is `{eventId, eventType, eventSeq, engineTs, sourceTs, correlationId, causationId, payload}`; ' +
  'a `: keep-alive` comment goes out every SSE_KEEPALIVE_MS. The first event is a snapshot; deltas follow with contiguous sequence numbers; a client that sees a gap reconnects, and every reconnect starts from a fresh snapshot. ' +
  'A stream the server ends (a revoked key, a slow consumer) gets a last `event: close` whose data is the error body.'

const sse = (path: string, auth: 'public' | 'read', summary: string, description: string, query?: z.ZodType): DocumentedRoute => ({
  method: 'GET',
  path,
  auth,
  tag: 'Streams',
  summary,
  description: `${description}\n\n${ENVELOPE}`,
  ...(query ? { query } : {}),
  errors: ['CONNECTION_LIMIT', path === '/perps/book-stream' ? 'MARKET_NOT_FOUND' : path === '/portfolio/balances/stream' ? 'KEY_REVOKED' : 'PRODUCT_NOT_FOUND'],
  responses: [{ status: 200, description: 'An event stream.', mediaType: 'text/event-stream', schema: z.string().meta({ description: 'Server-sent events.' }) }],
})

const PROTOCOL =
  'Send `{"method": "subscribe", "subscription": {"type": …, "symbol": …}}`; the server answers `{"type": "ack", "subscription": …}` and then sends envelopes. ' +
  '`{"method": "unsubscribe", "subscription": …}` ends one. Send the text `ping` every 30 s (the server answers `pong`); a socket silent for 90 s is closed.'

const SOCKET_DOCS: Record<string, { summary: string; description: string }> = {
  '/ws/perps/prices': { summary: 'Perpetual price ticks (WebSocket)', description: 'Subscription type `prices`, `symbol` a perpetual\'s market id: `PerpPrice` envelopes `{kind: "price", symbol, price, tsMs}`.' },
  '/ws/feeds': { summary: 'Options order books and fills (WebSocket)', description: 'Subscription types `orderbook` (snapshot, then deltas) and `fills`, `symbol` an option\'s market id.' },
  '/ws/quotes': {
    summary: 'Top of book and the caller\'s quotes (WebSocket)',
    description: 'Subscription type `quotes` (by market id or underlying); `myQuotes` (with a credential on the upgrade request): a `QuoteSnapshot` of the caller\'s open quote orders, then a `QuoteUpdate` per change, and `MmpTriggered`.',
  },
}

const socket = (path: string): DocumentedRoute => ({
  method: 'GET',
  path,
  auth: 'public',
  tag: 'Streams',
  summary: SOCKET_DOCS[path]?.summary ?? `WebSocket ${path}`,
  description: `${SOCKET_DOCS[path]?.description ?? ''}\n\n${PROTOCOL}`,
  errors: ['NOT_FOUND', 'CONNECTION_LIMIT'],
  responses: [{ status: 101, description: 'Switching Protocols: a WebSocket (`Upgrade: websocket`).' }],
})

export const streamRouteDocs: readonly DocumentedRoute[] = [
  sse('/perps/book-stream', 'public', 'Linear order book: snapshot, then deltas (SSE)', '`OrderbookSnapshot` `{kind: "snapshot", marketId, sequence, bids, asks}`, then `OrderbookDelta` `{kind: "delta", marketId, sequence, changes: [{side, price, size}]}`; size "0" removes the level.', sseQueries.book),
  sse('/markets/board/stream', 'public', 'Options board: snapshot, then deltas (SSE)', 'The options board of an underlying, `kind: "snapshot"` then `kind: "delta"` rows.', sseQueries.board),
  sse('/stream/options/ticks', 'public', 'Option ticks: snapshot, then deltas (SSE)', '`OptionSnapshot`, `OptionDelta` `{kind, seq, ticks: [{instrumentId, bid, ask, mark, iv, delta}]}`.', sseQueries.ticks),
  sse('/portfolio/balances/stream', 'read', 'The caller\'s balances (SSE)', 'Balance snapshots of the caller\'s buckets, one per change.'),
  ...Object.keys(SOCKETS).map(socket),
]

/** Paths served by WebSocket upgrade alone (no HTTP route): the document's GETs answering 101. */
export const WEBSOCKET_PATHS: readonly string[] = Object.keys(SOCKETS)
