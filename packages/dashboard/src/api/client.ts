/**
 * The dashboard's only way to read or write data: the typed client derived from the API definition in
 * `@agentline/api` (`HttpApiClient.make(AgentlineApi)`), over `fetch` to the same origin. The login
 * session travels in an HttpOnly cookie the browser sends by itself; writes also carry the CSRF token
 * (double submit: the server compares the `X-CSRF-Token` header with the readable `agentline_csrf` cookie).
 */
import { AgentlineApi } from "@agentline/api"
import { CSRF_COOKIE, CSRF_HEADER } from "@agentline/api/Authentication"
import { FetchHttpClient, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect, Layer, type ParseResult, Schema } from "effect"


const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

export const readCookie = (name: string, cookieHeader: string = document.cookie): string | undefined => {
  for (const part of cookieHeader.split(";")) {
    const index = part.indexOf("=")
    if (index === -1) continue
    if (part.slice(0, index).trim() === name) return decodeURIComponent(part.slice(index + 1).trim())
  }
  return undefined
}

/** Adds the CSRF header to every request that is not a read (the server rejects cookie-authenticated writes without it). */
export const withCsrfToken = (request: HttpClientRequest.HttpClientRequest): HttpClientRequest.HttpClientRequest => {
  if (SAFE_METHODS.has(request.method)) return request
  const token = readCookie(CSRF_COOKIE)
  return token === undefined ? request : HttpClientRequest.setHeader(request, CSRF_HEADER, token)
}

const FetchLive = FetchHttpClient.layer.pipe(
  Layer.provide(Layer.succeed(FetchHttpClient.RequestInit, { credentials: "same-origin" }))
)

const makeClient = HttpApiClient.make(AgentlineApi, {
  // Relative to the page: the dashboard is served by the server it talks to.
  baseUrl: "",
  transformClient: HttpClient.mapRequest(withCsrfToken)
})

/** The typed client; every method returns an `Effect` with the endpoint's typed errors and no requirements. */
export type Client = Effect.Effect.Success<typeof makeClient>

export const client: Client = Effect.runSync(Effect.provide(makeClient, FetchLive))

/**
 * A form's raw values as the endpoint's payload, decoded with the API's own request schema: trimmed,
 * lowercased, defaulted and checked as the server will, failing with the server's messages field by
 * field (a `ParseError`, which `ApiError` lists). Pass the result to the client method: the client
 * *encodes* payloads, and encoding expects values already in their decoded form (an email schema that
 * trims and lowercases refuses " Ada@Example.com " on encode, but decodes it to "ada@example.com").
 *
 *   useAction((name: string) =>
 *     Effect.flatMap(decodePayload(CreateApiKeyRequest, { name }), (payload) => client.apiKeys.create({ payload })))
 */
export const decodePayload = <A, I>(
  schema: Schema.Schema<A, I>,
  input: unknown
): Effect.Effect<A, ParseResult.ParseError> => Schema.decodeUnknown(schema, { errors: "all" })(input)
