// Headless Chromium for end-to-end tests: Debian's build (/usr/bin/chromium, which .ci/run installs)
// driven by playwright-core, with the network cut off from everything but the exchange under test, so
// a page that needs the internet (a CDN script, a web font) fails here as it would on an offline machine.
//   const chrome = browserFor()                          // in a describe block
//   const tab = await chrome.open(h.ex.url!)             // a fresh context: no cookies, no storage
//   await tab.page.goto(`${h.ex.url}/docs`); ...; await tab.screenshot('docs')
//   expect(tab.blocked).toEqual([]); expect(tab.errors).toEqual([])
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, beforeAll } from 'vitest'
import { ROOT } from './mainProcess.js'

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium'

/** How long a page may take to show what a test waits for. */
export const WAIT_MS = 60_000

/** Screenshots land here (gitignored; CI keeps it as an artifact). */
export const ARTIFACTS = join(ROOT, 'test-artifacts')

export interface Tab {
  readonly context: BrowserContext
  readonly page: Page
  /** Requests and WebSockets the page tried to send anywhere but the exchange (each one refused). */
  readonly blocked: string[]
  /** Uncaught exceptions in the page and console errors, as text. */
  readonly errors: string[]
  /** The arguments of every console.log call of the page, as JSON values, in order. */
  readonly logs: unknown[][]
  /** The first console.log call (past or future) whose arguments match; fails after WAIT_MS naming `what`. */
  untilLog(match: (args: unknown[]) => boolean, what: string): Promise<unknown[]>
  /** Saves a PNG of the viewport (or the whole page) to ARTIFACTS/<name>.png and returns its path. */
  screenshot(name: string, opts?: { fullPage?: boolean }): Promise<string>
}

/**
 * Chromium resolving no host name but the loopback ones (even its own background requests stay home),
 * and `loopbackNames` (say app.exchange.test and api.exchange.test: two origins of one site) to 127.0.0.1.
 */
export async function launchChromium(loopbackNames: readonly string[] = []): Promise<Browser> {
  const rules = [...loopbackNames.map((name) => `MAP ${name} 127.0.0.1`), 'MAP * ~NOTFOUND', 'EXCLUDE localhost', 'EXCLUDE 127.0.0.1']
  return chromium.launch({ executablePath: CHROMIUM, args: [`--host-resolver-rules=${rules.join(', ')}`] })
}

/** A fresh context (no cookies, no storage) whose pages may reach `origins` and nothing else. */
export async function openTab(browser: Browser, ...origins: string[]): Promise<Tab> {
  const allowedOrigins = new Set(origins.map((o) => new URL(o).origin))
  const allowedHosts = new Set(origins.map((o) => new URL(o).host))
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  // Bounds against a hang, not speed targets: a loaded two-core machine parses GraphiQL's 5 MB slowly.
  context.setDefaultTimeout(WAIT_MS)
  const blocked: string[] = []
  const errors: string[] = []
  const logs: unknown[][] = []
  const waiters = new Set<(args: unknown[]) => void>()
  const logged = (args: unknown[]) => {
    logs.push(args)
    for (const w of waiters) w(args)
  }
  await context.route(
    (url) => !allowedOrigins.has(url.origin),
    (route) => {
      blocked.push(route.request().url())
      return route.abort('internetdisconnected')
    },
  )
  // WebSocket URLs are ws(s):, so they are compared by host.
  await context.routeWebSocket(
    (url) => !allowedHosts.has(url.host),
    (ws) => {
      blocked.push(ws.url())
      return ws.close()
    },
  )
  const page = await context.newPage()
  page.on('pageerror', (err) => errors.push(`${err.name}: ${err.message}`))
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text())
    if (msg.type() === 'log') {
      void Promise.all(msg.args().map((a) => a.jsonValue())).then(logged, () => logged([msg.text()]))
    }
  })
  return {
    context,
    page,
    blocked,
    errors,
    logs,
    untilLog(match, what) {
      const seen = logs.find(match)
      if (seen) return Promise.resolve(seen)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter)
          reject(new Error(`timed out waiting for the page to log ${what}; it logged ${JSON.stringify(logs).slice(0, 2000)}`))
        }, WAIT_MS)
        const waiter = (args: unknown[]) => {
          if (!match(args)) return
          clearTimeout(timer)
          waiters.delete(waiter)
          resolve(args)
        }
        waiters.add(waiter)
      })
    },
    async screenshot(name, opts = {}) {
      mkdirSync(ARTIFACTS, { recursive: true })
      const path = join(ARTIFACTS, `${name}.png`)
      await page.screenshot({ path, fullPage: opts.fullPage ?? false })
      return path
    },
  }
}

/** For a describe block: Chromium launched before its tests and closed after them; `open` gives tabs. */
export function browserFor(loopbackNames: readonly string[] = []): { open(...origins: string[]): Promise<Tab> } {
  let browser: Browser | undefined
  const contexts: BrowserContext[] = []
  beforeAll(async () => {
    browser = await launchChromium(loopbackNames)
  })
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {})
    await browser?.close()
  })
  return {
    async open(...origins) {
      if (!browser) throw new Error('browserFor(): open() is for tests, after beforeAll')
      const tab = await openTab(browser, ...origins)
      contexts.push(tab.context)
      return tab
    },
  }
}
