// Reading a Prometheus text page the way a scraper does: every sample with its labels, and the TYPE of
// every family, so tests assert families and values rather than strings.
//   const page = await scrape(ex.metricsUrl!)
//   page.value('exchange_stream_subscribers', { stream: 'book' })

export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

export interface MetricsPage {
  readonly text: string
  readonly samples: Sample[]
  /** Family name → its TYPE line's type. */
  readonly types: Map<string, string>
  /** The samples of `name` whose labels include `labels`. */
  find(name: string, labels?: Record<string, string>): Sample[]
  /** The one sample of `name` with `labels` (undefined when there is none; throws when several match). */
  value(name: string, labels?: Record<string, string>): number | undefined
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

export function parseMetrics(text: string): MetricsPage {
  const samples: Sample[] = []
  const types = new Map<string, string>()
  for (const line of text.split('\n')) {
    if (line === '') continue
    const type = /^# TYPE (\S+) (\S+)$/.exec(line)
    if (type) {
      types.set(type[1]!, type[2]!)
      continue
    }
    if (line.startsWith('#')) continue
    const m = SAMPLE.exec(line)
    if (!m) throw new Error(`not a sample line: ${line}`)
    const labels: Record<string, string> = {}
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_s, c: string) => (c === 'n' ? '\n' : c))
    samples.push({ name: m[1]!, labels, value: Number(m[3]) })
  }
  const find = (name: string, labels: Record<string, string> = {}) =>
    samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
  return {
    text,
    samples,
    types,
    find,
    value(name, labels) {
      const found = find(name, labels)
      if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`)
      return found[0]?.value
    },
  }
}

export async function scrape(url: string, headers: Record<string, string> = {}): Promise<MetricsPage> {
  const res = await fetch(url, { headers })
  const text = await res.text()
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${text}`)
  return parseMetrics(text)
}
