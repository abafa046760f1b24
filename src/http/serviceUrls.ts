// What the start-up log tells a person to open: the API's base URL and the pages served under it.
// A wildcard bind address (0.0.0.0, ::) is not somewhere a browser can go, so it is named localhost.

export interface ServiceUrls {
  /** REST paths hang off it; `npm start` prints it first. */
  url: string
  /** GraphiQL (GET from a browser) and the GraphQL endpoint. */
  graphiql: string
  /** The REST reference (OpenAPI) page. */
  docs: string
  health: string
}

export function serviceUrls(listening: string): ServiceUrls {
  const base = new URL(listening)
  if (base.hostname === '0.0.0.0' || base.hostname === '[::]') base.hostname = 'localhost'
  const url = base.origin
  return { url, graphiql: `${url}/graphql`, docs: `${url}/docs`, health: `${url}/health` }
}
