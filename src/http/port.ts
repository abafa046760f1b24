// The HTTP port as start-up sees it: whether it can be bound, checked before the slow start-up work
// (migrations, the engine's recovery, the catalog), and a refused bind as one line naming the port
// instead of a stack trace after it. The check and the real bind are separate, so listen's own
// refusal is translated the same way.
import { createServer } from 'node:net'

export class PortUnavailableError extends Error {}

const WHY: Record<string, string> = {
  EADDRINUSE: 'is already in use; stop the process holding it or set PORT to a free one',
  EACCES: 'needs privileges this process lacks; set PORT to one above 1023',
  EADDRNOTAVAIL: 'names an address this machine does not have; set HOST',
}

/** The one-line error for a failed bind, or null when `err` is not one. */
export function portError(err: unknown, host: string, port: number): PortUnavailableError | null {
  const why = WHY[(err as { code?: string } | null)?.code ?? '']
  return why ? new PortUnavailableError(`Port ${port} on ${host} ${why}`) : null
}

/** Binds `host:port` for a moment; throws PortUnavailableError when it cannot. Port 0 always can. */
export async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return
  const probe = createServer()
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject)
      probe.listen({ host, port, exclusive: true }, resolve)
    })
  } catch (err) {
    throw portError(err, host, port) ?? err
  }
  await new Promise((resolve) => probe.close(resolve))
}
