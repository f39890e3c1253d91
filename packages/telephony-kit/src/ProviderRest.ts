/**
 * One request to a provider's REST API, as every adapter needs it: a bounded wait, faults worded
 * without the request's credentials (the platform's request errors name the URL and the kind of
 * fault, never the headers), the provider's own words on a refusal, and the JSON body of an answer.
 *
 * The requests go through the `HttpClient` of the context (`@effect/platform`): the application
 * chooses it (`FetchHttpClient.layer`, `NodeHttpClient.layer`, a test client), never this module. An
 * adapter takes it once when it is made (`make(api)` answers a client bound to it), so the port's
 * methods need nothing.
 *
 * What is retryable follows the port's rule (`TelephonyError.retryable`): a provider that cannot be
 * reached, 429 and 5xx are; other refusals are not; and neither is an answer that cannot be read,
 * since the provider accepted the request (asking again could place a second call).
 */
import { HttpClient, type HttpClientRequest } from "@effect/platform"
import { Duration, Effect, Either, Schedule, Schema } from "effect"
import { type CallStatus, TelephonyError } from "./TelephonyProvider.js"

export interface ProviderFailure {
  readonly status: number
  /** The provider's words (`ProviderApi.failureMessage`), or `HTTP <status>`. */
  readonly message: string
  /** The error body as JSON, for what else a provider says in it (an error code); `undefined` when none. */
  readonly body?: unknown
}

export interface ProviderApi {
  /** `TelephonyError.provider`, e.g. `vonage`. */
  readonly provider: string
  /** How messages name it, e.g. `Vonage`. */
  readonly displayName: string
  /** The provider's words in an error body (its JSON, or `undefined` when it is none). */
  readonly failureMessage: (body: unknown) => string | undefined
  /** The provider's own error code in an error body, named next to the status (`code 21211, HTTP 400`). */
  readonly failureCode?: (body: unknown) => string | undefined
  /** A 2xx whose body is not JSON, or cannot be read, is taken as empty rather than refused (only its status matters). */
  readonly lenient?: boolean
}

const TIMEOUT = Duration.seconds(15)

/** A refusal as the port's error: the provider's words and the status; 429 and 5xx retryable. */
export const refused = (api: ProviderApi, failure: ProviderFailure, what: string) => {
  const code = api.failureCode?.(failure.body)
  return new TelephonyError({
    provider: api.provider,
    message: `${api.displayName} refused to ${what}: ${failure.message} (${
      code !== undefined ? `code ${code}, ` : ""
    }HTTP ${failure.status})`,
    retryable: failure.status === 429 || failure.status >= 500
  })
}

export const unreachable = (api: ProviderApi, what: string, reason: string) =>
  new TelephonyError({ provider: api.provider, message: `${api.displayName} could not be reached to ${what}: ${reason}`, retryable: true })

/** An answer the adapter cannot read, after the provider accepted the request: not retryable (it could place a second call). */
export const unexpected = (api: ProviderApi, what: string, reason: string) =>
  new TelephonyError({ provider: api.provider, message: `${api.displayName}'s answer to ${what} was ${reason}`, retryable: false })

const parse = (text: string): Either.Either<unknown, "not JSON"> => {
  if (text.trim() === "") return Either.right(undefined)
  try {
    return Either.right(JSON.parse(text) as unknown)
  } catch {
    return Either.left("not JSON")
  }
}

/** Sends `request`: the JSON body of a 2xx (`undefined` when empty), `Left` with the provider's refusal otherwise. */
export const send = (
  api: ProviderApi,
  request: HttpClientRequest.HttpClientRequest,
  what: string
): Effect.Effect<Either.Either<unknown, ProviderFailure>, TelephonyError, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(request).pipe(
      Effect.timeoutFail({
        duration: TIMEOUT,
        onTimeout: () => unreachable(api, what, `no answer within ${Duration.toSeconds(TIMEOUT)} seconds`)
      }),
      Effect.catchTag("RequestError", (e) => Effect.fail(unreachable(api, what, e.reason))),
      Effect.catchTag("ResponseError", (e) => Effect.fail(unreachable(api, what, e.reason)))
    )
    if (response.status < 200 || response.status >= 300) {
      const text = yield* response.text.pipe(Effect.orElseSucceed(() => ""))
      const body = Either.getOrUndefined(parse(text))
      return Either.left({ status: response.status, message: api.failureMessage(body) ?? `HTTP ${response.status}`, body })
    }
    const text = yield* (api.lenient === true
      ? response.text.pipe(Effect.orElseSucceed(() => ""))
      : response.text.pipe(Effect.mapError(() => unexpected(api, what, "unreadable"))))
    const body = parse(text)
    if (Either.isLeft(body)) return api.lenient === true ? Either.right(undefined) : yield* Effect.fail(unexpected(api, what, "not JSON"))
    return Either.right(body.right)
  }).pipe(Effect.scoped)

