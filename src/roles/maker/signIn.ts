// How a simulated trader gets its credential, exactly as a front-end and a bot would: sign in with
// Ethereum (GET /auth/nonce, an EIP-4361 message signed by the wallet, POST /auth/verify), then, with that
// session, replace its API key: revoke the active keys it created before under the same name (so restarts
// do not pile keys up) and create a fresh `trade` key. It trades with that key only.
import type { PrivateKeyAccount } from 'viem/accounts'
import { createSiweMessage } from 'viem/siwe'
import { SIWE_CHAIN_ID } from '../../auth/siwe.js'
import type { Clock } from '../../domain/clock.js'
import type { ExchangeClient } from './exchangeClient.js'

export interface TraderCredential {
  userId: string
  address: string
  /** The API key's id and the client that sends its secret. */
  keyId: string
  api: ExchangeClient
}

const MESSAGE_TTL_MS = 5 * 60_000

/** Signs in and returns the session JWT. The SIWE domain and URI are those of the API's base URL. */
export async function signInWithEthereum(api: ExchangeClient, wallet: PrivateKeyAccount, statement: string, clock: Clock): Promise<{ token: string; user: { id: string; address: string } }> {
  const { nonce } = await api.get<{ nonce: string }>('/auth/nonce')
  const base = new URL(api.baseUrl)
  const now = new Date(clock())
  const message = createSiweMessage({
    address: wallet.address,
    chainId: SIWE_CHAIN_ID,
    domain: base.host,
    uri: base.origin,
    version: '1',
    nonce,
    issuedAt: now,
    expirationTime: new Date(now.getTime() + MESSAGE_TTL_MS),
    statement,
  })
  const signature = await wallet.signMessage({ message })
  return api.post('/auth/verify', { message, signature })
}

/** Signs in, rotates the key named `keyName`, and returns a client that trades with the new key. */
export async function provisionTrader(api: ExchangeClient, wallet: PrivateKeyAccount, keyName: string, clock: Clock): Promise<TraderCredential> {
  const session = await signInWithEthereum(api, wallet, `Sign in to the exchange as its liquidity simulator (${keyName})`, clock)
  const asSession = api.as(`Bearer ${session.token}`)
  const { keys } = await asSession.get<{ keys: Array<{ id: string; name: string; status: string }> }>('/perps/me/api-keys')
  for (const k of keys) {
    if (k.name === keyName && k.status === 'active') await asSession.delete(`/perps/me/api-keys/${encodeURIComponent(k.id)}`)
  }
  const key = await asSession.post<{ id: string; secret: string }>('/perps/me/api-keys', { name: keyName, scope: 'trade' })
  // The session is not needed any more; ending it leaves only the key alive.
  await asSession.post('/auth/logout').catch(() => undefined)
  return { userId: session.user.id, address: session.user.address, keyId: key.id, api: api.as(`Bearer ${key.secret}`) }
}
