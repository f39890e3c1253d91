/**
 * Requests to a Plivo-compatible REST API: `{base}{prefix}/Account/{auth_id}/...`, JSON bodies, the
 * dialect's authentication. Transport faults and 429/5xx are retryable `TelephonyError`s; other
 * refusals carry the carrier's own message (`{"api_id", "error"}`), never the credentials.
 */
import { TelephonyError } from "@agentline/telephony-kit/TelephonyProvider"
import { HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Config, Effect, Either, Schema } from "effect"
import type { PlivoCompatibleConfig, PlivoDialect } from "./Dialect.js"

export interface Rest {
  readonly dialect: PlivoDialect
  /** Sends a request; answers come back whatever their status, faults fail. */
  readonly send: (
    config: PlivoCompatibleConfig,
    request: { readonly method: "GET" | "POST" | "DELETE"; readonly path: string; readonly body?: unknown; readonly what: string }
  ) => Effect.Effect<HttpClientResponse.HttpClientResponse, TelephonyError>
  readonly failure: (message: string, retryable: boolean, cause?: unknown) => TelephonyError
  /** The carrier's refusal as an error: retryable for 429 and 5xx, with its message. */
  readonly refused: (what: string, response: HttpClientResponse.HttpClientResponse) => Effect.Effect<never, TelephonyError>
  readonly body: <A, I>(schema: Schema.Schema<A, I>, response: HttpClientResponse.HttpClientResponse, what: string) => Effect.Effect<A, TelephonyError>
}

const ErrorBody = Schema.Struct({
  error: Schema.optional(Schema.Union(Schema.String, Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  message: Schema.optional(Schema.String)
})

/** The carrier's explanation in an error body, if it gave one. */
export const carrierMessage = (text: string): string | undefined => {
  const parsed = Schema.decodeUnknownEither(Schema.parseJson(ErrorBody))(text)
  if (Either.isLeft(parsed)) return text.trim() === "" ? undefined : text.trim().slice(0, 300)
  const { error, message } = parsed.right
  if (typeof error === "string" && error !== "") return error
  if (error !== undefined && typeof error === "object") return JSON.stringify(error).slice(0, 300)
  return message
}

/**
 * The API of `dialect` at `apiUrl`, or (read at each request) at the dialect's environment variable,
 * else the public endpoint. Requests go through the context's `HttpClient`, taken now.
 */
export const make = (dialect: PlivoDialect, apiUrl?: string): Effect.Effect<Rest, never, HttpClient.HttpClient> =>
  Effect.map(HttpClient.HttpClient, (client): Rest => {
  const root = apiUrl !== undefined
    ? Effect.succeed(apiUrl)
    : Config.string(dialect.apiUrlVariable).pipe(Config.withDefault(dialect.defaultApiUrl), Effect.orDie)

    const failure = (message: string, retryable: boolean, cause?: unknown) =>
      new TelephonyError({ provider: dialect.name, message, retryable, ...(cause !== undefined ? { cause } : {}) })

    const send: Rest["send"] = (config, { body, method, path, what }) =>
      Effect.gen(function*() {
        const base = (yield* root).replace(/\/+$/, "")
        const url = `${base}${dialect.apiPrefix}/Account/${encodeURIComponent(config.auth_id)}/${path}`
        let request = HttpClientRequest.make(method)(url).pipe(
          HttpClientRequest.setHeaders(dialect.authHeaders(config)),
          HttpClientRequest.acceptJson
        )
        if (body !== undefined) request = HttpClientRequest.bodyUnsafeJson(request, body)
        // A carrier that has not answered in fifteen seconds is treated like a network fault.
        return yield* client.execute(request).pipe(
          Effect.timeout("15 seconds"),
          // The request error names the URL and the failure, never the credentials' headers.
          Effect.mapError((cause) => failure(`could not reach ${dialect.displayName} to ${what}`, true, cause))
        )
      })

    const refused: Rest["refused"] = (what, response) =>
      Effect.flatMap(Effect.orElseSucceed(response.text, () => ""), (text) => {
        const said = carrierMessage(text)
        return Effect.fail(failure(
          `${dialect.displayName} refused to ${what} (HTTP ${response.status})${said === undefined ? "" : `: ${said}`}`,
          response.status === 429 || response.status >= 500
        ))
      })

    const body: Rest["body"] = (schema, response, what) =>
      response.json.pipe(
        Effect.flatMap(Schema.decodeUnknown(schema)),
        Effect.mapError((cause) => failure(`${dialect.displayName} answered ${what} with an unexpected body`, false, cause))
      )

    return { dialect, send, failure, refused, body }
  })
