/**
 * The HTTP side of a fake carrier, for adapter authors writing a faithful fake of a provider's API: a
 * server on 127.0.0.1 (a free port) that reads each request whole, checks who calls (the provider's own
 * 401 or 404), answers the next requests with an injected 429/5xx when a test asked for it
 * (`failNext`), and otherwise routes the request to the fake; and the requests a carrier makes to the
 * application (callbacks, answer URLs, voice webhooks) as `post`, which never throws (an unreachable
 * server is status 0).
 *
 * Every fake's API works this way; what is the provider's own stays in the fake: its paths, its
 * authentication, its error bodies.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

/** A request to the fake API, read whole. */
export interface FakeRequest {
  readonly method: string
  /** The request's URL (on a placeholder host): `url.pathname`, `url.searchParams`. */
  readonly url: URL
  readonly path: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
}

/** An answer: JSON for an object, the text as is for a string, nothing for `undefined`. */
export interface FakeResponse {
  readonly status: number
  readonly body?: unknown
  readonly contentType?: string
  readonly headers?: Readonly<Record<string, string>>
}

/** A JSON answer (no body for `undefined`). */
export const json = (status: number, body?: unknown): FakeResponse => (body === undefined ? { status } : { status, body })

export interface FakeApiOptions {
  /** Whether the request may be served: `undefined` when it may, else the provider's refusal (401, 404). */
  readonly authenticate?: (request: FakeRequest) => FakeResponse | undefined
  /** The provider's answer to a request made to fail with `status` (429, 500, 503) by `failNext`. */
  readonly failure: (status: number, request: FakeRequest) => FakeResponse
  /** Everything else. */
  readonly route: (request: FakeRequest) => FakeResponse | Promise<FakeResponse>
  /** Runs first when the fake closes (end the calls still in progress). */
  readonly onClose?: () => void
}

export interface FakeApi {
  /** The API's base URL, `http://127.0.0.1:<port>`: what the adapter is pointed at. */
  readonly url: string
  /** The node server (to attach a WebSocket upgrade, as a provider's events stream needs). */
  readonly server: Http.Server
  /** Every request received, in order. */
  readonly requests: () => ReadonlyArray<{ readonly method: string; readonly path: string }>
  /**
   * The next `count` requests (those `applies` selects, default all) that pass authentication answer
   * `status`, after the failures already asked for.
   */
  readonly failNext: (status: number, count?: number, applies?: (method: string, path: string) => boolean) => void
  readonly close: () => Promise<void>
}

interface Failure {
  readonly status: number
  count: number
  readonly applies: (method: string, path: string) => boolean
}

const write = (response: Http.ServerResponse, answer: FakeResponse) => {
  const headers: Record<string, string> = { ...answer.headers }
  if (answer.body === undefined) {
    response.writeHead(answer.status, headers)
    return response.end()
  }
  const text = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body)
  const contentType = answer.contentType ?? (typeof answer.body === "string" ? "text/plain" : "application/json")
  response.writeHead(answer.status, { "content-type": contentType, ...headers })
  response.end(text)
}

/** Serves a fake API on 127.0.0.1; resolves once it listens. */
export const serve = async (options: FakeApiOptions): Promise<FakeApi> => {
  const failures: Array<Failure> = []
  const requests: Array<{ readonly method: string; readonly path: string }> = []

  const handle = async (request: FakeRequest): Promise<FakeResponse> => {
    requests.push({ method: request.method, path: request.path })
    const refused = options.authenticate?.(request)
    if (refused !== undefined) return refused
    const failure = failures.find((f) => f.count > 0 && f.applies(request.method, request.path))
    if (failure !== undefined) {
      failure.count--
      return options.failure(failure.status, request)
    }
    return options.route(request)
  }

  const server = Http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const url = new URL(request.url ?? "/", "http://fake")
      const read: FakeRequest = {
        method: request.method ?? "GET",
        url,
        path: url.pathname,
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8")
      }
      handle(read).then(
        (answer) => write(response, answer),
        (error: unknown) => write(response, { status: 500, body: { message: `the fake failed: ${String(error)}` } })
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    requests: () => [...requests],
    failNext: (status, count = 1, applies = () => true) => void failures.push({ status, count, applies }),
    close: async () => {
      options.onClose?.()
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeAllConnections()
      await closed
    }
  }
}

/** What the application answered a carrier's request; status 0 when it could not be reached. */
export interface Answered {
  readonly status: number
  readonly body: string
}

/** A request from the carrier to the application (a callback, an answer URL, a voice webhook). Never throws. */
export const post = async (
  url: string | URL,
  input: { readonly method?: string; readonly headers?: Readonly<Record<string, string>>; readonly body?: string }
): Promise<Answered> => {
  try {
    const response = await fetch(url, {
      method: input.method ?? "POST",
      headers: { ...input.headers },
      ...(input.body !== undefined ? { body: input.body } : {})
    })
    return { status: response.status, body: await response.text() }
  } catch {
    return { status: 0, body: "" }
  }
}

/** A form post, as Twilio-dialect carriers send their callbacks. */
export const postForm = (url: string, params: ReadonlyArray<readonly [string, string]>, headers: Readonly<Record<string, string>> = {}) =>
  post(url, {
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(params.map(([k, v]) => [k, v])).toString()
  })

/** A JSON post, as most carriers send their webhooks. */
export const postJson = (url: string, body: string, headers: Readonly<Record<string, string>> = {}) =>
  post(url, { headers: { "content-type": "application/json", ...headers }, body })

/** The user and password of an HTTP Basic `authorization` header, if it is one. */
export const basicCredentials = (authorization: string | undefined): { readonly user: string; readonly password: string } | undefined => {
  const match = /^Basic\s+(\S+)$/.exec(authorization ?? "")
  if (match === null) return undefined
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8")
  const colon = decoded.indexOf(":")
  return colon < 0 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}
