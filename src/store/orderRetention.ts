// Retention of orders that ended without trading. A market maker amends and cancels far more orders than
// ever fill; their rows would grow the database without end (the simulator alone wrote ~8 GB a day).
// What is removed is what nothing needs: an order that is final (canceled or rejected: the engine never
// touches it again, and a rebuild reads only open orders), never filled (no fill, trade or ledger row
// points at it), carries no clientOrderId (a rebuild re-reads every clientOrderId from this table to keep
// them unique for all time), and closed no liquidation step (position_events name it). Everything else
// (fills, trades, ledger, positions, orders with any fill) is kept forever.
import type pg from 'pg'

/** Rows one DELETE removes: small enough that no statement holds its locks for long. */
export const PRUNE_CHUNK_ROWS = 1_000
/** Chunks one run removes at most; a backlog is worked off over the following runs. */
export const PRUNE_MAX_CHUNKS = 50

export interface PruneOptions {
  /** Orders that ended (their last update) at least this long before `now` are removed. */
  retentionMs: number
  /** Epoch milliseconds: the caller's clock, so tests decide what "old" is. */
  now: number
  chunkRows?: number
  maxChunks?: number
}

export interface PruneResult {
  deleted: number
  /** True when the run stopped at maxChunks with candidates left. */
  more: boolean
}

// The partial index orders_prunable_idx holds exactly the rows the first three conditions allow, by
// "updatedAt"; the DELETE checks them again on the row it locked, and SKIP LOCKED passes over a row the
// engine's batch is writing at that moment rather than waiting for it. The chunk is a CTE, which
// PostgreSQL evaluates once (a LIMIT inside `id IN (subquery)` can be re-run per outer row and delete
// more than the limit).
const PRUNE_CHUNK = `
  WITH doomed AS (
    SELECT o.id FROM orders o
    WHERE o.status IN ('canceled', 'rejected') AND o."filledQuantity" = 0 AND o."clientOrderId" IS NULL AND o."updatedAt" < $1
      AND NOT EXISTS (SELECT 1 FROM position_events pe WHERE pe."orderId" = o.id)
    ORDER BY o."updatedAt"
    LIMIT $2
    FOR UPDATE SKIP LOCKED
  )
  DELETE FROM orders USING doomed WHERE orders.id = doomed.id
    AND orders.status IN ('canceled', 'rejected') AND orders."filledQuantity" = 0 AND orders."clientOrderId" IS NULL AND orders."updatedAt" < $1`

/** Removes final, never-filled orders older than the retention, in chunks of their own short transactions. */
export async function pruneUnfilledOrders(pool: pg.Pool, o: PruneOptions): Promise<PruneResult> {
  const chunkRows = o.chunkRows ?? PRUNE_CHUNK_ROWS
  const maxChunks = o.maxChunks ?? PRUNE_MAX_CHUNKS
  const cutoff = new Date(o.now - o.retentionMs)
  let deleted = 0
  for (let i = 0; i < maxChunks; i++) {
    const r = await pool.query(PRUNE_CHUNK, [cutoff, chunkRows])
    deleted += r.rowCount ?? 0
    if ((r.rowCount ?? 0) < chunkRows) return { deleted, more: false }
  }
  return { deleted, more: true }
}
