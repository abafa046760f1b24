// The HTTP family of an API node: request latency per route pattern (`/perps/orders/:id`, never the raw
// URL), method and status. Observed once per response on the order path, so the labelled child of each
// (route, method, status) is kept: an observation is then two map lookups and prom-client's observe.
import { Histogram, type Registry } from 'prom-client'

type Observe = (seconds: number) => void

/** Latency bounds from a cached read (~1 ms) to a slow engine round trip. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

export class HttpMetrics {
  private readonly duration: Histogram<'method' | 'route' | 'status_code'>
  private readonly children = new Map<string, Map<string, Map<number, Observe>>>()

  constructor(registers: Registry[]) {
    this.duration = new Histogram({
      name: 'exchange_http_request_duration_seconds',
      help: 'HTTP request latency (request received to response sent) by route pattern, method and status; event streams and WebSockets are not included',
      labelNames: ['method', 'route', 'status_code'],
      buckets: BUCKETS,
      registers,
    })
  }

  observe(route: string, method: string, status: number, seconds: number): void {
    let byMethod = this.children.get(route)
    if (!byMethod) this.children.set(route, (byMethod = new Map()))
    let byStatus = byMethod.get(method)
    if (!byStatus) byMethod.set(method, (byStatus = new Map()))
    let observe = byStatus.get(status)
    if (!observe) {
      const child = this.duration.labels({ method, route, status_code: status })
      byStatus.set(status, (observe = (s) => child.observe(s)))
    }
    observe(seconds)
  }
}
