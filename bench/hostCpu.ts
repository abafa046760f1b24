// The whole machine's CPU over a measured window, by who used it: PostgreSQL's processes, Redis, this
// process (the load generator) and the host's idle time, read from Linux's /proc. The HTTP bench prints
// it beside the server's own figure, so each run shows the budget a request draws on: two cores give
// 10,000 requests a second at most 200 µs each, every process included (docs/decisions.md, D-233).
import { readdirSync, readFileSync } from 'node:fs'

/** CPU seconds (user + system) used so far, by group; and the host's idle and total ticks. */
interface Reading {
  postgres: Map<number, number>
  redis: Map<number, number>
  self: number
  idleTicks: number
  totalTicks: number
}

export interface HostCpu {
  /** Cores used over the window. */
  postgres: number
  redis: number
  loadGenerator: number
  /** Share of the machine's CPU time that was idle (all cores). */
  idle: number
}

const TICKS_PER_SECOND = 100

/** A process's name and the CPU seconds (user + system) it has used so far; throws when it is gone. */
export function processCpu(pid: number | string): { comm: string; seconds: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return { comm, seconds: (Number(f[11]) + Number(f[12])) / TICKS_PER_SECOND } // utime, stime in clock ticks
}

function read(): Reading | null {
  let pids: string[]
  let cpu: number[]
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p))
    cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1).map(Number)
  } catch {
    return null // not Linux
  }
  const r: Reading = { postgres: new Map(), redis: new Map(), self: 0, idleTicks: cpu[3]! + cpu[4]!, totalTicks: cpu.reduce((a, b) => a + b, 0) }
  for (const pid of pids) {
    let p
    try {
      p = processCpu(pid)
    } catch {
      continue // gone between the listing and the read
    }
    if (p.comm.startsWith('postgres')) r.postgres.set(Number(pid), p.seconds)
    else if (p.comm.startsWith('redis-server')) r.redis.set(Number(pid), p.seconds)
  }
  const own = process.cpuUsage()
  r.self = (own.user + own.system) / 1e6
  return r
}

/** What each group's processes used since `before` (a process started meanwhile counts from zero). */
function used(before: Map<number, number>, after: Map<number, number>): number {
  let s = 0
  for (const [pid, seconds] of after) s += seconds - (before.get(pid) ?? 0)
  return s
}

/** Starts a window; its end gives the cores each group used over it, or null off Linux. */
export function hostCpuWindow(): { end(): HostCpu | null } {
  const before = read()
  const t0 = performance.now()
  return {
    end() {
      const after = read()
      if (!before || !after) return null
      const seconds = (performance.now() - t0) / 1000
      const ticks = after.totalTicks - before.totalTicks
      return {
        postgres: used(before.postgres, after.postgres) / seconds,
        redis: used(before.redis, after.redis) / seconds,
        loadGenerator: (after.self - before.self) / seconds,
        idle: ticks > 0 ? (after.idleTicks - before.idleTicks) / ticks : 0,
      }
    },
  }
}
