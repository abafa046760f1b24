// Owns the exchange as `npm start` runs it: the bundle `npm run build` writes to dist/app, started in a
// child process. globalSetup builds it once per test run; tests spawn it with their own environment.
//   const p = launchMain({ NODE_ENV: 'test', ROLES: 'engine', ... }); await p.ready; ... p.kill()
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { testClock } from './clock.js'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
export const MAIN_BUNDLE = 'dist/app/main.mjs'

/**
 * Starts the built exchange with `env` over a minimal environment (PATH only); output as `stdio` says.
 * A test process (NODE_ENV=test) runs on the test's clock (CLOCK_OFFSET_MS), so both read the same "now".
 */
export function spawnMain(env: Record<string, string>, stdio: StdioOptions = 'pipe'): ChildProcess {
  const clock = env['NODE_ENV'] === 'test' ? { CLOCK_OFFSET_MS: String(testClock.now() - Date.now()) } : {}
  return spawn(process.execPath, ['--enable-source-maps', MAIN_BUNDLE], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...clock, ...env },
    stdio,
  })
}

export interface MainProcess {
  readonly child: ChildProcess
  /** Every JSON log line written so far (LOG_LEVEL decides how many). */
  readonly logs: Array<Record<string, unknown>>
  /** Whatever it wrote to stderr (a crash's stack lands here). */
  readonly stderr: () => string
  /** Its HTTP base URL once it serves (role api); rejects if it exits first. */
  readonly url: Promise<string>
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** Not exited. */
  alive(): boolean
  /** Stopped by SIGSTOP (state T in /proc). */
  stopped(): boolean
  /** A log line whose `msg` is `msg`, once written. */
  logged(msg: string): boolean
}

/** Starts the built exchange and follows its logs. Kill it with `child.kill('SIGKILL')` when done. */
export function launchMain(env: Record<string, string>): MainProcess {
  const child = spawnMain(env)
  const logs: Array<Record<string, unknown>> = []
  let stderr = ''
  child.stderr!.on('data', (d) => (stderr += d))
  let exitedWith: { code: number | null; signal: NodeJS.Signals | null } | null = null
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve((exitedWith = { code, signal }))),
  )
  const url = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        const entry = JSON.parse(line) as Record<string, unknown>
        logs.push(entry)
        if (entry['msg'] === 'serving HTTP') resolve(entry['url'] as string)
      } catch {
        // not a log line
      }
    })
    void exited.then(({ code, signal }) => reject(new Error(`exited (${code ?? signal}) before serving: ${stderr}`)))
  })
  url.catch(() => {}) // engine-only processes never serve
  return {
    child,
    logs,
    stderr: () => stderr,
    url,
    exited,
    alive: () => exitedWith === null,
    stopped: () => {
      try {
        // /proc/<pid>/stat: "pid (comm) state ..."; comm may hold spaces, the state follows its last ')'.
        const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8')
        return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'T'
      } catch {
        return false
      }
    },
    logged: (msg) => logs.some((l) => l['msg'] === msg),
  }
}
