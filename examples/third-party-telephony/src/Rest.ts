/**
 * Acme's REST API: JSON, `Authorization: Bearer <api key>`, errors `{"error": "..."}`. Requests go
 * through the kit's `ProviderRest` over the `HttpClient` the adapter was made with: a bounded wait,
 * faults worded without the key, 429 and 5xx retryable, other refusals in Acme's words.
 *
 * The base URL is the adapter's (`make({ apiUrl })`, else `ACME_API_URL`, else Acme's public one).
 */
import * as ProviderRest from "@agentline/telephony-kit/ProviderRest"
import type { TelephonyError } from "@agentline/telephony-kit/TelephonyProvider"
import { type HttpClient, HttpClientRequest } from "@effect/platform"
import { Config, Effect, Either, Schema } from "effect"

export const DEFAULT_API_URL = "https://api.acme-voice.example"

export const apiUrlConfig = Config.string("ACME_API_URL").pipe(Config.withDefault(DEFAULT_API_URL))

const ErrorBody = Schema.Struct({ error: Schema.String })

export const api: ProviderRest.ProviderApi = {
  provider: "acme",
  displayName: "Acme",
  failureMessage: (body) => {
    const parsed = Schema.decodeUnknownEither(ErrorBody)(body)
    return Either.isRight(parsed) ? parsed.right.error : undefined
  }
}

export const failure = (f: ProviderRest.ProviderFailure, what: string) => ProviderRest.refused(api, f, what)

export interface Rest {
  /** The answer decoded by `schema` on a 2xx; `Left` with Acme's refusal otherwise. */
  readonly send: <A, I>(input: {
    readonly apiKey: string
    readonly method: "GET" | "POST" | "PUT"
    /** Below `/v1`, e.g. `/accounts/AC1/calls`. */
    readonly path: string
    readonly body?: unknown
    /** Sent as `Idempotency-Key`: a re-sent request finds what the first one did. */
    readonly idempotencyKey?: string
    readonly schema: Schema.Schema<A, I>
    readonly what: string
  }) => Effect.Effect<Either.Either<A, ProviderRest.ProviderFailure>, TelephonyError>
}

export const make = (options: { readonly apiUrl?: string | undefined } = {}): Effect.Effect<Rest, never, HttpClient.HttpClient> =>
  Effect.map(ProviderRest.make(api), (rest): Rest => ({
    send: ({ apiKey, body, idempotencyKey, method, path, schema, what }) =>
      Effect.gen(function*() {
        const base = (options.apiUrl ?? (yield* apiUrlConfig.pipe(Effect.orDie))).replace(/\/+$/, "")
        let request = HttpClientRequest.make(method)(`${base}/v1${path}`).pipe(HttpClientRequest.bearerToken(apiKey), HttpClientRequest.acceptJson)
        if (idempotencyKey !== undefined) request = HttpClientRequest.setHeader(request, "Idempotency-Key", idempotencyKey)
        if (body !== undefined) request = HttpClientRequest.bodyUnsafeJson(request, body)
        return yield* rest.sendDecoded(request, schema, what)
      })
  }))
