// A small HTTP client for end-to-end tests: JSON in, status + headers + parsed body out.

export interface HttpResult<T = any> {
  status: number
  headers: Headers
  body: T
  text: string
}

export interface Http {
  request<T = any>(method: string, path: string, opts?: { body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<HttpResult<T>>
  get<T = any>(path: string, headers?: Record<string, string>): Promise<HttpResult<T>>
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResult<T>>
  graphql(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<HttpResult<any>>
}

export function http(baseUrl: string): Http {
  const request: Http['request'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers }
    let body: string | undefined
    if (opts.raw !== undefined) body = opts.raw
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body)
      headers['content-type'] ??= 'application/json'
    }
    const res = await fetch(new URL(path, baseUrl), { method, headers, body })
    const text = await res.text()
    let parsed: unknown = text
    try {
      parsed = JSON.parse(text)
    } catch {
      // not JSON (GraphiQL's HTML, for one)
    }
    return { status: res.status, headers: res.headers, body: parsed as any, text }
  }
  return {
    request,
    get: (path, headers) => request('GET', path, { headers }),
    post: (path, body, headers) => request('POST', path, { body: body ?? {}, headers }),
    graphql: (query, variables, headers) => request('POST', '/graphql', { body: { query, variables }, headers }),
  }
}

export const DECIMAL = /^-?(0|[1-9]\d*)(\.\d*[1-9])?$/
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
