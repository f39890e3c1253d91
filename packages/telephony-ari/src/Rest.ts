/**
 * The parts of the Asterisk REST Interface the adapter uses, with HTTP Basic (the ari.conf user and
 * password), query parameters as ARI documents them and a JSON body for `variables`:
 *
 * - `POST /ari/channels` originates a channel into the Stasis application (`app`, `appArgs`,
 *   `channelId` chosen by us, `endpoint`, `callerId`, `timeout`); `GET` / `DELETE /ari/channels/{id}`
 *   look a channel up and hang it up;
 * - `POST /ari/channels/externalMedia` makes the chan_websocket channel that dials our media route;
 * - `POST /ari/bridges`, `POST /ari/bridges/{id}/addChannel`, `DELETE /ari/bridges/{id}` mix the two.
 *
 * The base URL is the configuration's own `ari_endpoint` (the customer's Asterisk);
 * `AGENTLINE_ARI_URL` (or `make({ apiUrl })`) replaces it, for tests only. Failures become
 * `TelephonyError`s with Asterisk's `message` but never the credentials; 429 and 5xx (and an Asterisk
 * that cannot be reached) are retryable, other refusals not.
 */
import * as ProviderRest from "@agentline/telephony-kit/ProviderRest"
import type { TelephonyError } from "@agentline/telephony-kit/TelephonyProvider"
import { type HttpClient, HttpClientRequest } from "@effect/platform"
import { Config, Effect, type Either, Option } from "effect"
import type { AriConfig } from "./Config.js"

export const apiUrlOverride = Config.option(Config.string("AGENTLINE_ARI_URL"))

export type AriFailure = ProviderRest.ProviderFailure

/** ARI's errors are `{"message": ...}`; an allocation failure is `{"error": "Allocation failed"}`. */
const api: ProviderRest.ProviderApi = {
  provider: "ari",
  displayName: "Asterisk",
  failureMessage: (body) => {
    const json = typeof body === "object" && body !== null ? body as Record<string, unknown> : {}
    return typeof json.message === "string" ? json.message : typeof json.error === "string" ? json.error : undefined
  },
  // Some of ARI's answers are not JSON; only their status matters.
  lenient: true
}

export const failure = (f: AriFailure, what: string) => ProviderRest.refused(api, f, what)

/** `http://pbx:8088` or `http://pbx:8088/ari` as the REST base, `http://pbx:8088/ari`. */
export const restBase = (endpoint: string) => `${endpoint.replace(/\/+$/, "").replace(/\/ari$/, "")}/ari`

export const basicAuth = (config: Pick<AriConfig, "app_name" | "app_password">) =>
  `Basic ${Buffer.from(`${config.app_name}:${config.app_password}`).toString("base64")}`

/** The REST base for a configuration: the override when set, else its own endpoint. */
export const baseFor = (config: AriConfig, apiUrl: string | undefined) =>
  Effect.map(apiUrlOverride.pipe(Effect.orElseSucceed(() => Option.none<string>())), (override) =>
    restBase(apiUrl ?? Option.getOrElse(override, () => config.ari_endpoint)))

export interface Rest {
  /** The JSON body (or `undefined`) on a 2xx; `Left` with Asterisk's refusal otherwise. */
  readonly send: (input: {
    readonly config: AriConfig
    readonly method: "GET" | "POST" | "DELETE"
    readonly path: string
    readonly query?: Readonly<Record<string, string | undefined>>
    readonly body?: Record<string, unknown>
    readonly what: string
  }) => Effect.Effect<Either.Either<unknown, AriFailure>, TelephonyError>
}

export const make = (options: { readonly apiUrl?: string | undefined } = {}): Effect.Effect<Rest, never, HttpClient.HttpClient> =>
  Effect.map(ProviderRest.make(api), (rest): Rest => ({
    send: ({ body, config, method, path, query, what }) =>
      Effect.gen(function*() {
        const base = yield* baseFor(config, options.apiUrl)
        const url = new URL(`${base}${path}`)
        for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, v)
        let request = HttpClientRequest.make(method)(url.toString()).pipe(
          HttpClientRequest.setHeader("authorization", basicAuth(config)),
          HttpClientRequest.acceptJson
        )
        if (body !== undefined) request = HttpClientRequest.bodyUnsafeJson(request, body)
        return yield* rest.send(request, what)
      })
  }))
