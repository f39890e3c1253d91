/**
 * The parts of Telnyx's API v2 the adapter uses: Call Control (dial, commands, call status), phone
 * numbers and Call Control Applications. JSON both ways, `Authorization: Bearer <API key>`; refusals
 * are `{"errors": [{"code", "title", "detail", "source": {"pointer"}}]}` with 4xx statuses.
 *
 * The base URL comes from `AGENTLINE_TELNYX_API_URL` (default `https://api.telnyx.com`), never from an
 * organization's configuration: a tenant must not be able to point this server at internal addresses.
 * Requests go through `ProviderRest` (the adapter's `HttpClient`): failures become `TelephonyError`s
 * with Telnyx's code, title and detail but never the API key; 429 and 5xx (and a Telnyx that cannot be
 * reached) are retryable, other refusals are not.
 */
import * as ProviderRest from "@agentline/telephony-kit/ProviderRest"
import type { TelephonyError } from "@agentline/telephony-kit/TelephonyProvider"
import { type HttpClient, HttpClientRequest } from "@effect/platform"
import { Config, Effect, Either, Schema } from "effect"

export const DEFAULT_API_URL = "https://api.telnyx.com"

/** Where Telnyx's API is: `AGENTLINE_TELNYX_API_URL`, else Telnyx's public endpoint. */
export const apiUrlConfig = Config.string("AGENTLINE_TELNYX_API_URL").pipe(Config.withDefault(DEFAULT_API_URL))

const ErrorBody = Schema.Struct({
  errors: Schema.Array(Schema.Struct({
    code: Schema.optional(Schema.Union(Schema.String, Schema.Number)),
    title: Schema.optional(Schema.String),
    detail: Schema.optional(Schema.String)
  }))
})

const firstError = (body: unknown) => {
  const parsed = Schema.decodeUnknownEither(ErrorBody)(body)
  return Either.isRight(parsed) ? parsed.right.errors[0] : undefined
}

/** What Telnyx said when it refused a request. */
export interface TelnyxFailure extends ProviderRest.ProviderFailure {
  /** Telnyx's error code (`90018`: the call has already ended). */
  readonly code: string | undefined
}

/** Telnyx's code for a command on a call that is over ("Call has already ended"). */
export const CALL_ENDED = "90018"

const api: ProviderRest.ProviderApi = {
  provider: "telnyx",
  displayName: "Telnyx",
  failureMessage: (body) => {
    const first = firstError(body)
    const text = [first?.title, first?.detail].filter((s): s is string => s !== undefined && s !== "")
    return text.length === 0 ? undefined : text.join(": ")
  },
  failureCode: (body) => {
    const code = firstError(body)?.code
    return code === undefined ? undefined : String(code)
  }
}

export const failure = (f: TelnyxFailure, what: string) => ProviderRest.refused(api, f, what)

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

export const make = (options: { readonly apiUrl?: string | undefined } = {}): Effect.Effect<Rest, never, HttpClient.HttpClient> =>
  Effect.map(ProviderRest.make(api), (rest): Rest => ({
    send: ({ apiKey, body, method, path, query, schema, what }) =>
      Effect.gen(function*() {
        const base = (options.apiUrl ?? (yield* apiUrlConfig.pipe(Effect.orDie))).replace(/\/+$/, "")
        let request = HttpClientRequest.make(method)(`${base}/v2${path}`).pipe(
          HttpClientRequest.bearerToken(apiKey),
          HttpClientRequest.acceptJson
        )
        if (query !== undefined) request = HttpClientRequest.setUrlParams(request, query)
        if (body !== undefined) request = HttpClientRequest.bodyUnsafeJson(request, body)
        const sent = yield* rest.send(request, what)
        if (Either.isLeft(sent)) {
          const code = firstError(sent.left.body)?.code
          return Either.left({ ...sent.left, code: code === undefined ? undefined : String(code) })
        }
        const decoded = Schema.decodeUnknownEither(Schema.Struct({ data: schema }))(sent.right)
        if (Either.isLeft(decoded)) return yield* ProviderRest.unexpected(api, what, "not of the expected shape")
        return Either.right(decoded.right.data)
      })
  }))

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
