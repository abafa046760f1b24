// The engine's checkpoint row: which command-stream id the database has the effects of, under which
// stream epoch, written by the leader holding which fencing token.
import type pg from 'pg'

export const ENGINE = 'engine'

export interface EngineOffset {
  epoch: string
  lastStreamId: string
  fencingToken: string
}

export async function readOffset(pool: pg.Pool): Promise<EngineOffset | null> {
  const { rows } = await pool.query<EngineOffset>(
    `SELECT epoch, "lastStreamId", "fencingToken" FROM engine_offsets WHERE name = $1`,
    [ENGINE],
  )
  return rows[0] ?? null
}

/** Takes the next fencing token: from now on a batch written with an older token is refused. */
export async function claimFencingToken(pool: pg.Pool): Promise<string> {
  const { rows } = await pool.query<{ fencingToken: string }>(
    `INSERT INTO engine_offsets (name, epoch, "lastStreamId", "fencingToken", counters, "updatedAt")
     VALUES ($1, '', '0-0', 1, '{}', now())
     ON CONFLICT (name) DO UPDATE SET "fencingToken" = engine_offsets."fencingToken" + 1, "updatedAt" = now()
     RETURNING "fencingToken"`,
    [ENGINE],
  )
  return rows[0]!.fencingToken
}

export type BatchOutcome = 'committed' | 'not-committed' | 'fenced-out' | 'diverged'

/**
 * What became of a batch whose COMMIT went unanswered (the connection died on the way), from the offset
 * row read afterwards. The batch's last stream id is written in the same transaction as its effects, so
 * the row says it all: our token and the batch's id → committed; our token and the previous id → not
 * committed (retry it); another token → a newer leader took over. Anything else means the row moved
 * under us and the in-memory state can no longer be trusted.
 */
export function batchOutcome(
  offset: EngineOffset | null,
  batch: { epoch: string; fencingToken: string; previousId: string; streamId: string },
): BatchOutcome {
  if (!offset || offset.fencingToken !== batch.fencingToken) return 'fenced-out'
  if (offset.epoch === batch.epoch && offset.lastStreamId === batch.streamId) return 'committed'
  if (offset.lastStreamId === batch.previousId) return 'not-committed'
  return 'diverged'
}
