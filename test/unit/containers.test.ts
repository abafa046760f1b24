// The container files, checked without a container runtime: docker-compose.yml is valid against the
// Compose Specification's JSON schema (test/fixtures/compose-spec.json: the schema docker-compose 1.29.2
// validates with, from Debian's package; Apache-2.0), and runs the exchange on port 3000 only once
// PostgreSQL and Redis report healthy, pointed at them; the Dockerfile builds in one stage and runs, as a
// non-root user on Node 20, from production dependencies only, with a health check on /health.
// (`docker-compose config` says the same of the compose file where docker-compose is installed.)
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv2019 } from 'ajv/dist/2019.js'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

const ROOT = join(import.meta.dirname, '../..')
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8')

function composeValidator() {
  const ajv = new Ajv2019({ strict: false, allErrors: true })
  // The schema's own formats, as docker-compose checks them.
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/)
  ajv.addFormat('ports', /^((\[[0-9a-fA-F:.]+\]|[0-9.]+):)?(\d+(-\d+)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/)
  ajv.addFormat('expose', /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/)
  // It names draft 2019-09 by its http:// id (Ajv2019 knows it by the https:// one), and its parts with
  // the pre-2019 `id` (every one a string; no property is called id): both dropped, the rest as it is.
  const { $schema: _draft, ...schema } = JSON.parse(read('test/fixtures/compose-spec.json'), (key, value) =>
    key === 'id' && typeof value === 'string' ? undefined : value,
  )
  return ajv.compile(schema)
}

describe('docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml'))
  const validate = composeValidator()

  it('is valid Compose', () => {
    expect(validate(compose), JSON.stringify(validate.errors)).toBe(true)
  })

  it('would refuse a broken file (the validator checks what it is given)', () => {
    const broken = structuredClone(compose)
    broken.services.exchange.depends_on.postgres.condition = 'service_healty'
    expect(validate(broken)).toBe(false)
    expect(validate({ ...compose, services: { exchange: { ...compose.services.exchange, ports: ['not a port'] } } })).toBe(false)
  })

  it('starts the exchange on port 3000 once PostgreSQL and Redis are healthy, pointed at them', () => {
    const { exchange, postgres, redis } = compose.services
    expect(exchange.build).toBe('.')
    expect(exchange.ports).toContain('3000:3000')
    expect(exchange.depends_on).toEqual({ postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } })
    expect(postgres.healthcheck.test).toEqual(['CMD', 'pg_isready', '-U', 'postgres'])
    expect(redis.healthcheck.test).toEqual(['CMD', 'redis-cli', 'ping'])
    expect(new URL(exchange.environment.DATABASE_URL).host).toBe('postgres:5432')
    expect(new URL(exchange.environment.REDIS_URL).host).toBe('redis:6379')
  })
})

describe('Dockerfile', () => {
  const lines = read('Dockerfile').split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'))
  const stages = lines.join('\n').split(/^FROM /m).slice(1)
  const final = stages[stages.length - 1]!

  it('builds in a stage of its own and runs from Node 20 with production dependencies only', () => {
    expect(stages).toHaveLength(2)
    for (const s of stages) expect(s).toMatch(/^node:20[-.]/)
    expect(stages[0]).toMatch(/npm ci --ignore-scripts/)
    expect(stages[0]).toMatch(/npm run -s generate && npm run -s build/)
    expect(final).toMatch(/npm ci --omit=dev/)
    expect(final).toMatch(/COPY --from=build \/app\/dist\/app \.\/dist\/app/)
    expect(final).toMatch(/COPY prisma\/migrations \.\/prisma\/migrations/)
  })

  it('runs the bundle as a non-root user, with a health check on /health', () => {
    expect(final).toMatch(/^USER node$/m)
    expect(final).toMatch(/^HEALTHCHECK .*\n?.*\/health/m)
    expect(final).toMatch(/^CMD \["node", .*"dist\/app\/main\.mjs"\]$/m)
    // The flags of `npm start`, whose build step the image cannot run.
    const start = JSON.parse(read('package.json')).scripts.start as string
    const cmd = JSON.parse(/^CMD (.*)$/m.exec(final)![1]!) as string[]
    expect(cmd.join(' ')).toBe(start)
  })

  it('is built from a context without node_modules, build output or secrets', () => {
    const ignored = read('.dockerignore').split('\n').filter((l) => l && !l.startsWith('#'))
    for (const entry of ['node_modules', 'dist', '.git', 'src/generated', '.env']) expect(ignored).toContain(entry)
  })
})
