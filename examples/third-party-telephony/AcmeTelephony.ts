/**
 * An example third-party telephony adapter for "Acme Voice", a made-up carrier with a small JSON API.
 * It implements the whole `TelephonyProvider` port, the same way a real adapter would:
 *
 *   POST {base_url}/v1/accounts/{account_id}/calls               place a call (Idempotency-Key: our attempt id)
 *   POST {base_url}/v1/accounts/{account_id}/calls/{id}/hangup   hang up (404/409: already over)
 *   GET  {base_url}/v1/accounts/{account_id}/calls/{id}          status of a call
 *   PUT  {base_url}/v1/accounts/{account_id}/numbers/{number}    {voice_url} inbound webhook (null: detach)
 *   GET  {base_url}/v1/accounts/{account_id}/numbers/{number}    200 if the account owns the number
 *
 * Status callbacks are JSON `{call_id, status, timestamp, duration?, cause?}` signed with
 * `Acme-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with webhook_secret>`.
 *
 * Everything Acme-specific (URLs, auth, status names, the signature) stays in this file; Agentline
 * only sees normalized `CallEvent`s and `CallOutcome`s. See docs/telephony-adapters.md.
 */
import {
  type CallEvent,
  type CallOutcome,
  type CallStatus,
  type ProviderField,
  type TelephonyProvider,
  TelephonyError,
  type WebhookRequest
} from "@agentline/core/telephony/TelephonyProvider"
import { HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Clock, Effect, Either, Schema } from "effect"
import * as Crypto from "node:crypto"

// ---------------------------------------------------------------------------------------- the config

const required = (name: string) => Schema.Trim.pipe(Schema.nonEmptyString({ message: () => `${name} must not be empty` }))

export const AcmeConfig = Schema.Struct({
  base_url: required("base_url").pipe(
    Schema.pattern(/^https?:\/\/[^/\s]+(\/\S*)?$/, { message: () => "base_url must be an http:// or https:// URL" })
  ),
  account_id: required("account_id"),
  api_key: required("api_key"),
  webhook_secret: required("webhook_secret")
  // Report every bad field at once; drop keys we do not know (from_numbers, provider, ...).
}).annotations({ parseOptions: { errors: "all", onExcessProperty: "ignore" } })
export type AcmeConfig = typeof AcmeConfig.Type

export const fields: ReadonlyArray<ProviderField> = [
  { name: "base_url", label: "API base URL", type: "text", required: true, sensitive: false, description: "e.g. https://api.acme-voice.example" },
  { name: "account_id", label: "Account ID", type: "text", required: true, sensitive: false, description: "Identifies the account in inbound webhooks" },
  { name: "api_key", label: "API key", type: "password", required: true, sensitive: true },
  { name: "webhook_secret", label: "Webhook secret", type: "password", required: true, sensitive: true, description: "Signs status callbacks" }
]

// --------------------------------------------------------------------------- pure parts (unit-test these)

/** Acme's call statuses and what they mean in Agentline's terms. */
export const AcmeStatus = Schema.Literal(
  "queued",
  "initiated",
  "ringing",
  "answered",
  "completed",
  "busy",
  "no-answer",
  "machine",
  "failed",
  "canceled"
)
export type AcmeStatus = typeof AcmeStatus.Type

const finalOutcomes: Partial<Record<AcmeStatus, CallOutcome>> = {
  completed: "completed",
  busy: "busy",
  "no-answer": "no_answer",
  machine: "voicemail",
  failed: "failed",
  canceled: "canceled"
}

export const AcmeCallback = Schema.Struct({
  call_id: Schema.String,
  status: AcmeStatus,
  timestamp: Schema.DateTimeUtc,
  duration: Schema.optional(Schema.NonNegative),
  cause: Schema.optional(Schema.String)
})
export type AcmeCallback = typeof AcmeCallback.Type

