// The typed client example (examples/typed-client/client.ts) run as a user runs it, with tsx in a child
// process against a started exchange: it subscribes to the book over graphql-ws, places a post-only bid
// and sees its level arrive, cancels it and sees the level go.
import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { createKey, fundPerps, signIn } from '../support/auth.js'
import { exchangeFor } from '../support/exchange.js'
import { pushBtcCurve } from '../support/marks.js'
import { ROOT } from '../support/mainProcess.js'

const h = exchangeFor({ MARK_STALE_MS: '3600000' }, (api) => pushBtcCurve(api, '95000'))

function runExample(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'examples/typed-client/client.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('exit', (code) => resolve({ code, stdout, stderr }))
  })
}

describe('examples/typed-client', () => {
  it('subscribes to a book, places and cancels an order, and exits 0', async () => {
    const trader = await signIn(h.api, h.ex.url!)
    await fundPerps(h.api, trader)
    const key = await createKey(h.api, trader.cookie, { scope: 'trade' })

    const run = await runExample({ API_URL: h.ex.url!, KEY: key.secret })
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    // 1% under the 95000 mark, on BTC-PERP's tick; its minimum quantity.
    const lines = run.stdout.trim().split('\n')
    expect(lines).toEqual([
      expect.stringMatching(/^book BTC-PERP snapshot #\d+: \d+ bids, \d+ asks; bid 94050 holds 0$/),
      expect.stringMatching(/^placed [0-9A-Z]{26} OPEN BUY 0\.001 @ 94050$/),
      'book: bid 94050 holds 0.001',
      expect.stringMatching(/^cancelled [0-9A-Z]{26} CANCELED \(USER\)$/),
      'book: bid 94050 holds 0',
    ])
    const orderId = lines[1]!.split(' ')[1]!
    const orders = (await h.api.get('/perps/orders', key.auth)).body as Array<Record<string, unknown>>
    expect(orders.find((o) => o.id === orderId)).toMatchObject({ status: 'canceled', price: '94050', quantity: '0.001' })
  })

  it('fails with the error code when the key cannot trade', async () => {
    const reader = await signIn(h.api, h.ex.url!)
    const key = await createKey(h.api, reader.cookie, { scope: 'read' })
    const run = await runExample({ API_URL: h.ex.url!, KEY: key.secret })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('SCOPE_INSUFFICIENT')
  })
})
