// Owns the metrics registry of one process (one per exchange started, so tests that run several in one
// process keep them apart): Node's own process metrics, which roles run here, and a helper for readings
// taken at scrape time. Each role registers the families it owns (api, engine, indexer) on it; a
// process of several roles exposes them all on one page (GET /metrics).
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client'
import type { Role } from '../config/env.js'

export function createRegistry(roles: ReadonlySet<Role>): Registry {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const running = new Gauge({ name: 'exchange_roles', help: 'Roles this process runs (1 per role)', labelNames: ['role'], registers: [registry] })
  for (const role of roles) running.set({ role }, 1)
  return registry
}

/** Where a role's families go: the registry when the role runs here, nowhere otherwise (they still count, unseen). */
export const registersFor = (registry: Registry | null): Registry[] => (registry ? [registry] : [])

/**
 * A reading taken when Prometheus scrapes (a Redis or PostgreSQL query), shared by the gauges of one
 * scrape (they collect in parallel) and bounded in time: a reading that fails or takes longer than
 * `timeoutMs` (its server away) is null, its gauges show NaN, and the page is still served.
 */
export function scrapeReading<T>(read: () => Promise<T>, timeoutMs = 1_000): () => Promise<T | null> {
  let current: Promise<T | null> | null = null
  return () => {
    if (current) return current
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), timeoutMs)
      timer.unref()
    })
    const reading = Promise.race([read().catch(() => null), deadline]).finally(() => {
      clearTimeout(timer)
      current = null
    })
    current = reading
    return reading
  }
}