/** One callback as normalized events: none for `queued`, one for everything else. */
export const toEvents = (callback: AcmeCallback, raw: unknown): ReadonlyArray<CallEvent> => {
  const at = callback.timestamp.epochMillis
  const providerCallId = callback.call_id
  const outcome = finalOutcomes[callback.status]
  if (outcome !== undefined) {
    return [{
      type: "ended",
      providerCallId,
      at,
      outcome,
      // Acme reports a duration for unanswered calls too (time spent ringing); ours is talk time.
      durationSeconds: outcome === "completed" || outcome === "voicemail" ? callback.duration ?? 0 : 0,
      ...(callback.cause !== undefined ? { hangupCause: callback.cause } : {}),
      raw
    }]
  }
  switch (callback.status) {
    case "initiated":
    case "ringing":
    case "answered":
      return [{ type: callback.status, providerCallId, at, raw }]
    default:
      return []
  }
}

/** The `Acme-Signature` header value for a body at a time: what Acme sends, and what tests sign with. */
export const sign = (secret: string, unixSeconds: number, rawBody: Uint8Array): string => {
  const mac = Crypto.createHmac("sha256", secret).update(`${unixSeconds}.`).update(rawBody).digest("hex")
  return `t=${unixSeconds},v1=${mac}`
}

/** Callbacks older (or newer) than this are refused, so a captured callback cannot be replayed later. */
export const signatureToleranceSeconds = 300

/** Whether `header` is a valid signature of `rawBody` at `nowMillis`. Constant-time on the MAC. */
export const verify = (secret: string, header: string | undefined, rawBody: Uint8Array, nowMillis: number): boolean => {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? "")
  if (match === null) return false
  const t = Number(match[1])
  if (Math.abs(nowMillis / 1000 - t) > signatureToleranceSeconds) return false
  const expected = Buffer.from(sign(secret, t, rawBody).slice(-64), "hex")
  return Crypto.timingSafeEqual(expected, Buffer.from(match[2]!, "hex"))
}

// ------------------------------------------------------------------------------------------- the adapter

const CallResource = Schema.Struct({ id: Schema.String, status: AcmeStatus, duration: Schema.optional(Schema.NonNegative) })

const name = "acme"

const failure = (message: string, retryable: boolean, cause?: unknown) =>
  new TelephonyError({ provider: name, message, retryable, ...(cause !== undefined ? { cause } : {}) })

/** Rate limits and server errors pass; anything else Acme refused will be refused again. */
const refused = (what: string, response: HttpClientResponse.HttpClientResponse) =>
  failure(`Acme refused to ${what} (HTTP ${response.status})`, response.status === 429 || response.status >= 500)

/**
 * The adapter. It needs an `HttpClient` once, when it is made; its methods then need nothing, as the
 * port requires (`FetchHttpClient.layer` in production, a test client or a local fake in tests).
 */
