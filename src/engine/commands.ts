// The engine's input vocabulary. Every change to trading or account state is one of these commands,
// appended to the Redis command stream by an API node, the scheduler or the indexer, and applied by the
// engine in stream order. A command carries its own time; the engine never reads a clock.
import type { ErrorCode, ErrorDetails } from '../domain/errors.js'
import type { MarketSpec } from '../domain/market.js'

export interface MarkInput {
  marketId: string
  /** Canonical positive decimal string. */
  price: string
  source: string
  /** Upstream time of the observation, unix ms. */
  sourceTs: number
}

export type Command =
  | { type: 'ListMarkets'; markets: MarketSpec[] }
  | { type: 'SetMarketStatus'; marketId: string; status: 'active' | 'halted' }
  | { type: 'ExpireMarket'; marketId: string }
  | { type: 'UpdateMarks'; marks: MarkInput[] }

export type CommandType = Command['type']

export interface CommandEnvelope {
  /** Unique id chosen by the producer; the reply carries it back. */
  id: string
  /** Producer's clock, unix ms. The engine clock is the running maximum of these. */
  ts: number
  /** Correlation id of the request that caused the command, copied onto its events. */
  correlationId?: string
  /** Reply channel of the producing node; absent when nobody waits for the result. */
  replyTo?: string
  cmd: Command
}

export type Reply =
  | { ok: true; value: unknown }
  | { ok: false; code: ErrorCode; message: string; details?: ErrorDetails }
