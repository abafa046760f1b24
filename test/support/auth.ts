// Signing in and holding credentials in end-to-end tests, the way a real front-end does it: a wallet
// (viem's local account), a sign-in message built with the `siwe` package, the nonce from /auth/nonce.
//   const alice = await signIn(api, newWallet())   // alice.cookie, alice.bearer, alice.user
import { SiweMessage } from 'siwe'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { expect } from 'vitest'
import type { Http, HttpResult } from './http.js'
import { testClock } from './clock.js'

export const CHAIN_ID = 84532

export const newWallet = (): PrivateKeyAccount => privateKeyToAccount(generatePrivateKey())

/** The host:port of a test exchange, as a SIWE domain. */
export const hostOf = (baseUrl: string) => new URL(baseUrl).host

export interface MessageFields {
  domain?: string
  uri?: string
  chainId?: number
  nonce: string
  issuedAt?: string
  expirationTime?: string
  notBefore?: string
  statement?: string
}

export function siweMessage(baseUrl: string, address: string, f: MessageFields): string {
  return new SiweMessage({
    domain: f.domain ?? hostOf(baseUrl),
    address,
    statement: f.statement ?? 'Sign in to the exchange',
    uri: f.uri ?? new URL(baseUrl).origin,
    version: '1',
    chainId: f.chainId ?? CHAIN_ID,
    nonce: f.nonce,
    issuedAt: f.issuedAt ?? new Date(testClock.now()).toISOString(),
    expirationTime: f.expirationTime,
    notBefore: f.notBefore,
  }).prepareMessage()
}

export async function nonce(api: Http): Promise<string> {
  const res = await api.get('/auth/nonce')
  expect(res.status).toBe(200)
  return res.body.nonce
}

/** POST /auth/verify for a fresh, valid message unless fields override it. */
export async function verify(api: Http, baseUrl: string, wallet: PrivateKeyAccount, f: Partial<MessageFields> = {}): Promise<HttpResult> {
  const message = siweMessage(baseUrl, wallet.address, { nonce: f.nonce ?? (await nonce(api)), ...f })
  const signature = await wallet.signMessage({ message })
  return api.post('/auth/verify', { message, signature })
}

/** The `name=value` pair of a Set-Cookie header, for a later Cookie header. */
export function cookiePair(res: HttpResult, name = 'session'): string {
  const set = res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))
  if (!set) throw new Error(`no ${name} cookie set`)
  return set.split(';')[0]!
}

export interface SignedIn {
  wallet: PrivateKeyAccount
  token: string
  user: { id: string; address: string }
  /** Headers sending the session as a cookie. */
  cookie: Record<string, string>
  /** Headers sending the session's JWT as a Bearer token. */
  bearer: Record<string, string>
}

export async function signIn(api: Http, baseUrl: string, wallet: PrivateKeyAccount = newWallet()): Promise<SignedIn> {
  const res = await verify(api, baseUrl, wallet)
  expect(res.status, res.text).toBe(200)
  return {
    wallet,
    token: res.body.token,
    user: res.body.user,
    cookie: { cookie: cookiePair(res) },
    bearer: { authorization: `Bearer ${res.body.token}` },
  }
}

export interface CreatedKey {
  id: string
  secret: string
  /** Headers sending the key as a Bearer token. */
  auth: Record<string, string>
}

export async function createKey(api: Http, session: Record<string, string>, body: Record<string, unknown> = {}): Promise<CreatedKey> {
  const res = await api.post('/perps/me/api-keys', { name: 'test key', scope: 'trade', ...body }, session)
  expect(res.status, res.text).toBe(201)
  return { id: res.body.id, secret: res.body.secret, auth: { authorization: `Bearer ${res.body.secret}` } }
}

export const del = (api: Http, path: string, headers: Record<string, string>) => api.request('DELETE', path, { headers })

/** Asserts the spec's error body and status. */
export function expectError(res: HttpResult, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.code }, res.text).toEqual({ status, code })
  expect(res.body).toMatchObject({ error: expect.any(String), code, message: expect.any(String) })
}

/** Faucets `faucet` USDC-T to the user's wallet and moves `perps` of it to the perps bucket. */
export async function fundPerps(api: Http, u: SignedIn, perps = '60000', faucet = '100000'): Promise<void> {
  expect((await api.post('/wallet/faucet', { amount: faucet }, u.cookie)).status).toBe(200)
  expect((await api.post('/wallet/transfer', { from: 'wallet', to: 'perps', amount: perps }, u.cookie)).status).toBe(200)
}
