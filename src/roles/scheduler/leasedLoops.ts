// Periodic jobs that must run on one instance at a time: they run only while this process holds the
// scheduler lease, each on its own interval, never overlapping with itself.
import type { Logger } from 'pino'
import type { Lease } from '../../bus/lease.js'

export interface Job {
  name: string
  intervalMs: number
  run(): Promise<void>
}

export class LeasedLoops {
  private timers: NodeJS.Timeout[] = []
  private leaseTimer: NodeJS.Timeout | null = null
  private held = false
  private stopped = false
  private readonly running = new Set<Promise<void>>()

  constructor(
    private readonly lease: Lease,
    private readonly jobs: readonly Job[],
    private readonly log: Logger,
  ) {}

  get isLeader(): boolean {
    return this.held
  }

  async start(): Promise<void> {
    await this.checkLease()
    this.leaseTimer = setInterval(() => void this.checkLease(), Math.max(50, Math.floor(this.lease.ttlMs / 3)))
  }

  /**
   * Stops the jobs and lets running ones finish; then, if this instance still leads, runs `beforeRelease`
   * (a leader's last act, such as withdrawing its orders) and releases the lease. The lease is renewed
   * until then, so no other instance takes over while a job or `beforeRelease` still runs.
   */
  async stop(beforeRelease?: () => Promise<void>): Promise<void> {
    this.stopped = true
    this.stopJobs()
    await Promise.allSettled([...this.running])
    if (this.held && beforeRelease) await beforeRelease().catch((err) => this.log.error({ err, at: 'LeasedLoops#stop' }, 'before-release step failed'))
    if (this.leaseTimer) clearInterval(this.leaseTimer)
    if (this.held) await this.lease.release().catch(() => {})
    this.held = false
  }

  /** Runs a job now (and waits for it) if this instance leads; used at start-up for the listing. */
  async runNow(name: string): Promise<void> {
    const job = this.jobs.find((j) => j.name === name)
    if (job && this.held) await this.execute(job)
  }

  private async checkLease(): Promise<void> {
    // Once stopping, a held lease is only renewed, until stop() releases it.
    if (this.stopped && !this.held) return
    try {
      const held = this.held ? await this.lease.renew() : await this.lease.tryAcquire()
      if (held && !this.held) {
        this.held = true
        this.log.info({ at: 'LeasedLoops#checkLease' }, 'scheduler leading')
        this.timers = this.jobs.map((job) => setInterval(() => void this.execute(job), job.intervalMs))
      } else if (!held && this.held) {
        this.log.warn({ at: 'LeasedLoops#checkLease' }, 'scheduler lease lost')
        this.held = false
        this.stopJobs()
      }
    } catch (err) {
      this.log.warn({ err, at: 'LeasedLoops#checkLease' }, 'scheduler lease check failed')
    }
  }

  private stopJobs(): void {
    for (const t of this.timers) clearInterval(t)
    this.timers = []
  }

  private readonly busy = new Set<string>()

  private async execute(job: Job): Promise<void> {
    if (this.busy.has(job.name) || !this.held || this.stopped) return
    this.busy.add(job.name)
    const p = job
      .run()
      .catch((err) => this.log.error({ err, at: `job#${job.name}` }, 'scheduled job failed'))
      .finally(() => this.busy.delete(job.name))
    this.running.add(p)
    await p
    this.running.delete(p)
  }
}
