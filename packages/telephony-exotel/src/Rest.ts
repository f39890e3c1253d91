/**
 * The parts of Exotel's Voice API v1 the adapter uses (HTTP Basic with the API key and token, form
 * fields in, JSON out through the `.json` suffix):
 *
 * - `POST /v1/Accounts/{sid}/Calls/connect.json` places a call ("Connect Voice AI": `From` is dialed,
 *   `CallerId` is the ExoPhone shown, `StreamUrl` + `StreamType=bidirectional` connect the answered
 *   call to our media WebSocket); Exotel answers `{"Call": {"Sid", "Status", ...}}`;
 * - `GET /v1/Accounts/{sid}/Calls/{CallSid}.json` — the call's details (`Status`, `Duration`);
 * - `DELETE /v1/Accounts/{sid}/Calls/{CallSid}.json` — hang up. Exotel's v1 reference documents no
 *   hang-up request; this is the one third-party Exotel clients send. A media stream's call also ends
 *   when its socket closes.
 *
 * The base URL: `make({ apiUrl })` (tests), else `AGENTLINE_EXOTEL_API_URL` (tests, private regions),
 * else the configuration's `api_base_url` (one of Exotel's two regional hosts, checked by the schema),
 * else `https://api.exotel.com`. Failures become `TelephonyError`s with Exotel's message
 * (`RestException.Message`) but never the credentials or the account SID (it is in every path); 429
 * and 5xx (and an Exotel that cannot be reached) are retryable, other refusals not.
 */
import { TelephonyError } from "@agentline/core/telephony/TelephonyProvider"
import { FetchHttpClient, HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Config, Duration, Effect, Either, Option } from "effect"

export const DEFAULT_API_URL = "https://api.exotel.com"

/** An empty variable is no override. */
export const apiUrlConfig = Config.option(Config.string("AGENTLINE_EXOTEL_API_URL")).pipe(
  Config.map(Option.filter((url) => url.trim() !== ""))
)

const REQUEST_TIMEOUT = Duration.seconds(15)

export interface ExotelFailure {
  readonly status: number
  readonly message: string
}

export const failure = (f: ExotelFailure, what: string) =>
  new TelephonyError({
    provider: "exotel",
    message: `Exotel refused to ${what}: ${f.message} (HTTP ${f.status})`,
    retryable: f.status === 429 || f.status >= 500
  })

const unreachable = (what: string, reason: string) =>
  new TelephonyError({ provider: "exotel", message: `Exotel could not be reached to ${what}: ${reason}`, retryable: true })

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

/** A member of an object whatever its case: Exotel's v1 writes `Call.Sid`, its newer pages `call.sid`. */
export const member = (value: unknown, name: string): unknown => {
  if (!isRecord(value)) return undefined
  const wanted = name.toLowerCase()
  for (const [k, v] of Object.entries(value)) if (k.toLowerCase() === wanted) return v
  return undefined
}

export const text = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : typeof value === "number" ? String(value) : undefined

/** Exotel's error bodies: `{"RestException": {"Status", "Message"}}`; anything else is shown by status. */
const readFailure = (response: HttpClientResponse.HttpClientResponse) =>
  Effect.map(Effect.either(response.text), (body): ExotelFailure => {
    let json: unknown = undefined
    if (Either.isRight(body)) {
      try {
        json = JSON.parse(body.right)
      } catch {
        json = undefined
      }
    }
    const exception = member(json, "RestException") ?? json
    const message = text(member(exception, "Message")) ?? text(member(exception, "message"))
    return { status: response.status, message: message ?? `HTTP ${response.status}` }
  })

export interface Credentials {
  readonly account_sid: string
  readonly api_key: string
  readonly api_token: string
  readonly api_base_url?: string | null | undefined
}

export interface Rest {
  /** The JSON body on a 2xx (`undefined` for an empty one); `Left` with Exotel's refusal otherwise. */
  readonly send: (input: {
    readonly credentials: Credentials
    readonly method: "GET" | "POST" | "DELETE"
    /** Under `/v1/Accounts/{sid}`, e.g. `/Calls/connect.json`. */
    readonly path: string
    readonly form?: ReadonlyArray<readonly [string, string]>
    readonly what: string
  }) => Effect.Effect<Either.Either<unknown, ExotelFailure>, TelephonyError>
}

export const make = (options: { readonly apiUrl?: string | undefined } = {}): Rest => ({
  send: ({ credentials, form, method, path, what }) =>
    Effect.gen(function*() {
      const fromEnvironment = yield* apiUrlConfig.pipe(Effect.orDie)
      const base = (options.apiUrl ?? Option.getOrUndefined(fromEnvironment) ?? credentials.api_base_url ?? DEFAULT_API_URL)
        .replace(/\/+$/, "")
      let request = HttpClientRequest.make(method)(`${base}/v1/Accounts/${encodeURIComponent(credentials.account_sid)}${path}`).pipe(
        HttpClientRequest.basicAuth(credentials.api_key, credentials.api_token),
        HttpClientRequest.acceptJson
      )
      if (form !== undefined) request = HttpClientRequest.bodyUrlParams(request, form.map(([k, v]) => [k, v] as [string, string]))
      const client = yield* HttpClient.HttpClient
      const response = yield* client.execute(request).pipe(
        Effect.timeoutFail({ duration: REQUEST_TIMEOUT, onTimeout: () => unreachable(what, "no answer within 15 seconds") }),
        // `reason` names the kind of fault only: the URL (with the account SID) and the credentials stay out.
        Effect.catchTag("RequestError", (e) => Effect.fail(unreachable(what, e.reason))),
        Effect.catchTag("ResponseError", (e) => Effect.fail(unreachable(what, e.reason)))
      )
      if (response.status < 200 || response.status >= 300) return Either.left(yield* readFailure(response))
      // Exotel accepted the request: asking again could place a second call, so these are not retryable.
      const unexpected = (reason: string) =>
        new TelephonyError({ provider: "exotel", message: `Exotel's answer to ${what} was ${reason}`, retryable: false })
      const body = yield* response.text.pipe(Effect.mapError(() => unexpected("unreadable")))
      if (body.trim() === "") return Either.right(undefined)
      try {
        return Either.right(JSON.parse(body) as unknown)
      } catch {
        return yield* Effect.fail(unexpected("not JSON"))
      }
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer))
})
