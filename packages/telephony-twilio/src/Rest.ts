/**
 * The parts of Twilio's REST API (2010-04-01) the adapter uses: Calls (create, update, fetch) and
 * IncomingPhoneNumbers (find, update). Form-encoded requests, HTTP Basic with the account SID and auth
 * token, JSON answers; errors are `{code, message, more_info, status}`, worded with Twilio's code.
 *
 * The base URL comes from `AGENTLINE_TWILIO_API_URL` (default `https://api.twilio.com`), never from an
 * organization's configuration: a tenant must not be able to point this server at internal addresses.
 * Requests go through `ProviderRest` (the `HttpClient` the adapter was made with): 429 and 5xx (and a
 * Twilio that cannot be reached) are retryable, other refusals are not, and no message names the
 * credentials.
 */
import * as ProviderRest from "@agentline/telephony-kit/ProviderRest"
import type { ProviderSync, TelephonyError } from "@agentline/telephony-kit/TelephonyProvider"
import { type HttpClient, HttpClientRequest } from "@effect/platform"
import { Config, Effect, Either, Schema } from "effect"

export const DEFAULT_API_URL = "https://api.twilio.com"

/** Where Twilio's API is: `AGENTLINE_TWILIO_API_URL`, else Twilio's public endpoint. */
export const apiUrlConfig = Config.string("AGENTLINE_TWILIO_API_URL").pipe(Config.withDefault(DEFAULT_API_URL))

export interface Credentials {
  readonly account_sid: string
  readonly auth_token: string
}

const TwilioError = Schema.Struct({
  code: Schema.optional(Schema.NullOr(Schema.Number)),
  message: Schema.optional(Schema.NullOr(Schema.String))
})

export const api: ProviderRest.ProviderApi = {
  provider: "twilio",
  displayName: "Twilio",
  failureMessage: (body) => {
    const parsed = Schema.decodeUnknownEither(TwilioError)(body)
    return Either.isRight(parsed) ? parsed.right.message ?? undefined : undefined
  },
  failureCode: (body) => {
    const parsed = Schema.decodeUnknownEither(TwilioError)(body)
    return Either.isRight(parsed) && parsed.right.code != null ? String(parsed.right.code) : undefined
  }
}

export const CallResource = Schema.Struct({
  sid: Schema.String,
  status: Schema.String,
  duration: Schema.optional(Schema.NullOr(Schema.String)),
  answered_by: Schema.optional(Schema.NullOr(Schema.String))
})
export type CallResource = typeof CallResource.Type

export const IncomingNumbers = Schema.Struct({
  incoming_phone_numbers: Schema.Array(Schema.Struct({ sid: Schema.String, phone_number: Schema.String }))
})

export type TwilioFailure = ProviderRest.ProviderFailure

/** A refusal as the port's error: Twilio's words and code; 429 and 5xx retryable. */
export const failure = (f: TwilioFailure, what: string) => ProviderRest.refused(api, f, what)

export interface Rest {
  /** The response body decoded by `schema` on a 2xx; `Left` with Twilio's refusal otherwise. */
  readonly send: <A, I>(input: {
    readonly credentials: Credentials
    readonly method: "GET" | "POST"
    /** Below `/2010-04-01/Accounts/{AccountSid}`, e.g. `/Calls.json`. */
    readonly path: string
    readonly params?: ReadonlyArray<readonly [string, string]>
    readonly schema: Schema.Schema<A, I>
    /** What the request does, for error messages ("place the call"). */
    readonly what: string
  }) => Effect.Effect<Either.Either<A, TwilioFailure>, TelephonyError>
}

export const make = (options: { readonly apiUrl?: string | undefined } = {}): Effect.Effect<Rest, never, HttpClient.HttpClient> =>
  Effect.map(ProviderRest.make(api), (rest): Rest => ({
    send: ({ credentials, method, params = [], path, schema, what }) =>
      Effect.gen(function*() {
        const base = (options.apiUrl ?? (yield* apiUrlConfig.pipe(Effect.orDie))).replace(/\/+$/, "")
        const url = `${base}/2010-04-01/Accounts/${encodeURIComponent(credentials.account_sid)}${path}`
        const request = HttpClientRequest.make(method)(url).pipe(
          HttpClientRequest.basicAuth(credentials.account_sid, credentials.auth_token),
          HttpClientRequest.acceptJson
        )
        return yield* rest.sendDecoded(
          method === "GET" ? HttpClientRequest.setUrlParams(request, params) : HttpClientRequest.bodyUrlParams(request, params),
          schema,
          what
        )
      })
  }))

/** Whether Twilio accepts the configuration's credentials: one page of one number, the cheapest request that needs them. */
export const verifyCredentials = (rest: Rest) => (config: Credentials): Effect.Effect<ProviderSync> =>
  rest.send({
    credentials: config,
    method: "GET",
    path: "/IncomingPhoneNumbers.json",
    params: [["PageSize", "1"]],
    schema: IncomingNumbers,
    what: "check the credentials"
  }).pipe(
    Effect.map(Either.match({
      onLeft: (f): ProviderSync => ({ ok: false, message: failure(f, "check the credentials").message }),
      onRight: (): ProviderSync => ({ ok: true, message: "Twilio accepts the credentials" })
    })),
    Effect.catchAll((e) => Effect.succeed<ProviderSync>({ ok: false, message: e.message }))
  )
