// Events the engine emits. Each belongs to one stream (a book, a symbol's prices, a user's fills...) and
// carries that stream's next sequence number, so every transport can hand clients the spec's envelope.

/**
 * Every `eventType` a stream envelope can carry: the engine's events and the frames API nodes make
 * themselves (snapshots, board and tick updates, quote views, resync notices). The GraphQL enum
 * StreamEventType is generated from this list.
 */
export const EVENT_TYPES = [
  'OrderbookSnapshot', 'OrderbookDelta', 'PerpPrice', 'Trade', 'Quote', 'BoardSnapshot', 'BoardDelta', 'OptionSnapshot',
  'OptionDelta', 'OrderUpdate', 'MmpTriggered', 'Fill', 'BalanceSnapshot', 'BalanceUpdate', 'QuoteSnapshot', 'QuoteUpdate',
  'MarkPrice', 'FundingSettled', 'MarketStatus', 'ResyncRequired',
] as const
export type EventType = (typeof EVENT_TYPES)[number]

export interface EngineEvent {
  /** Redis stream/channel suffix, e.g. `book:BTC-PERP`, `prices:BTC-PERP`, `markets`. */
  stream: string
  eventType: EventType
  eventSeq: number
  engineTs: number
  sourceTs: number | null
  correlationId: string | null
  causationId: string | null
  payload: unknown
}

/** The spec's event id: `{eventType}-{eventSeq}-{engineTs}`. */
export function eventId(e: Pick<EngineEvent, 'eventType' | 'eventSeq' | 'engineTs'>): string {
  return `${e.eventType}-${e.eventSeq}-${e.engineTs}`
}

export const streams = {
  book: (marketId: string) => `book:${marketId}`,
  prices: (marketId: string) => `prices:${marketId}`,
  marks: (family: string) => `marks:${family}`,
  trades: (marketId: string) => `trades:${marketId}`,
  funding: (marketId: string) => `funding:${marketId}`,
  markets: 'markets',
  /** Private streams, one per user. */
  orders: (userId: string) => `orders:${userId}`,
  fills: (userId: string) => `fills:${userId}`,
  balances: (userId: string) => `balances:${userId}`,
} as const
