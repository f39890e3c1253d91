/**
 * The parts of Vonage's HTTP APIs the adapter uses:
 *
 * - Voice API (`Authorization: Bearer <application JWT>`, see `Jwt.ts`): `POST /v1/calls` places a call
 *   (201 with its `uuid`), `GET /v1/calls/{uuid}` looks one up, `PUT /v1/calls/{uuid}`
 *   `{"action":"hangup"}` hangs it up (204);
 * - Applications API v2 (Basic `api_key:api_secret`): `GET` / `PUT /v2/applications/{id}` (a PUT
 *   replaces the application: read it, change the voice webhooks, write it back);
 * - Numbers API (Basic `api_key:api_secret`, form posts): `GET /account/numbers?pattern=` finds an owned
 *   number and the application it is linked to, `POST /number/update` links it (`app_id`) or unlinks it.
 *
 * The Voice and Applications APIs live at `AGENTLINE_VONAGE_API_URL` (default
 * `https://api.nexmo.com`), the Numbers API at `AGENTLINE_VONAGE_REST_URL` (default
 * `https://rest.nexmo.com`; when only the API URL is overridden, as a fake serves both, the numbers go
 * there too) — never an organization's configuration. Failures become `TelephonyError`s with Vonage's
 * own words but never the credentials; 429 and 5xx (and a Vonage that cannot be reached) are retryable.
 */
import { TelephonyError } from "@agentline/core/telephony/TelephonyProvider"
import { FetchHttpClient, HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Config, Duration, Effect, Either, Option, Schema } from "effect"

export const DEFAULT_API_URL = "https://api.nexmo.com"
export const DEFAULT_REST_URL = "https://rest.nexmo.com"

const REQUEST_TIMEOUT = Duration.seconds(15)

export interface VonageFailure {
  readonly status: number
  readonly message: string
}

export const failure = (f: VonageFailure, what: string) =>
  new TelephonyError({
    provider: "vonage",
    message: `Vonage refused to ${what}: ${f.message} (HTTP ${f.status})`,
    retryable: f.status === 429 || f.status >= 500
  })

const unreachable = (what: string, reason: string) =>
  new TelephonyError({ provider: "vonage", message: `Vonage could not be reached to ${what}: ${reason}`, retryable: true })

/** Vonage's error bodies: RFC 7807 problems (`title`, `detail`) on the Voice API, `error-code-label` on the Numbers API. */
const readFailure = (response: HttpClientResponse.HttpClientResponse) =>
  Effect.map(Effect.either(response.json), (body): VonageFailure => {
    const json = Either.isRight(body) && typeof body.right === "object" && body.right !== null ? body.right as Record<string, unknown> : {}
    const words = [json.title, json.detail, json["error-code-label"], json.error_title]
      .filter((w): w is string => typeof w === "string" && w !== "")
    return { status: response.status, message: words.length === 0 ? `HTTP ${response.status}` : [...new Set(words)].join(": ") }
  })

export const PlacedCall = Schema.Struct({ uuid: Schema.String })

export const Call = Schema.Struct({
  uuid: Schema.String,
  status: Schema.String,
  duration: Schema.optional(Schema.Union(Schema.String, Schema.Number, Schema.Null))
})

/** An application as the Applications API shows it; everything else is kept as it is. */
export const Application = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const OwnedNumbers = Schema.Struct({
  count: Schema.optional(Schema.Number),
  numbers: Schema.optionalWith(
    Schema.Array(Schema.Struct({
      country: Schema.String,
      msisdn: Schema.String,
      app_id: Schema.optional(Schema.NullOr(Schema.String))
    })),
    { default: () => [] }
  )
})

export type Auth =
  | { readonly _tag: "Bearer"; readonly token: string }
  | { readonly _tag: "Basic"; readonly user: string; readonly password: string }

export interface Rest {
  /** The body decoded by `schema` on a 2xx (`undefined` for an empty one); `Left` with Vonage's refusal otherwise. */
  readonly send: <A, I>(input: {
    readonly api: "voice" | "numbers"
    readonly auth: Auth
    readonly method: "GET" | "POST" | "PUT"
    readonly path: string
    readonly json?: unknown
    readonly form?: Record<string, string>
    readonly schema: Schema.Schema<A, I>
    readonly what: string
  }) => Effect.Effect<Either.Either<A, VonageFailure>, TelephonyError>
}

const apiUrlConfig = Config.option(Config.string("AGENTLINE_VONAGE_API_URL"))
const restUrlConfig = Config.option(Config.string("AGENTLINE_VONAGE_REST_URL"))

/** The base URLs: explicit ones first, then the environment, then Vonage's. */
export const baseUrls = (options: { readonly apiUrl?: string | undefined; readonly restUrl?: string | undefined }) =>
  Effect.gen(function*() {
    const api = options.apiUrl ?? Option.getOrUndefined(yield* apiUrlConfig)
    const rest = options.restUrl ?? Option.getOrUndefined(yield* restUrlConfig)
    return {
      voice: (api ?? DEFAULT_API_URL).replace(/\/+$/, ""),
      numbers: (rest ?? api ?? DEFAULT_REST_URL).replace(/\/+$/, "")
    }
  }).pipe(Effect.orDie)

export const make = (options: { readonly apiUrl?: string | undefined; readonly restUrl?: string | undefined } = {}): Rest => ({
  send: ({ api, auth, form, json, method, path, schema, what }) =>
    Effect.gen(function*() {
      const bases = yield* baseUrls(options)
      let request = HttpClientRequest.make(method)(`${bases[api]}${path}`).pipe(
        auth._tag === "Bearer" ? HttpClientRequest.bearerToken(auth.token) : HttpClientRequest.basicAuth(auth.user, auth.password),
        HttpClientRequest.acceptJson
      )
      if (json !== undefined) request = HttpClientRequest.bodyUnsafeJson(request, json)
      if (form !== undefined) request = HttpClientRequest.bodyUrlParams(request, form)
      const client = yield* HttpClient.HttpClient
      const response = yield* client.execute(request).pipe(
        Effect.timeoutFail({ duration: REQUEST_TIMEOUT, onTimeout: () => unreachable(what, "no answer within 15 seconds") }),
        // The request error describes the URL and the failure, never the Authorization header.
        Effect.catchTag("RequestError", (e) => Effect.fail(unreachable(what, e.reason))),
        Effect.catchTag("ResponseError", (e) => Effect.fail(unreachable(what, e.reason)))
      )
      if (response.status < 200 || response.status >= 300) return Either.left(yield* readFailure(response))
      // Vonage accepted the request: asking again could place a second call, so these are not retryable.
      const unexpected = (reason: string) =>
        new TelephonyError({ provider: "vonage", message: `Vonage's answer to ${what} was ${reason}`, retryable: false })
      const text = yield* response.text.pipe(Effect.mapError(() => unexpected("unreadable")))
      let body: unknown = undefined
      if (text.trim() !== "") {
        try {
          body = JSON.parse(text)
        } catch {
          return yield* Effect.fail(unexpected("not JSON"))
        }
      }
      const decoded = Schema.decodeUnknownEither(schema)(body)
      if (Either.isLeft(decoded)) return yield* Effect.fail(unexpected("not of the expected shape"))
      return Either.right(decoded.right)
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer))
})
