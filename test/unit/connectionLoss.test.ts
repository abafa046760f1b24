// Which errors mean "PostgreSQL is away or ended the session" (503, retry the batch after reading the
// offset) rather than "the statement was refused", and what the stored offset says of an unanswered batch.
import { describe, expect, it } from 'vitest'
import { batchOutcome } from '../../src/store/engineOffsets.js'
import { isConnectionLoss, isLockTimeout } from '../../src/store/pg.js'

const pgError = (code: string, severity = 'ERROR') => Object.assign(new Error(`pg ${code}`), { code, severity })

describe('isConnectionLoss', () => {
  it.each([
    ['a terminated backend (57P01, FATAL)', pgError('57P01', 'FATAL')],
    ['an idle-in-transaction timeout (25P03, FATAL)', pgError('25P03', 'FATAL')],
    ['a database refusing connections (55000, FATAL)', pgError('55000', 'FATAL')],
    ['a connection exception (08006)', pgError('08006')],
    ['a server starting up (57P03)', pgError('57P03')],
    ['too many connections (53300)', pgError('53300')],
    ['a refused socket', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', syscall: 'connect', errno: -111 })],
    ["pg's dead connection", new Error('Connection terminated unexpectedly')],
    ["pg's broken client", new Error('Client has encountered a connection error and is not queryable')],
    ["pg's connect timeout", new Error('timeout exceeded when trying to connect')],
    ['Prisma over the pg adapter', Object.assign(new Error('Raw query failed. Code: `57P01`'), {
      code: 'P2010', meta: { driverAdapterError: { name: 'DriverAdapterError', cause: { kind: 'postgres', code: '57P01', severity: 'FATAL' } } },
    })],
    ["Prisma's adapter: unreachable", Object.assign(new Error('x'), { meta: { driverAdapterError: { cause: { kind: 'DatabaseNotReachable' } } } })],
    ["Prisma's own code for a closed connection", Object.assign(new Error('x'), { code: 'P1017' })],
    ['a GraphQL error around one', Object.assign(new Error('wrapped'), { originalError: pgError('57P01', 'FATAL') })],
    ['a cause chain', new Error('outer', { cause: new Error('Connection terminated') })],
  ])('is true for %s', (_name, err) => {
    expect(isConnectionLoss(err)).toBe(true)
  })

  it.each([
    ['a unique violation', pgError('23505')],
    ['a lock timeout', pgError('55P03')],
    ['a syntax error', pgError('42601')],
    ['a plain error', new Error('boom')],
    ['a Prisma not-found', Object.assign(new Error('x'), { code: 'P2025' })],
    ['not an error', 'Connection terminated'],
    ['null', null],
  ])('is false for %s', (_name, err) => {
    expect(isConnectionLoss(err)).toBe(false)
  })

  it('tells a lock timeout', () => {
    expect(isLockTimeout(pgError('55P03'))).toBe(true)
    expect(isLockTimeout(pgError('57P01', 'FATAL'))).toBe(false)
  })
})

describe('batchOutcome', () => {
  const batch = { epoch: 'e1', fencingToken: '7', previousId: '100-0', streamId: '105-3' }
  it.each([
    ['the batch id under our token', { epoch: 'e1', fencingToken: '7', lastStreamId: '105-3' }, 'committed'],
    ['the previous id under our token', { epoch: 'e1', fencingToken: '7', lastStreamId: '100-0' }, 'not-committed'],
    ['another token', { epoch: 'e1', fencingToken: '8', lastStreamId: '105-3' }, 'fenced-out'],
    ['no row', null, 'fenced-out'],
    ['an id that is neither', { epoch: 'e1', fencingToken: '7', lastStreamId: '103-0' }, 'diverged'],
    ['the batch id under another epoch', { epoch: 'e0', fencingToken: '7', lastStreamId: '105-3' }, 'diverged'],
  ] as const)('reads %s as %s', (_name, offset, outcome) => {
    expect(batchOutcome(offset, batch)).toBe(outcome)
  })
})
