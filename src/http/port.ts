// The HTTP port as start-up sees it: whether it can be bound, checked before the slow start-up work
// (migrations, the engine's recovery, the catalog), and a refused bind as one line naming the port
// instead of a stack trace after it. The check and the real bind are separate, so listen's own
// refusal is translated the same way.
import { createServer } from 'node:net'

export class PortUnavailableError extends Error {}

/** The settings that chose the address: the API's, or another listener's (METRICS_PORT, METRICS_HOST). */
export interface PortSettings {
  port: string
  host: string
}

const API: PortSettings = { port: 'PORT', host: 'HOST' }

const WHY: Record<string, (s: PortSettings) => string> = {
  EADDRINUSE: (s) => `is already in use; stop the process holding it or set ${s.port} to a free one`,
  EACCES: (s) => `needs privileges this process lacks; set ${s.port} to one above 1023`,
  EADDRNOTAVAIL: (s) => `names an address this machine does not have; set ${s.host}`,
}

/** The one-line error for a failed bind, or null when `err` is not one. */
export function portError(err: unknown, host: string, port: number, settings = API): PortUnavailableError | null {
  const why = WHY[(err as { code?: string } | null)?.code ?? '']
  return why ? new PortUnavailableError(`Port ${port} on ${host} ${why(settings)}`) : null
}

/** Binds `host:port` for a moment; throws PortUnavailableError when it cannot. Port 0 always can. */
export async function checkPortFree(host: string, port: number, settings = API): Promise<void> {
  if (port === 0) return
  const probe = createServer()
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject)
      probe.listen({ host, port, exclusive: true }, resolve)
    })
  } catch (err) {
    throw portError(err, host, port, settings) ?? err
  }
  await new Promise((resolve) => probe.close(resolve))
}
