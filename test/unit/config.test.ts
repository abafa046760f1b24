import { describe, expect, it } from 'vitest'
import { ConfigError, DEV_JWT_SECRET, loadConfig } from '../../src/config/env.js'

describe('configuration', () => {
  it('has working defaults that point at localhost', () => {
    const c = loadConfig({})
    expect(c).toMatchObject({
      port: 3000,
      databaseUrl: 'postgresql://postgres@127.0.0.1:5432/exchange',
      redisUrl: 'redis://127.0.0.1:6379',
      markStaleMs: 5_000,
      markFeed: 'sim',
      simMaker: true,
      adminToken: undefined,
    })
    expect([...c.roles]).toEqual(['api', 'engine', 'scheduler', 'maker', 'indexer'])
  })

  it('parses roles, numbers and booleans, treating empty strings as unset', () => {
    const c = loadConfig({ ROLES: 'api, engine', PORT: '8080', SIM_MAKER: 'false', ADMIN_TOKEN: '' })
    expect([...c.roles]).toEqual(['api', 'engine'])
    expect(c.port).toBe(8080)
    expect(c.simMaker).toBe(false)
    expect(c.adminToken).toBeUndefined()
  })

  it('prunes unfilled orders after a day by default; 0 keeps them forever; under a minute is refused', () => {
    expect(loadConfig({}).pruneUnfilledOrdersAfterMs).toBe(86_400_000)
    expect(loadConfig({ PRUNE_UNFILLED_ORDERS_AFTER_MS: '0' }).pruneUnfilledOrdersAfterMs).toBe(0)
    expect(loadConfig({ PRUNE_UNFILLED_ORDERS_AFTER_MS: '3600000' }).pruneUnfilledOrdersAfterMs).toBe(3_600_000)
    for (const bad of ['1000', '-1', '1.5', 'soon']) {
      expect(() => loadConfig({ PRUNE_UNFILLED_ORDERS_AFTER_MS: bad }), bad).toThrow(/PRUNE_UNFILLED_ORDERS_AFTER_MS/)
    }
  })

  it('serves metrics on the API port only with METRICS_TOKEN, and on a listener of its own only with METRICS_PORT', () => {
    expect(loadConfig({})).toMatchObject({ metricsToken: undefined, metricsListen: null })
    expect(loadConfig({ METRICS_TOKEN: 'm'.repeat(16), METRICS_PORT: '9464' })).toMatchObject({
      metricsToken: 'm'.repeat(16),
      metricsListen: { host: '127.0.0.1', port: 9464 },
    })
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' }).metricsListen).toEqual({ host: '0.0.0.0', port: 9464 })
    // The API's own port is taken by the API; without the api role it is free for metrics.
    expect(() => loadConfig({ METRICS_PORT: '3000' })).toThrow(/METRICS_PORT must differ from PORT/)
    expect(loadConfig({ METRICS_PORT: '3000', ROLES: 'engine' }).metricsListen?.port).toBe(3000)
  })

  it('turns the simulated maker off by default in production', () => {
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'p'.repeat(32) }).simMaker).toBe(false)
  })

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['ROLES', 'api,teapot'],
    ['DATABASE_URL', 'mysql://localhost/x'],
    ['REDIS_URL', 'not a url'],
    ['MARK_STALE_MS', '-5'],
    ['SIM_MAKER', 'maybe'],
    ['ADMIN_TOKEN', 'short'],
    ['METRICS_TOKEN', 'short'],
    ['METRICS_PORT', '65536'],
    ['JWT_SECRET', 'too-short'],
    ['SESSION_TTL_MS', '1000'],
    ['NONCE_TTL_MS', '0'],
    ['SIWE_DOMAINS', 'https://app.example.com'],
    ['SERVICE_DOMAIN', '*.example.com'],
    ['CORS_ORIGINS', 'https://partner.io/path'],
    ['CORS_ORIGINS', 'partner.io'],
    ['TRUSTED_PROXIES', '10.0.0.0/33'],
    ['TRUSTED_PROXIES', 'proxy.local'],
    ['ORDER_RATE_PER_MIN', '0'],
    ['MM_RATE_MULTIPLE', '101'],
  ])('fails at start on an invalid %s, naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError)
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name))
  })

  it('has identity defaults: 7-day sessions, 5-minute nonces, 120 orders a minute, ×10 market makers', () => {
    expect(loadConfig({})).toMatchObject({
      jwtSecret: DEV_JWT_SECRET,
      jwtSecretIsDevDefault: true,
      sessionTtlMs: 7 * 86_400_000,
      nonceTtlMs: 300_000,
      siweDomains: undefined,
      serviceDomain: 'localhost',
      corsOrigins: [],
      trustedProxies: [],
      orderRatePerMin: 120,
      mmRateMultiple: 10,
    })
  })

  it('parses the identity lists', () => {
    const c = loadConfig({
      SIWE_DOMAINS: 'App.Example.com, example.com:8443',
      CORS_ORIGINS: 'https://Partner.io, http://localhost:5173',
      TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1, ::1',
      JWT_SECRET: 'x'.repeat(32),
    })
    expect(c.siweDomains).toEqual(['app.example.com', 'example.com:8443'])
    expect(c.corsOrigins).toEqual(['https://partner.io', 'http://localhost:5173'])
    expect(c.trustedProxies).toEqual(['10.0.0.0/8', '127.0.0.1', '::1'])
    expect([c.jwtSecret, c.jwtSecretIsDevDefault]).toEqual(['x'.repeat(32), false])
  })

  it.each(['ENGINE_FAULT', 'CLOCK_OFFSET_MS'])('honours the test seam %s only with NODE_ENV=test', (name) => {
    const value = name === 'ENGINE_FAULT' ? 'kill-after-commit' : '3600000'
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name} is a test seam`))
    expect(() => loadConfig({ NODE_ENV: 'test', [name]: value })).not.toThrow()
    expect(loadConfig({ NODE_ENV: 'test', CLOCK_OFFSET_MS: '-5000' }).clockOffsetMs).toBe(-5_000)
  })

  it('requires JWT_SECRET in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET is required when NODE_ENV=production/)
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'p'.repeat(40) }).jwtSecret).toBe('p'.repeat(40))
  })
})
