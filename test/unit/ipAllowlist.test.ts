import { describe, expect, it } from 'vitest'
import { parseApiKeyRequest } from '../../src/auth/apiKeyRequest.js'
import { ipAllowed, isAllowlistEntry, normalizeIp } from '../../src/auth/ipAllowlist.js'
import { DomainError } from '../../src/domain/errors.js'

describe('IP allowlists', () => {
  it.each([
    ['203.0.113.7', true], ['0.0.0.0', true], ['255.255.255.255', true],
    ['256.1.1.1', false], ['1.2.3', false], ['01.2.3.4', false], ['1.2.3.4/32', false], ['::1', false],
    ['::ffff:1.2.3.4', false], [' 1.2.3.4', false], ['', false],
  ])('%j is an allowlist entry: %s', (ip, ok) => {
    expect(isAllowlistEntry(ip)).toBe(ok)
  })

  it('reads an IPv4 peer on a dual-stack socket as IPv4', () => {
    expect(normalizeIp('::ffff:10.0.0.1')).toBe('10.0.0.1')
    expect(normalizeIp('::ffff:abcd')).toBe('::ffff:abcd')
    expect(normalizeIp('2001:db8::1')).toBe('2001:db8::1')
  })

  it('admits anyone with an empty list and only listed addresses otherwise', () => {
    expect(ipAllowed([], '198.51.100.1')).toBe(true)
    expect(ipAllowed(['10.0.0.1'], '10.0.0.1')).toBe(true)
    expect(ipAllowed(['10.0.0.1'], '::ffff:10.0.0.1')).toBe(true)
    expect(ipAllowed(['10.0.0.1'], '10.0.0.2')).toBe(false)
    expect(ipAllowed(['10.0.0.1'], '::1')).toBe(false)
  })
})

describe('API key requests', () => {
  it('applies defaults, trims the name and dedupes addresses', () => {
    expect(parseApiKeyRequest({ name: ' desk ', scope: 'trade', allowedIps: ['10.0.0.1', '10.0.0.1'] })).toEqual({
      name: 'desk', scope: 'trade', allowedIps: ['10.0.0.1'], expiresInDays: 0,
    })
  })

  it('refuses with INVALID_REQUEST and issues naming the field', () => {
    try {
      parseApiKeyRequest({ name: 'k', scope: 'read', allowedIps: ['nope'] })
      expect.unreachable()
    } catch (err) {
      expect(err).toBeInstanceOf(DomainError)
      expect((err as DomainError).code).toBe('INVALID_REQUEST')
      expect((err as DomainError).details?.['issues']).toEqual([expect.objectContaining({ path: ['allowedIps', 0], code: 'custom' })])
    }
  })
})
