// The README's browser code for the SSE streams, run as it stands in a real browser (Debian's Chromium,
// headless, cut off from every host but the exchange): a page on the API's origin signs in with a wallet
// (POST /auth/verify sets the session cookie), then `new EventSource(...)` with the listeners the README
// shows receives the book's snapshot and deltas and the balance snapshots, and the balance stream's
// `close` event when the session signs out. And a page on another origin of the same site (the front-end
// at app.exchange.test, the API at api.exchange.test) gets the balance stream with `withCredentials`.
import { describe, expect, it } from 'vitest'
import { cookiePair, newWallet, signIn, siweMessage, verify } from '../support/auth.js'
import { browserFor } from '../support/browser.js'
import { exchangeFor } from '../support/exchange.js'
import { pushBtcCurve } from '../support/marks.js'
import { readmeBlock } from '../support/readme.js'

const chrome = browserFor(['app.exchange.test', 'api.exchange.test'])

type Logged = [string, any]

describe("the README's EventSource code in a browser", () => {
  const h = exchangeFor({ MARK_STALE_MS: '3600000' }, (api) => pushBtcCurve(api, '95000'))

  it('receives book deltas and balance snapshots, and stops when the server ends the stream', async () => {
    const url = h.ex.url!
    const tab = await chrome.open(url)
    await tab.page.goto(`${url}/health`) // any page of the API's origin
    // Sign in from the page, as a front-end would; the wallet's signature is made here (no wallet extension).
    const wallet = newWallet()
    const nonce = await tab.page.evaluate(async () => (await (await fetch('/auth/nonce')).json()).nonce as string)
    const message = siweMessage(url, wallet.address, { nonce })
    const signature = await wallet.signMessage({ message })
    const signedIn = await tab.page.evaluate(
      async (body) => {
        const res = await fetch('/auth/verify', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
        return { status: res.status, token: (await res.json()).token as string }
      },
      { message, signature },
    )
    expect(signedIn.status).toBe(200)
    const me = { authorization: `Bearer ${signedIn.token}` }

    await tab.page.addScriptTag({ content: readmeBlock('// streams.js') })

    const book = (match: (p: any) => boolean, what: string) =>
      tab.untilLog((args) => args[0] === 'book' && match(args[1]), what) as Promise<Logged>
    const balances = (match: (p: any) => boolean, what: string) =>
      tab.untilLog((args) => args[0] === 'balances' && match(args[1]), what) as Promise<Logged>

    const [, snapshot] = await book((p) => p.kind === 'snapshot', 'the book snapshot')
    expect(snapshot).toMatchObject({ kind: 'snapshot', marketId: 'BTC-PERP', bids: expect.any(Array), asks: expect.any(Array) })
    const [, first] = await balances((p) => p.kind === 'snapshot', 'the first balance snapshot')
    expect(first).toEqual({ kind: 'snapshot', ...(await h.api.get('/wallet/balance', me)).body })

    // A faucet credit: the next balance snapshot carries it.
    expect((await h.api.post('/wallet/faucet', { amount: '5000' }, me)).status).toBe(200)
    const [, credited] = await balances((p) => p.walletBalance !== first.walletBalance, 'a balance snapshot after the faucet')
    expect(credited).toEqual({ kind: 'snapshot', ...(await h.api.get('/wallet/balance', me)).body })

    // Another trader's order: the book's next delta has its level.
    const bob = await signIn(h.api, url)
    expect((await h.api.post('/wallet/faucet', { amount: '10000' }, bob.cookie)).status).toBe(200)
    expect((await h.api.post('/wallet/transfer', { from: 'wallet', to: 'perps', amount: '10000' }, bob.cookie)).status).toBe(200)
    const placed = await h.api.post('/perps/orders', { marketId: 'BTC-PERP', side: 'buy', type: 'limit', price: '94123', quantity: '0.01' }, bob.cookie)
    expect(placed.status, placed.text).toBe(200)
    const [, delta] = await book((p) => p.kind === 'delta', 'a book delta')
    expect(delta).toEqual({ kind: 'delta', marketId: 'BTC-PERP', sequence: snapshot.sequence + 1, changes: [{ side: 'bid', price: '94123', size: '0.01' }] })

    // Signing out ends the balance stream with INVALID_TOKEN; the README's listener closes it for good.
    expect(await tab.page.evaluate(async () => (await fetch('/auth/logout', { method: 'POST' })).status)).toBe(200)
    expect(await tab.untilLog((args) => args[0] === 'ended', 'the close event')).toEqual(['ended', 'INVALID_TOKEN'])
    expect(await tab.page.evaluate('[balances.readyState, book.readyState]')).toEqual([2, 1])

    expect(tab.blocked).toEqual([])
    expect(tab.errors).toEqual([])
  })
})

describe('EventSource from another origin of the same site', () => {
  // Served over plain http as in development (the cookie is Secure elsewhere); the front-end's origin
  // is allowed by SERVICE_DOMAIN, which it is a subdomain of.
  const h = exchangeFor({ NODE_ENV: 'development', SERVICE_DOMAIN: 'exchange.test' })

  it('gets the balance stream with { withCredentials: true } and the API origin\'s session cookie, and is refused without', async () => {
    const port = new URL(h.ex.url!).port
    const app = `http://app.exchange.test:${port}`
    const api = `http://api.exchange.test:${port}`
    const tab = await chrome.open(app, api)
    // The session cookie exactly as signing in on the API's origin sets it.
    const signedIn = await verify(h.api, h.ex.url!, newWallet())
    expect(signedIn.status).toBe(200)
    const setCookie = signedIn.headers.getSetCookie().find((c) => c.startsWith('session='))!
    expect(setCookie).toMatch(/; HttpOnly; SameSite=Lax$/)
    const token = cookiePair(signedIn).slice('session='.length)
    await tab.context.addCookies([{ name: 'session', value: token, url: api, httpOnly: true, sameSite: 'Lax' }])

    await tab.page.goto(`${app}/health`) // the front-end's page
    await tab.page.addScriptTag({
      content: `
        const withCookie = new EventSource('${api}/portfolio/balances/stream', { withCredentials: true })
        withCookie.addEventListener('BalanceSnapshot', (e) => console.log('with', JSON.parse(e.data).payload))
        const without = new EventSource('${api}/portfolio/balances/stream')
        without.onerror = () => console.log('without', without.readyState)
      `,
    })
    const [, snapshot] = (await tab.untilLog((args) => args[0] === 'with', 'the balance snapshot')) as [string, any]
    expect(snapshot).toEqual({ kind: 'snapshot', ...(await h.api.get('/wallet/balance', { authorization: `Bearer ${token}` })).body })
    // No cookie: 401 MISSING_CREDENTIAL, which EventSource takes as final (CLOSED, no retry).
    expect(await tab.untilLog((args) => args[0] === 'without', 'the refusal')).toEqual(['without', 2])
    expect(tab.blocked).toEqual([])
    for (const e of tab.errors) expect(e).toMatch(/401|MIME type/)
  })
})
