// What request handlers (GraphQL resolvers, REST routes, streams) are given: one object per API node.
import type { Logger } from 'pino'
import type { Identity } from '../auth/identity.js'
import type { CommandBus } from '../bus/commandBus.js'
import type { FeedPause } from '../bus/feedPause.js'
import type { Config } from '../config/env.js'
import type { Clock } from '../domain/clock.js'
import type { ApiMetrics } from '../metrics/apiMetrics.js'
import type { AccountReads } from '../store/accountReads.js'
import type { Streams } from '../streams/streams.js'
import type { MarketData } from './marketData.js'
import type { MarketMakerProtection } from './mmp.js'
import type { Trading } from './trading.js'

export interface Services {
  readonly config: Config
  readonly log: Logger
  /** Wall-clock time of this node (tests run the exchange at an instant they choose). */
  readonly clock: Clock
  readonly marketData: MarketData
  readonly commands: CommandBus
  /** The operator's pause of the simulated mark feed (`POST /admin/feed`). */
  readonly feedPause: FeedPause
  /** Sign-in, sessions, API keys, credential checks and the order-rate limit. */
  readonly identity: Identity
  /** Orders, quotes, transfers, faucet: validated and sent to the engine. */
  readonly trading: Trading
  /** Market-maker protection: configuration, reset and its committed state. */
  readonly mmp: MarketMakerProtection
  /** The caller's committed records from PostgreSQL. */
  readonly reads: AccountReads
  /** Every SSE, WebSocket and GraphQL stream, fed from the engine's event bus. */
  readonly streams: Streams
  /** The api role's metric families: requests, GraphQL, streams, rate-limit refusals. */
  readonly metrics: ApiMetrics
}