export const make: Effect.Effect<TelephonyProvider<AcmeConfig>, never, HttpClient.HttpClient> = Effect.gen(function*() {
  const client = (yield* HttpClient.HttpClient).pipe(
    // A carrier that does not answer within ten seconds is treated like a network fault.
    HttpClient.transformResponse(Effect.timeout("10 seconds"))
  )

  const url = (config: AcmeConfig, path: string) =>
    `${config.base_url.replace(/\/+$/, "")}/v1/accounts/${encodeURIComponent(config.account_id)}${path}`

  /** Sends a request; transport faults and timeouts are retryable failures, HTTP answers are returned. */
  const send = (config: AcmeConfig, request: HttpClientRequest.HttpClientRequest, what: string) =>
    client.execute(request.pipe(HttpClientRequest.bearerToken(config.api_key), HttpClientRequest.acceptJson)).pipe(
      Effect.mapError((cause) => failure(`could not reach Acme to ${what}`, true, cause))
    )

  const body = <A, I>(schema: Schema.Schema<A, I>, response: HttpClientResponse.HttpClientResponse, what: string) =>
    response.json.pipe(
      Effect.flatMap(Schema.decodeUnknown(schema)),
      Effect.mapError((cause) => failure(`Acme answered ${what} with an unexpected body`, false, cause))
    )

  return {
    name,
    displayName: "Acme Voice (example)",
    configSchema: AcmeConfig,
    fields,
    accountId: (config) => config.account_id,

    placeCall: (input) =>
      Effect.gen(function*() {
        const request = HttpClientRequest.post(url(input.config, "/calls")).pipe(
          // The attempt id makes a re-sent request (after a timeout) find the call it already placed.
          HttpClientRequest.setHeader("Idempotency-Key", `agentline-${input.correlationId}`),
          HttpClientRequest.bodyUnsafeJson({
            to: input.to,
            ...(input.from !== undefined ? { from: input.from } : {}),
            status_callback: input.callbackUrl,
            client_reference: input.correlationId
          })
        )
        const response = yield* send(input.config, request, "place a call")
        if (response.status !== 200 && response.status !== 201) return yield* refused("place the call", response)
        const call = yield* body(CallResource, response, "the new call")
        return { providerCallId: call.id }
      }),

    hangup: ({ config, providerCallId }) =>
      Effect.gen(function*() {
        const response = yield* send(config, HttpClientRequest.post(url(config, `/calls/${encodeURIComponent(providerCallId)}/hangup`)), "hang up")
        // Hanging up a call that is already over is not an error: the goal is reached.
        if (response.status < 300 || response.status === 404 || response.status === 409) return
        return yield* refused("hang up", response)
      }),

    getCall: ({ config, providerCallId }) =>
      Effect.gen(function*() {
        const response = yield* send(config, HttpClientRequest.get(url(config, `/calls/${encodeURIComponent(providerCallId)}`)), "look up a call")
        if (response.status === 404) return { _tag: "Unknown", reason: `Acme does not know call ${providerCallId}` } as const
        if (response.status !== 200) return yield* refused("look up the call", response)
        const call = yield* body(CallResource, response, "the call")
        const outcome = finalOutcomes[call.status]
        if (outcome === undefined) return { _tag: "InProgress" } as const
        const durationSeconds = outcome === "completed" || outcome === "voicemail" ? call.duration ?? 0 : 0
        return { _tag: "Ended", outcome, durationSeconds } as const
      }).pipe(
        // "Unknown" is the honest answer when the carrier cannot be asked: the caller never re-dials on it.
        Effect.catchAll((e): Effect.Effect<CallStatus> => Effect.succeed({ _tag: "Unknown", reason: e.message }))
      ),

    parseCallback: ({ request }) =>
      Effect.gen(function*() {
        const decoded = Schema.decodeUnknownEither(Schema.parseJson(AcmeCallback))(new TextDecoder().decode(request.rawBody))
        if (Either.isLeft(decoded)) return yield* failure("not an Acme status callback", false, decoded.left)
        return toEvents(decoded.right, decoded.right)
      }),

    verifySignature: ({ config, request }: { readonly config: AcmeConfig; readonly request: WebhookRequest }) =>
      Effect.map(Clock.currentTimeMillis, (now) => verify(config.webhook_secret, header(request, "acme-signature"), request.rawBody, now)),

    configureInbound: ({ address, config, webhookUrl }) =>
      Effect.gen(function*() {
        const request = HttpClientRequest.put(url(config, `/numbers/${encodeURIComponent(address)}`)).pipe(
          HttpClientRequest.bodyUnsafeJson({ voice_url: webhookUrl })
        )
        const response = yield* send(config, request, "configure the number")
        if (response.status === 404) return { ok: false, message: `Acme: the account does not own ${address}` }
        if (response.status >= 300) return { ok: false, message: `Acme refused to configure ${address} (HTTP ${response.status})` }
        return { ok: true, message: webhookUrl === null ? `Acme: inbound calls to ${address} detached` : `Acme: inbound calls to ${address} go to Agentline` }
      }).pipe(
        // The port's contract: report, never fail (the phone-number change is kept either way).
        Effect.catchAll((e) => Effect.succeed({ ok: false, message: e.message }))
      ),

    checkOwnership: ({ address, config }) =>
      send(config, HttpClientRequest.get(url(config, `/numbers/${encodeURIComponent(address)}`)), "look up the number").pipe(
        Effect.map((response) => (response.status === 200 ? true : response.status === 404 ? false : undefined)),
        Effect.orElseSucceed(() => undefined)
      )
  } satisfies TelephonyProvider<AcmeConfig>
})

/** Header lookup that does not depend on how the server spelled the header name. */
const header = (request: WebhookRequest, wanted: string): string | undefined => {
  for (const [key, value] of Object.entries(request.headers)) if (key.toLowerCase() === wanted) return value
  return undefined
}
