// A small client of the exchange's own public HTTP API, as any outside program would use it: JSON over
// fetch, one credential (a session JWT or an API key secret) per client, the spec's error body turned
// into an ApiError, and the order-rate limit header remembered so callers can pace themselves.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** The spec's code; `HTTP_{status}` when the body carried none. */
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> | undefined,
    /** On 429 ORDER_RATE_LIMIT: how long until the next request may pass. */
    readonly retryAfterMs: number | undefined,
  ) {
    super(message)
  }
}

export interface RateHeaders {
  /** Order-path requests per minute for this user (X-RateLimit-Limit). */
  limit: number
}

export interface ClientOptions {
  /** Per request; a request still running then is aborted. */
  timeoutMs?: number
  userAgent?: string
}

export class ExchangeClient {
  /** The last order-path rate limit seen, if any. */
  rate: RateHeaders | null = null
  private readonly timeoutMs: number
  private readonly userAgent: string

  constructor(
    /** An origin such as http://127.0.0.1:3000. */
    readonly baseUrl: string,
    private readonly authorization: string | null = null,
    opts: ClientOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 10_000
    this.userAgent = opts.userAgent ?? 'exchange-sim-maker'
  }

  /** The same API with a credential: `Bearer <jwt>` or `Bearer svc_sk_…`. */
  as(authorization: string): ExchangeClient {
    return new ExchangeClient(this.baseUrl, authorization, { timeoutMs: this.timeoutMs, userAgent: this.userAgent })
  }

  get<T = any>(path: string): Promise<T> {
    return this.request<T>('GET', path)
  }

  post<T = any>(path: string, body: unknown = {}): Promise<T> {
    return this.request<T>('POST', path, body)
  }

  delete<T = any>(path: string): Promise<T> {
    return this.request<T>('DELETE', path)
  }

  /** A GraphQL operation; errors come back as ApiError with the first error's code. */
  async graphql<T = any>(query: string, variables?: Record<string, unknown>): Promise<T> {
    const res = await this.request<{ data?: T; errors?: Array<{ message: string; extensions?: Record<string, any> }> }>('POST', '/graphql', { query, variables })
    const err = res.errors?.[0]
    if (err || res.data === undefined) {
      const ext = err?.extensions ?? {}
      throw new ApiError(Number(ext['status'] ?? 400), String(ext['code'] ?? 'GRAPHQL_ERROR'), err?.message ?? 'GraphQL returned no data', ext['details'], undefined)
    }
    return res.data
  }

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.userAgent }
    if (this.authorization) headers['authorization'] = this.authorization
    if (body !== undefined) headers['content-type'] = 'application/json'
    const res = await fetch(new URL(path, this.baseUrl), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.timeoutMs),
    })
    const limit = res.headers.get('x-ratelimit-limit')
    if (limit !== null) this.rate = { limit: Number(limit) }
    const text = await res.text()
    let parsed: any
    try {
      parsed = text.length > 0 ? JSON.parse(text) : undefined
    } catch {
      parsed = undefined
    }
    if (res.ok) return parsed as T
    const code = typeof parsed?.code === 'string' ? parsed.code : `HTTP_${res.status}`
    const retryAfterMs = typeof parsed?.retryAfterMs === 'number' ? parsed.retryAfterMs : undefined
    throw new ApiError(res.status, code, `${method} ${path}: ${res.status} ${code} ${parsed?.message ?? text.slice(0, 200)}`, parsed?.details, retryAfterMs)
  }
}
