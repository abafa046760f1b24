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
