// The liquidity simulator's configuration: wallet keys, interval and API URL, validated at start.
import { privateKeyToAccount } from 'viem/accounts'
import { keccak256, stringToHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { defaultSiweDomains } from '../../src/auth/siwe.js'
import { ConfigError, DEV_MAKER_PRIVATE_KEY, DEV_TAKER_PRIVATE_KEY, loadConfig } from '../../src/config/env.js'
import { makerApiUrl } from '../../src/roles/maker/simMaker.js'

const KEY = `0x${'ab'.repeat(32)}`

describe('simulator configuration', () => {
  it('defaults to the labelled development keys, a 1 s interval and this process\'s own API', () => {
    const c = loadConfig({})
    expect(c).toMatchObject({
      makerPrivateKey: DEV_MAKER_PRIVATE_KEY,
      takerPrivateKey: DEV_TAKER_PRIVATE_KEY,
      makerKeysAreDevDefault: true,
      makerIntervalMs: 1_000,
      makerApiUrl: undefined,
    })
    // Derived from public labels, two distinct valid wallets.
    expect(DEV_MAKER_PRIVATE_KEY).toBe(keccak256(stringToHex('exchange-api DEVELOPMENT ONLY sim-maker key: public, never fund')))
    expect(privateKeyToAccount(DEV_MAKER_PRIVATE_KEY).address).not.toBe(privateKeyToAccount(DEV_TAKER_PRIVATE_KEY).address)
  })

  it('takes explicit keys, interval and API origin', () => {
    const c = loadConfig({ MAKER_PRIVATE_KEY: KEY.toUpperCase().replace('0X', '0x'), TAKER_PRIVATE_KEY: KEY, MAKER_INTERVAL_MS: '250', MAKER_API_URL: 'http://api.internal:3000' })
    expect(c).toMatchObject({ makerPrivateKey: KEY, takerPrivateKey: KEY, makerKeysAreDevDefault: false, makerIntervalMs: 250, makerApiUrl: 'http://api.internal:3000' })
  })

  it.each([
    ['MAKER_PRIVATE_KEY', 'ab'.repeat(32)],
    ['MAKER_PRIVATE_KEY', `0x${'ab'.repeat(31)}`],
    ['MAKER_PRIVATE_KEY', `0x${'0'.repeat(64)}`],
    ['TAKER_PRIVATE_KEY', `0x${'f'.repeat(64)}`],
    ['MAKER_INTERVAL_MS', '10'],
    ['MAKER_API_URL', 'http://api.internal:3000/v1'],
    ['MAKER_API_URL', 'ftp://api.internal'],
  ])('fails at start on an invalid %s, naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError)
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name))
  })

  it('needs MAKER_API_URL when the maker runs without the api role, unless the simulator is off', () => {
    expect(() => loadConfig({ ROLES: 'maker' })).toThrow(/MAKER_API_URL is required/)
    expect(loadConfig({ ROLES: 'maker', MAKER_API_URL: 'http://api:3000' }).makerApiUrl).toBe('http://api:3000')
    expect(loadConfig({ ROLES: 'maker', SIM_MAKER: 'false' }).simMaker).toBe(false)
  })

  it('needs real wallet keys to run the simulator in production', () => {
    const prod = { NODE_ENV: 'production', JWT_SECRET: 'p'.repeat(32), SIM_MAKER: 'true' }
    expect(() => loadConfig(prod)).toThrow(/MAKER_PRIVATE_KEY and TAKER_PRIVATE_KEY are required/)
    expect(loadConfig({ ...prod, MAKER_PRIVATE_KEY: KEY, TAKER_PRIVATE_KEY: KEY }).makerKeysAreDevDefault).toBe(false)
  })

  it.each([
    [{ HOST: '0.0.0.0' }, 3000, 'http://127.0.0.1:3000'],
    [{ HOST: '127.0.0.1' }, 41234, 'http://127.0.0.1:41234'],
    [{ HOST: '10.1.2.3' }, 3000, 'http://10.1.2.3:3000'],
    [{ HOST: 'fd00::5' }, 3000, 'http://[fd00::5]:3000'],
    [{ MAKER_API_URL: 'https://api.example.com' }, 3000, 'https://api.example.com'],
  ])('trades through %j on port %i at %s', (env, port, url) => {
    expect(makerApiUrl(loadConfig(env), port)).toBe(url)
  })

  // The simulator signs in with its API URL's host as the SIWE domain; unless SIWE_DOMAINS says
  // otherwise, the node must accept it, or the simulator retries its sign-in for ever.
  it.each(['0.0.0.0', '::', '127.0.0.1', 'localhost', '10.1.2.3', 'api.internal'])('signs in with a domain a node bound to %s accepts by default', (host) => {
    const c = loadConfig({ HOST: host })
    expect(defaultSiweDomains(c.host, 3000)).toContain(new URL(makerApiUrl(c, 3000)).host)
  })
})
