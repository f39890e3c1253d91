/**
 * The parts of Telnyx's API v2 the adapter uses: Call Control (dial, commands, call status), phone
 * numbers and Call Control Applications. JSON both ways, `Authorization: Bearer <API key>`; refusals
 * are `{"errors": [{"code", "title", "detail", "source": {"pointer"}}]}` with 4xx statuses.
 *
 * The base URL comes from `AGENTLINE_TELNYX_API_URL` (default `https://api.telnyx.com`), never from an
 * organization's configuration: a tenant must not be able to point this server at internal addresses.
 * Failures become `TelephonyError`s with Telnyx's code, title and detail but never the API key; 429 and
 * 5xx (and a Telnyx that cannot be reached) are retryable, other refusals are not.
 */
import { TelephonyError } from "@agentline/telephony-kit/TelephonyProvider"
import { FetchHttpClient, HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Config, Duration, Effect, Either, Schema } from "effect"

export const DEFAULT_API_URL = "https://api.telnyx.com"

/** Where Telnyx's API is: `AGENTLINE_TELNYX_API_URL`, else Telnyx's public endpoint. */
export const apiUrlConfig = Config.string("AGENTLINE_TELNYX_API_URL").pipe(Config.withDefault(DEFAULT_API_URL))

const REQUEST_TIMEOUT = Duration.seconds(15)

const ErrorBody = Schema.Struct({
  errors: Schema.Array(Schema.Struct({
    code: Schema.optional(Schema.Union(Schema.String, Schema.Number)),
    title: Schema.optional(Schema.String),
    detail: Schema.optional(Schema.String)
  }))
})

/** What Telnyx said when it refused a request. */
export interface TelnyxFailure {
  readonly status: number
  readonly code: string | undefined
  /** Title and detail of Telnyx's first error, or the HTTP status. */
  readonly message: string
}

/** Telnyx's code for a command on a call that is over ("Call has already ended"). */
export const CALL_ENDED = "90018"

export const failure = (f: TelnyxFailure, what: string) =>
  new TelephonyError({
    provider: "telnyx",
    message: `Telnyx refused to ${what}: ${f.message} (${f.code !== undefined ? `code ${f.code}, ` : ""}HTTP ${f.status})`,
    retryable: f.status === 429 || f.status >= 500
  })

const unreachable = (what: string, reason: string) =>
  new TelephonyError({ provider: "telnyx", message: `Telnyx could not be reached to ${what}: ${reason}`, retryable: true })

const readFailure = (response: HttpClientResponse.HttpClientResponse) =>
  Effect.map(Effect.either(response.json), (body): TelnyxFailure => {
    const parsed = Either.isRight(body) ? Schema.decodeUnknownEither(ErrorBody)(body.right) : undefined
    const first = parsed !== undefined && Either.isRight(parsed) ? parsed.right.errors[0] : undefined
    const text = [first?.title, first?.detail].filter((s): s is string => s !== undefined && s !== "")
    return {
      status: response.status,
      code: first?.code === undefined ? undefined : String(first.code),
      message: text.length > 0 ? text.join(": ") : `HTTP ${response.status}`
    }
  })

export interface Request<A, I> {
  readonly apiKey: string
  readonly method: "GET" | "POST" | "PATCH" | "PUT"
  /** Below `/v2`, e.g. `/calls`. */
  readonly path: string
  readonly query?: Readonly<Record<string, string>>
  readonly body?: unknown
  /** The schema of the answer's `data`. */
  readonly schema: Schema.Schema<A, I>
  /** What the request does, for error messages ("place the call"). */
  readonly what: string
}

export interface Rest {
  /** `data` of a 2xx answer, decoded by `schema`; `Left` with Telnyx's refusal otherwise. */
  readonly send: <A, I>(request: Request<A, I>) => Effect.Effect<Either.Either<A, TelnyxFailure>, TelephonyError>
}

export const make = (options: { readonly apiUrl?: string | undefined } = {}): Rest => ({
  send: ({ apiKey, body, method, path, query, schema, what }) =>
    Effect.gen(function*() {
      const base = (options.apiUrl ?? (yield* apiUrlConfig.pipe(Effect.orDie))).replace(/\/+$/, "")
      let request = HttpClientRequest.make(method)(`${base}/v2${path}`).pipe(
        HttpClientRequest.bearerToken(apiKey),
        HttpClientRequest.acceptJson
      )
      if (query !== undefined) request = HttpClientRequest.setUrlParams(request, query)
      if (body !== undefined) request = HttpClientRequest.bodyUnsafeJson(request, body)
      const client = yield* HttpClient.HttpClient
      const response = yield* client.execute(request).pipe(
        Effect.timeoutFail({ duration: REQUEST_TIMEOUT, onTimeout: () => unreachable(what, "no answer within 15 seconds") }),
        // The request error describes the URL and the failure, never the Authorization header.
        Effect.catchTag("RequestError", (e) => Effect.fail(unreachable(what, e.reason))),
        Effect.catchTag("ResponseError", (e) => Effect.fail(unreachable(what, e.reason)))
      )
      if (response.status < 200 || response.status >= 300) return Either.left(yield* readFailure(response))
      const answer = yield* response.json.pipe(Effect.mapError(() => unreachable(what, "the answer was not JSON")))
      const decoded = Schema.decodeUnknownEither(Schema.Struct({ data: schema }))(answer)
      if (Either.isLeft(decoded)) return yield* Effect.fail(unreachable(what, "the answer did not have the expected shape"))
      return Either.right(decoded.right.data)
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer))
})

// ------------------------------------------------------------------------------------ resources

export const Call = Schema.Struct({
  call_control_id: Schema.String,
  call_leg_id: Schema.optional(Schema.String),
  call_session_id: Schema.optional(Schema.String),
  is_alive: Schema.optional(Schema.Boolean),
  call_duration: Schema.optional(Schema.NullOr(Schema.Number)),
  start_time: Schema.optional(Schema.NullOr(Schema.String)),
  end_time: Schema.optional(Schema.NullOr(Schema.String))
})

export const CommandResult = Schema.Struct({ result: Schema.optional(Schema.String) })

export const PhoneNumber = Schema.Struct({
  id: Schema.String,
  phone_number: Schema.String,
  connection_id: Schema.optional(Schema.NullOr(Schema.String))
})

export const CallControlApplication = Schema.Struct({
  id: Schema.String,
  application_name: Schema.String,
  webhook_event_url: Schema.optional(Schema.NullOr(Schema.String))
})
