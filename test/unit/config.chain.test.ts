// The chain's configuration: unset by default (no indexer, the exchange works on the faucet), complete or
// refused when CHAIN_RPC_URL is set, and a vault key that is not the vault's is refused at start.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/env.js'

const key = generatePrivateKey()
const vault = privateKeyToAccount(key).address
const token = '0x036CbD53842c5426634e7929541eC2318f3dCF7e'
const full = { CHAIN_RPC_URL: 'http://127.0.0.1:8545', USDC_TOKEN_ADDRESS: token.toLowerCase(), VAULT_ADDRESS: vault.toLowerCase(), VAULT_PRIVATE_KEY: key }

describe('chain configuration', () => {
  it('is off without CHAIN_RPC_URL', () => {
    expect(loadConfig({}).chain).toBeNull()
  })

  it('keeps checksummed addresses and defaults to 12 confirmations', () => {
    expect(loadConfig(full).chain).toEqual({ rpcUrl: 'http://127.0.0.1:8545', token, vault, vaultPrivateKey: key, confirmations: 12, pollMs: 2_000, startBlock: 0 })
    expect(loadConfig({ ...full, DEPOSIT_CONFIRMATIONS: '3' }).chain?.confirmations).toBe(3)
  })

  it.each([
    ['the token', { USDC_TOKEN_ADDRESS: undefined }, 'CHAIN_RPC_URL'],
    ['the vault key', { VAULT_PRIVATE_KEY: undefined }, 'CHAIN_RPC_URL'],
    ['a malformed address', { VAULT_ADDRESS: '0x1234' }, 'VAULT_ADDRESS'],
    ['zero confirmations', { DEPOSIT_CONFIRMATIONS: '0' }, 'DEPOSIT_CONFIRMATIONS'],
    ['a key that is not the vault\'s', { VAULT_PRIVATE_KEY: generatePrivateKey() }, 'VAULT_PRIVATE_KEY is not the key of VAULT_ADDRESS'],
  ])('refuses to start without %s', (_what, patch, message) => {
    expect(() => loadConfig({ ...full, ...patch })).toThrow(message)
  })
})
