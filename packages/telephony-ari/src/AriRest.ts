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
import { TelephonyError } from "@agentline/core/telephony/TelephonyProvider"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { Config, Duration, Effect, Either, Option } from "effect"
import type { AriConfig } from "./AriConfig.js"

export const apiUrlOverride = Config.option(Config.string("AGENTLINE_ARI_URL"))

const REQUEST_TIMEOUT = Duration.seconds(15)

export interface AriFailure {
  readonly status: number
  readonly message: string
}

export const failure = (f: AriFailure, what: string) =>
  new TelephonyError({
    provider: "ari",
    message: `Asterisk refused to ${what}: ${f.message} (HTTP ${f.status})`,
    retryable: f.status === 429 || f.status >= 500
  })

export const unreachable = (what: string, reason: string) =>
  new TelephonyError({ provider: "ari", message: `Asterisk could not be reached to ${what}: ${reason}`, retryable: true })

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

export const make = (options: { readonly apiUrl?: string | undefined } = {}): Rest => ({
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
      const client = yield* HttpClient.HttpClient
      const response = yield* client.execute(request).pipe(
        Effect.timeoutFail({ duration: REQUEST_TIMEOUT, onTimeout: () => unreachable(what, "no answer within 15 seconds") }),
        // The request error names the URL and the failure, never the Authorization header.
        Effect.catchTag("RequestError", (e) => Effect.fail(unreachable(what, e.reason))),
        Effect.catchTag("ResponseError", (e) => Effect.fail(unreachable(what, e.reason)))
      )
      const text = yield* response.text.pipe(Effect.orElseSucceed(() => ""))
      let json: unknown = undefined
      try {
        json = text.trim() === "" ? undefined : JSON.parse(text)
      } catch {
        json = undefined
      }
      if (response.status < 200 || response.status >= 300) {
        // ARI's errors are {"message": ...}; an allocation failure is {"error": "Allocation failed"}.
        const body = typeof json === "object" && json !== null ? json as Record<string, unknown> : {}
        const message = typeof body.message === "string" ? body.message : typeof body.error === "string" ? body.error : `HTTP ${response.status}`
        return Either.left({ status: response.status, message })
      }
      return Either.right(json)
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer))
})
