// Owns the per-IP cap on long-lived stream connections of one API node (WebSockets and SSE responses,
// DESIGN.md §10): a connection takes a slot when it opens and gives it back when it closes.
export class ConnectionCaps {
  private readonly open = new Map<string, number>()

  constructor(
    private readonly perIp: number,
    /** Told of each connection refused (metrics). */
    private readonly onRefused: () => void = () => {},
  ) {}

  /** What a refused client is told. */
  get limitMessage(): string {
    return `At most ${this.perIp} stream connections per address`
  }

  /** False when the address already holds its quota. */
  acquire(ip: string): boolean {
    const n = this.open.get(ip) ?? 0
    if (n >= this.perIp) {
      this.onRefused()
      return false
    }
    this.open.set(ip, n + 1)
    return true
  }

  release(ip: string): void {
    const n = (this.open.get(ip) ?? 0) - 1
    if (n <= 0) this.open.delete(ip)
    else this.open.set(ip, n)
  }
}
