/**
 * The parts of Cloudonix's REST API the adapter uses (JSON, `Authorization: Bearer <domain API key>`):
 *
 * - `POST /calls/{domain}/application` places a call that runs the CXML given with it; Cloudonix
 *   answers 200 with the session `token` (the call's id);
 * - `GET` / `DELETE /customers/self/domains/{domain}/sessions/{token}` look a call up and hang it up;
 * - `PATCH /customers/self/domains/{domain}/applications/{name}` points the voice application at a URL;
 * - `GET /customers/self/domains/{domain}/dnids` lists the domain's numbers, `POST .../applications/
 *   {name}/dnids` attaches one to the application, `DELETE .../dnids/{id}` detaches it.
 *
 * The base URL comes from `AGENTLINE_CLOUDONIX_API_URL` (default `https://api.cloudonix.io`), never from
 * an organization's configuration. Failures become `TelephonyError`s with Cloudonix's message but never
 * the API key; 429 and 5xx (and a Cloudonix that cannot be reached) are retryable, other refusals not.
 */
import { TelephonyError } from "@agentline/core/telephony/TelephonyProvider"
import { FetchHttpClient, HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Config, Duration, Effect, Either, Schema } from "effect"

export const DEFAULT_API_URL = "https://api.cloudonix.io"

export const apiUrlConfig = Config.string("AGENTLINE_CLOUDONIX_API_URL").pipe(Config.withDefault(DEFAULT_API_URL))

const REQUEST_TIMEOUT = Duration.seconds(15)

export interface CloudonixFailure {
  readonly status: number
  readonly message: string
}

export const failure = (f: CloudonixFailure, what: string) =>
  new TelephonyError({
    provider: "cloudonix",
    message: `Cloudonix refused to ${what}: ${f.message} (HTTP ${f.status})`,
    retryable: f.status === 429 || f.status >= 500
  })

const unreachable = (what: string, reason: string) =>
  new TelephonyError({ provider: "cloudonix", message: `Cloudonix could not be reached to ${what}: ${reason}`, retryable: true })

/** Cloudonix's error bodies name the problem in `message` (or `error`); anything else is shown by status. */
const ErrorBody = Schema.Struct({
  message: Schema.optional(Schema.NullOr(Schema.String)),
  error: Schema.optional(Schema.NullOr(Schema.String))
})

const readFailure = (response: HttpClientResponse.HttpClientResponse) =>
  Effect.map(Effect.either(response.json), (body): CloudonixFailure => {
    const parsed = Either.isRight(body) ? Schema.decodeUnknownEither(ErrorBody)(body.right) : undefined
    const error = parsed !== undefined && Either.isRight(parsed) ? parsed.right : undefined
    return { status: response.status, message: error?.message ?? error?.error ?? `HTTP ${response.status}` }
  })

export const PlacedCall = Schema.Struct({ token: Schema.String })

/** A session as the adapter reads it: its status, and how long it talked when Cloudonix says. */
export const Session = Schema.Struct({
  token: Schema.String,
  status: Schema.String,
  callDuration: Schema.optional(Schema.NullOr(Schema.Number))
})
export type Session = typeof Session.Type

export const Dnid = Schema.Struct({ id: Schema.Number, source: Schema.String, application: Schema.optional(Schema.NullOr(Schema.String)) })
export const Dnids = Schema.Array(Dnid)

export interface Rest {
  /** The body decoded by `schema` on a 2xx (`undefined` for an empty one); `Left` with Cloudonix's refusal otherwise. */
  readonly send: <A, I>(input: {
    readonly apiKey: string
    readonly method: "GET" | "POST" | "PATCH" | "DELETE"
    readonly path: string
    readonly body?: Record<string, unknown>
    readonly schema: Schema.Schema<A, I>
    readonly what: string
  }) => Effect.Effect<Either.Either<A, CloudonixFailure>, TelephonyError>
}

export const make = (options: { readonly apiUrl?: string | undefined } = {}): Rest => ({
  send: ({ apiKey, body, method, path, schema, what }) =>
    Effect.gen(function*() {
      const base = (options.apiUrl ?? (yield* apiUrlConfig.pipe(Effect.orDie))).replace(/\/+$/, "")
      let request = HttpClientRequest.make(method)(`${base}${path}`).pipe(
        HttpClientRequest.bearerToken(apiKey),
        HttpClientRequest.acceptJson
      )
      if (body !== undefined) request = HttpClientRequest.bodyUnsafeJson(request, body)
      const client = yield* HttpClient.HttpClient
      const response = yield* client.execute(request).pipe(
        Effect.timeoutFail({ duration: REQUEST_TIMEOUT, onTimeout: () => unreachable(what, "no answer within 15 seconds") }),
        // The request error describes the URL and the failure, never the Authorization header.
        Effect.catchTag("RequestError", (e) => Effect.fail(unreachable(what, e.reason))),
        Effect.catchTag("ResponseError", (e) => Effect.fail(unreachable(what, e.reason)))
      )
      if (response.status < 200 || response.status >= 300) return Either.left(yield* readFailure(response))
      // Cloudonix accepted the request: asking again could place a second call, so these are not retryable.
      const unexpected = (reason: string) =>
        new TelephonyError({ provider: "cloudonix", message: `Cloudonix's answer to ${what} was ${reason}`, retryable: false })
      const text = yield* response.text.pipe(Effect.mapError(() => unexpected("unreadable")))
      let json: unknown = undefined
      if (text.trim() !== "") {
        try {
          json = JSON.parse(text)
        } catch {
          return yield* Effect.fail(unexpected("not JSON"))
        }
      }
      const decoded = Schema.decodeUnknownEither(schema)(json)
      if (Either.isLeft(decoded)) return yield* Effect.fail(unexpected("not of the expected shape"))
      return Either.right(decoded.right)
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer))
})
