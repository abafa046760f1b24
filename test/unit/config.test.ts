import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config/env.js'

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

  it('turns the simulated maker off by default in production', () => {
    expect(loadConfig({ NODE_ENV: 'production' }).simMaker).toBe(false)
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
  ])('fails at start on an invalid %s, naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError)
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name))
  })
})
