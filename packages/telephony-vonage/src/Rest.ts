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
import * as ProviderRest from "@agentline/telephony-kit/ProviderRest"
import type { TelephonyError } from "@agentline/telephony-kit/TelephonyProvider"
import { type HttpClient, HttpClientRequest } from "@effect/platform"
import { Config, Effect, Either, Option, Schema } from "effect"

export const DEFAULT_API_URL = "https://api.nexmo.com"
export const DEFAULT_REST_URL = "https://rest.nexmo.com"

export type VonageFailure = ProviderRest.ProviderFailure

/** Vonage's error bodies: RFC 7807 problems (`title`, `detail`) on the Voice API, `error-code-label` on the Numbers API. */
const api: ProviderRest.ProviderApi = {
  provider: "vonage",
  displayName: "Vonage",
  failureMessage: (body) => {
    const json = typeof body === "object" && body !== null ? body as Record<string, unknown> : {}
    const words = [json.title, json.detail, json["error-code-label"], json.error_title].filter((w): w is string => typeof w === "string" && w !== "")
    return words.length === 0 ? undefined : [...new Set(words)].join(": ")
  }
}

export const failure = (f: VonageFailure, what: string) => ProviderRest.refused(api, f, what)

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

export const make = (
  options: { readonly apiUrl?: string | undefined; readonly restUrl?: string | undefined } = {}
): Effect.Effect<Rest, never, HttpClient.HttpClient> =>
  Effect.map(ProviderRest.make(api), (rest): Rest => ({
    send: ({ api: which, auth, form, json, method, path, schema, what }) =>
      Effect.gen(function*() {
        const bases = yield* baseUrls(options)
        let request = HttpClientRequest.make(method)(`${bases[which]}${path}`).pipe(
          auth._tag === "Bearer" ? HttpClientRequest.bearerToken(auth.token) : HttpClientRequest.basicAuth(auth.user, auth.password),
          HttpClientRequest.acceptJson
        )
        if (json !== undefined) request = HttpClientRequest.bodyUnsafeJson(request, json)
        if (form !== undefined) request = HttpClientRequest.bodyUrlParams(request, form)
        return yield* rest.sendDecoded(request, schema, what)
      })
  }))
