/**
 * The parts of Exotel's Voice API v1 the adapter uses (HTTP Basic with the API key and token, form
 * fields in, JSON out through the `.json` suffix):
 *
 * - `POST /v1/Accounts/{sid}/Calls/connect.json` places a call ("Connect Voice AI": `From` is dialed,
 *   `CallerId` is the ExoPhone shown, `StreamUrl` + `StreamType=bidirectional` connect the answered
 *   call to our media WebSocket); Exotel answers `{"Call": {"Sid", "Status", ...}}`;
 * - `GET /v1/Accounts/{sid}/Calls/{CallSid}.json` — the call's details (`Status`, `Duration`);
 *
 * Exotel's v1 reference documents no request that ends a call (its newer CPaaS API ends "legs", which a
 * v1 call is not), so the adapter sends none: an answered call ends when its media stream closes, and a
 * ringing one cannot be ended (see `hangUp` in `Exotel.ts`).
 *
 * The base URL: `make({ apiUrl })` (tests), else `AGENTLINE_EXOTEL_API_URL` (tests, private regions),
 * else the configuration's `api_base_url` (one of Exotel's two regional hosts, checked by the schema),
 * else `https://api.exotel.com`. Failures become `TelephonyError`s with Exotel's message
 * (`RestException.Message`) but never the credentials or the account SID (it is in every path); 429
 * and 5xx (and an Exotel that cannot be reached) are retryable, other refusals not.
 */
import type { TelephonyError } from "@agentline/telephony-kit/TelephonyProvider"
import * as ProviderRest from "@agentline/telephony-kit/ProviderRest"
import { type HttpClient, HttpClientRequest } from "@effect/platform"
import { Config, Effect, type Either, Option } from "effect"

export const DEFAULT_API_URL = "https://api.exotel.com"

/** An empty variable is no override. */
export const apiUrlConfig = Config.option(Config.string("AGENTLINE_EXOTEL_API_URL")).pipe(
  Config.map(Option.filter((url) => url.trim() !== ""))
)

export type ExotelFailure = ProviderRest.ProviderFailure

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
const api: ProviderRest.ProviderApi = {
  provider: "exotel",
  displayName: "Exotel",
  failureMessage: (body) => {
    const exception = member(body, "RestException") ?? body
    return text(member(exception, "Message")) ?? text(member(exception, "message"))
  }
}

export const failure = (f: ExotelFailure, what: string) => ProviderRest.refused(api, f, what)

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
    readonly method: "GET" | "POST"
    /** Under `/v1/Accounts/{sid}`, e.g. `/Calls/connect.json`. */
    readonly path: string
    readonly form?: ReadonlyArray<readonly [string, string]>
    readonly what: string
  }) => Effect.Effect<Either.Either<unknown, ExotelFailure>, TelephonyError>
}

export const make = (options: { readonly apiUrl?: string | undefined } = {}): Effect.Effect<Rest, never, HttpClient.HttpClient> =>
  Effect.map(ProviderRest.make(api), (client): Rest => ({
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
      // The platform's request errors name the kind of fault only: the URL (with the account SID) and the credentials stay out.
      return yield* client.send(request, what)
    })
  }))
