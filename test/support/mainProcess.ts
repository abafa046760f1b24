// Owns the exchange as `npm start` runs it: the bundle `npm run build` writes to dist/app, started in a
// child process. globalSetup builds it once per test run; tests spawn it with their own environment.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
export const MAIN_BUNDLE = 'dist/app/main.mjs'

/** Starts the built exchange with `env` over a minimal environment (PATH only); output as `stdio` says. */
export function spawnMain(env: Record<string, string>, stdio: StdioOptions = 'pipe'): ChildProcess {
  return spawn(process.execPath, ['--enable-source-maps', MAIN_BUNDLE], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio,
  })
}
