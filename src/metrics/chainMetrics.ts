// What the indexer role reports, read from PostgreSQL when scraped (so every instance of the role shows
// the same, leader or not): how far the deposit indexer is behind the chain and how long ago it last
// polled (when a chain is configured), and the withdrawals accepted but not final yet.
import { Gauge, type Registry } from 'prom-client'
import type { ChainBacklog } from '../store/chainRows.js'
import { scrapeReading } from './registry.js'

export function registerChainMetrics(registers: Registry[], read: () => Promise<ChainBacklog>, chainConfigured: boolean): void {
  const backlog = scrapeReading(read)
  const gauge = (name: string, help: string, value: (b: ChainBacklog) => number | null) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        const b = await backlog()
        this.set((b && value(b)) ?? Number.NaN)
      },
    })
  if (chainConfigured) {
    gauge(
      'exchange_indexer_lag_blocks',
      "Chain head at the indexer's last poll less the last block it recorded as final (DEPOSIT_CONFIRMATIONS - 1 when keeping up; NaN before its first poll)",
      (b) => b.lagBlocks,
    )
    gauge('exchange_indexer_poll_age_seconds', 'Seconds since the deposit indexer last polled the chain (NaN before its first poll)', (b) => b.pollAgeSeconds)
  }
  gauge('exchange_withdrawals_pending', 'Withdrawals accepted and not final yet (unsigned, or sent and waiting for confirmations)', (b) => b.pendingWithdrawals)
  gauge('exchange_withdrawals_pending_usdc', 'USDC-T of the withdrawals accepted and not final yet', (b) => Number(b.pendingWithdrawalTotal))
}
