import { describe, expect, it } from 'vitest'
import { corsOriginAllowed } from '../../src/auth/cors.js'

const config = (env: 'development' | 'production' | 'test') => ({ env, serviceDomain: 'example.com', corsOrigins: ['https://partner.io'] })

describe('CORS origins', () => {
  it.each([
    ['https://example.com', true, true],
    ['https://a.b.example.com', true, true],
    ['https://example.com:444', true, true],
    ['http://app.example.com', true, false],
    ['https://partner.io', true, true],
    ['http://partner.io', false, false],
    ['https://example.com.evil.com', false, false],
    ['https://evilexample.com', false, false],
    ['https://example.com/', false, false],
    ['https://user@example.com', false, false],
    ['ftp://example.com', false, false],
    ['null', false, false],
    ['', false, false],
  ])('%j: development %s, production %s', (origin, dev, prod) => {
    expect(corsOriginAllowed(origin, config('development'))).toBe(dev)
    expect(corsOriginAllowed(origin, config('production'))).toBe(prod)
  })

  it('lets a local front-end on any port call a localhost API in development', () => {
    const local = { env: 'development' as const, serviceDomain: 'localhost', corsOrigins: [] }
    expect(corsOriginAllowed('http://localhost:5173', local)).toBe(true)
    expect(corsOriginAllowed('http://127.0.0.1:5173', local)).toBe(false)
  })
})
