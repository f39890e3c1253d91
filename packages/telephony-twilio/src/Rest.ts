/**
 * The parts of Twilio's REST API (2010-04-01) the adapter uses: Calls (create, update, fetch) and
 * IncomingPhoneNumbers (find, update). Form-encoded requests, HTTP Basic with the account SID and auth
 * token, JSON answers; errors are `{code, message, more_info, status}`.
 *
 * The base URL comes from `AGENTLINE_TWILIO_API_URL` (default `https://api.twilio.com`), never from an
 * organization's configuration: a tenant must not be able to point this server at internal addresses.
 * Failures become `TelephonyError`s that name Twilio's code and message but never the credentials;
 * 429 and 5xx (and a Twilio that cannot be reached) are retryable, other refusals are not.
 */
import { TelephonyError } from "@agentline/core/telephony/TelephonyProvider"
import { FetchHttpClient, HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Config, Duration, Effect, Either, Schema } from "effect"

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

export const CallResource = Schema.Struct({
  sid: Schema.String,
  status: Schema.String,
  duration: Schema.optional(Schema.NullOr(Schema.String)),
  answered_by: Schema.optional(Schema.NullOr(Schema.String))
})
export type CallResource = typeof CallResource.Type

const IncomingNumbers = Schema.Struct({
  incoming_phone_numbers: Schema.Array(Schema.Struct({ sid: Schema.String, phone_number: Schema.String }))
})

/** Twilio's own error codes for a number it will not call. */
export const BAD_NUMBER_CODES: ReadonlySet<number> = new Set([21210, 21211, 21212, 21213, 21214, 21215, 21216, 21217, 21401, 21407])

const REQUEST_TIMEOUT = Duration.seconds(15)

export interface TwilioFailure {
  readonly status: number
  readonly code: number | undefined
  readonly message: string
}

export const failure = (f: TwilioFailure, what: string) =>
  new TelephonyError({
    provider: "twilio",
    message: `Twilio refused to ${what}: ${f.message}${f.code !== undefined ? ` (code ${f.code}, HTTP ${f.status})` : ` (HTTP ${f.status})`}`,
    retryable: f.status === 429 || f.status >= 500
  })

const unreachable = (what: string, reason: string) =>
  new TelephonyError({ provider: "twilio", message: `Twilio could not be reached to ${what}: ${reason}`, retryable: true })

const readFailure = (response: HttpClientResponse.HttpClientResponse) =>
  Effect.map(Effect.either(response.json), (body): TwilioFailure => {
    const parsed = Either.isRight(body) ? Schema.decodeUnknownEither(TwilioError)(body.right) : undefined
    const error = parsed !== undefined && Either.isRight(parsed) ? parsed.right : undefined
    return {
      status: response.status,
      code: error?.code ?? undefined,
      message: error?.message ?? `HTTP ${response.status}`
    }
  })

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

export const make = (options: { readonly apiUrl?: string | undefined } = {}): Rest => ({
  send: ({ credentials, method, params = [], path, schema, what }) =>
    Effect.gen(function*() {
      const base = (options.apiUrl ?? (yield* apiUrlConfig.pipe(Effect.orDie))).replace(/\/+$/, "")
      const url = `${base}/2010-04-01/Accounts/${encodeURIComponent(credentials.account_sid)}${path}`
      let request = HttpClientRequest.make(method)(url).pipe(
        HttpClientRequest.basicAuth(credentials.account_sid, credentials.auth_token),
        HttpClientRequest.acceptJson
      )
      request = method === "GET" ? HttpClientRequest.setUrlParams(request, params) : HttpClientRequest.bodyUrlParams(request, params)
      const client = yield* HttpClient.HttpClient
      const response = yield* client.execute(request).pipe(
        Effect.timeoutFail({ duration: REQUEST_TIMEOUT, onTimeout: () => unreachable(what, "no answer within 15 seconds") }),
        // The request error describes the URL and the failure, never the Authorization header.
        Effect.catchTag("RequestError", (e) => Effect.fail(unreachable(what, e.reason))),
        Effect.catchTag("ResponseError", (e) => Effect.fail(unreachable(what, e.reason)))
      )
      if (response.status < 200 || response.status >= 300) return Either.left(yield* readFailure(response))
      // Twilio accepted the request: asking again could place a second call, so these are not retryable.
      const unexpected = (reason: string) =>
        new TelephonyError({ provider: "twilio", message: `Twilio's answer to ${what} was ${reason}`, retryable: false })
      const body = yield* response.json.pipe(Effect.mapError(() => unexpected("not JSON")))
      const decoded = Schema.decodeUnknownEither(schema)(body)
      if (Either.isLeft(decoded)) return yield* Effect.fail(unexpected("not of the expected shape"))
      return Either.right(decoded.right)
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer))
})

export { IncomingNumbers }