/** `send`, with the answer's body in the shape the adapter reads (a provider that answers otherwise is not retried). */
export const sendDecoded = <A, I>(
  api: ProviderApi,
  request: HttpClientRequest.HttpClientRequest,
  schema: Schema.Schema<A, I>,
  what: string
): Effect.Effect<Either.Either<A, ProviderFailure>, TelephonyError, HttpClient.HttpClient> =>
  Effect.flatMap(send(api, request, what), (answered): Effect.Effect<Either.Either<A, ProviderFailure>, TelephonyError> => {
    if (Either.isLeft(answered)) return Effect.succeed(Either.left(answered.left))
    const decoded = Schema.decodeUnknownEither(schema)(answered.right)
    return Either.isLeft(decoded)
      ? Effect.fail(unexpected(api, what, "not of the expected shape"))
      : Effect.succeed(Either.right(decoded.right))
  })

/** `send`, `sendDecoded` and `refused` of one provider, bound to the `HttpClient` the adapter was made with. */
export interface ProviderRest {
  readonly api: ProviderApi
  readonly send: (
    request: HttpClientRequest.HttpClientRequest,
    what: string
  ) => Effect.Effect<Either.Either<unknown, ProviderFailure>, TelephonyError>
  readonly sendDecoded: <A, I>(
    request: HttpClientRequest.HttpClientRequest,
    schema: Schema.Schema<A, I>,
    what: string
  ) => Effect.Effect<Either.Either<A, ProviderFailure>, TelephonyError>
  readonly refused: (failure: ProviderFailure, what: string) => TelephonyError
}

/** The provider's REST helper over the context's `HttpClient` (taken now: the methods need nothing). */
export const make = (api: ProviderApi): Effect.Effect<ProviderRest, never, HttpClient.HttpClient> =>
  Effect.map(HttpClient.HttpClient, (client) => ({
    api,
    send: (request, what) => Effect.provideService(send(api, request, what), HttpClient.HttpClient, client),
    sendDecoded: (request, schema, what) => Effect.provideService(sendDecoded(api, request, schema, what), HttpClient.HttpClient, client),
    refused: (failure, what) => refused(api, failure, what)
  }))

/** Transient failures of a call lookup: tried 4 times in all, 250 ms apart and doubling. */
const LOOKUP_RETRIES = Schedule.exponential("250 millis").pipe(Schedule.intersect(Schedule.recurs(3)))

/**
 * A provider's answer about a call, for `calls.get`, which has no error channel and where Unknown means
 * "never re-dial": a transient failure (the provider's refusal marked retryable, or a fault reaching
 * it) is tried again a few times; what persists, and any other refusal, is Unknown with its words.
 */
export const lookUpCall = <A, F>(
  lookUp: Effect.Effect<Either.Either<A, F>, TelephonyError>,
  refusal: (failure: F) => TelephonyError,
  status: (found: A) => CallStatus
): Effect.Effect<CallStatus> =>
  lookUp.pipe(
    Effect.flatMap((
      found
    ) => (Either.isLeft(found) && refusal(found.left).retryable ? Effect.fail(refusal(found.left)) : Effect.succeed(found))),
    Effect.retry({ schedule: LOOKUP_RETRIES, while: (e) => e.retryable }),
    Effect.map((
      found
    ): CallStatus => (Either.isLeft(found) ? { _tag: "Unknown", reason: refusal(found.left).message } : status(found.right))),
    Effect.catchAll((e) => Effect.succeed<CallStatus>({ _tag: "Unknown", reason: e.message }))
  )
