import { describe, expect, it } from 'vitest'
import { serviceUrls } from '../../src/http/serviceUrls.js'

describe('serviceUrls', () => {
  it.each([
    ['http://127.0.0.1:3000', 'http://127.0.0.1:3000'],
    ['http://0.0.0.0:3000', 'http://localhost:3000'],
    ['http://[::]:8080', 'http://localhost:8080'],
    ['http://[::1]:3000', 'http://[::1]:3000'],
    ['http://api.example:80/', 'http://api.example'],
  ])('%s: the pages a person opens hang off %s', (listening, url) => {
    expect(serviceUrls(listening)).toEqual({ url, graphiql: `${url}/graphql`, docs: `${url}/docs`, health: `${url}/health` })
  })
})
