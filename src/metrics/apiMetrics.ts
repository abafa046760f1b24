// What the api role counts: requests, GraphQL operations, streams and rate-limit refusals. Built in every
// process (the identity service and the streams exist everywhere), registered only where the api role
// runs, so a process without it shows none of these families.
import { Counter, type Registry } from 'prom-client'
import { GraphqlMetrics } from './graphqlMetrics.js'
import { HttpMetrics } from './httpMetrics.js'
import { StreamMetrics } from './streamMetrics.js'

export interface RefusalCounts {
  /** An order-path request over the caller's rate (429 ORDER_RATE_LIMIT), over REST or GraphQL. */
  order(): void
  /** A stream connection over its address's quota (429 CONNECTION_LIMIT). */
  connection(): void
}

export class ApiMetrics {
  readonly http: HttpMetrics
  readonly graphql: GraphqlMetrics
  readonly streams: StreamMetrics
  readonly refusals: RefusalCounts

  constructor(registers: Registry[]) {
    this.http = new HttpMetrics(registers)
    this.graphql = new GraphqlMetrics(registers)
    this.streams = new StreamMetrics(registers)
    const refusals = new Counter({
      name: 'exchange_rate_limit_refusals_total',
      help: 'Requests refused by a rate limit: order (the order-path rate per user), connection (stream connections per address)',
      labelNames: ['limit'],
      registers,
    })
    const order = refusals.labels('order')
    const connection = refusals.labels('connection')
    order.inc(0)
    connection.inc(0)
    this.refusals = { order: () => order.inc(), connection: () => connection.inc() }
  }
}

/** Counts nothing anyone sees: for pieces built outside an exchange (tests, benchmarks). */
export const unregisteredApiMetrics = (): ApiMetrics => new ApiMetrics([])
