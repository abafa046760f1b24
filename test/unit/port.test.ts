// The HTTP port check at start-up: a port that cannot be bound is one line naming it and why.
import { createServer, type AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { checkPortFree, portError, PortUnavailableError } from '../../src/http/port.js'

describe('checkPortFree', () => {
  it('names a port another server holds', async () => {
    const holder = createServer()
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
    const port = (holder.address() as AddressInfo).port
    try {
      await expect(checkPortFree('127.0.0.1', port)).rejects.toThrow(new PortUnavailableError(`Port ${port} on 127.0.0.1 is already in use; stop the process holding it or set PORT to a free one`))
    } finally {
      await new Promise((resolve) => holder.close(resolve))
    }
    // Free again, and left free by the check.
    await checkPortFree('127.0.0.1', port)
    await checkPortFree('127.0.0.1', port)
  })

  it('names an address the machine does not have', async () => {
    await expect(checkPortFree('203.0.113.7', 3000)).rejects.toThrow(/^Port 3000 on 203\.0\.113\.7 names an address this machine does not have; set HOST$/)
  })

  it('names the settings of the listener it checks', async () => {
    await expect(checkPortFree('203.0.113.7', 9464, { port: 'METRICS_PORT', host: 'METRICS_HOST' })).rejects.toThrow(
      /^Port 9464 on 203\.0\.113\.7 names an address this machine does not have; set METRICS_HOST$/,
    )
    expect(portError(Object.assign(new Error('x'), { code: 'EADDRINUSE' }), '127.0.0.1', 9464, { port: 'METRICS_PORT', host: 'METRICS_HOST' })?.message).toBe(
      'Port 9464 on 127.0.0.1 is already in use; stop the process holding it or set METRICS_PORT to a free one',
    )
  })

  it('leaves other errors as they are', () => {
    expect(portError(new Error('boom'), 'h', 1)).toBeNull()
    expect(portError(Object.assign(new Error('x'), { code: 'EACCES' }), '0.0.0.0', 80)?.message).toBe('Port 80 on 0.0.0.0 needs privileges this process lacks; set PORT to one above 1023')
  })
})
