// What request handlers (GraphQL resolvers, REST routes, streams) are given: one object per API node.
import type { Logger } from 'pino'
import type { Identity } from '../auth/identity.js'
import type { CommandBus } from '../bus/commandBus.js'
import type { Config } from '../config/env.js'
import type { MarketData } from './marketData.js'

export interface Services {
  readonly config: Config
  readonly log: Logger
  readonly marketData: MarketData
  readonly commands: CommandBus
  /** Sign-in, sessions, API keys, credential checks and the order-rate limit. */
  readonly identity: Identity
}
