/**
 * An example third-party telephony adapter for "Acme Voice", a made-up carrier with a small JSON API.
 * It implements the port's parts the way a real adapter would:
 *
 *   calls     POST {base_url}/v1/accounts/{account_id}/calls               place a call, with the call flow inline
 *                                                                          (Idempotency-Key: our attempt id)
 *             POST {base_url}/v1/accounts/{account_id}/calls/{id}/hangup   hang up (404/409: already over)
 *             GET  {base_url}/v1/accounts/{account_id}/calls/{id}          status of a call
 *   webhooks  signed status callbacks and incoming calls; answers are Acme call-flow documents
 *   media     JSON frames with base64 audio (`AcmeMedia.ts`)
 *   inbound   PUT  {base_url}/v1/accounts/{account_id}/numbers/{number}    {voice_url} (null: detach)
 *
 * Everything Acme-specific (URLs, auth, status names, the signature, documents) stays in these files
 * (`AcmeProtocol.ts` holds the pure parts); Agentline only sees the normalized types. See
 * docs/telephony-adapters.md.
 */
import {
  type CallStatus,
  type ProviderCalls,
  type ProviderInbound,
  type ProviderWebhooks,
  type TelephonyProvider,
  TelephonyError
} from "@agentline/telephony-kit/TelephonyProvider"
import { HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Clock, Effect, Either, Schema } from "effect"
import { media } from "./AcmeMedia.js"
import {
  AcmeCallback,
  AcmeConfig,
  AcmeIncomingCall,
  AcmeStatus,
  actions,
  answer,
  fields,
  finalOutcomes,
  header,
  toEvents,
  verify
} from "./AcmeProtocol.js"

export * from "./AcmeProtocol.js"

const CallResource = Schema.Struct({ id: Schema.String, status: AcmeStatus, duration: Schema.optional(Schema.NonNegative) })

/** Acme implements calls, webhooks, media and inbound setup; it keeps no connection per configuration. */
export type AcmeProvider = TelephonyProvider<AcmeConfig> & {
  readonly calls: ProviderCalls<AcmeConfig>
  readonly webhooks: ProviderWebhooks<AcmeConfig>
  readonly inbound: ProviderInbound<AcmeConfig>
}

export interface AcmeOptions {
  /**
   * The registry name (default `acme`). An application can register this adapter under a built-in
   * provider's name, e.g. `twilio`, to replace it: configurations of that name then use Acme's schema.
   */
  readonly name?: string
  readonly displayName?: string
}

/**
 * The adapter. It needs an `HttpClient` once, when it is made; its methods then need nothing, as the
 * port requires (`FetchHttpClient.layer` in production, a test client or a local fake in tests).
 */
export const make = (options: AcmeOptions = {}): Effect.Effect<AcmeProvider, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const name = options.name ?? "acme"
    const client = (yield* HttpClient.HttpClient).pipe(
      // A carrier that does not answer within ten seconds is treated like a network fault.
      HttpClient.transformResponse(Effect.timeout("10 seconds"))
    )

    const failure = (message: string, retryable: boolean, cause?: unknown) =>
      new TelephonyError({ provider: name, message, retryable, ...(cause !== undefined ? { cause } : {}) })

    /** Rate limits and server errors pass; anything else Acme refused will be refused again. */
    const refused = (what: string, response: HttpClientResponse.HttpClientResponse) =>
      failure(`Acme refused to ${what} (HTTP ${response.status})`, response.status === 429 || response.status >= 500)

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

    const calls: ProviderCalls<AcmeConfig> = {
      place: (input) =>
        Effect.gen(function*() {
          const request = HttpClientRequest.post(url(input.config, "/calls")).pipe(
            // The attempt id makes a re-sent request (after a timeout) find the call it already placed.
            HttpClientRequest.setHeader("Idempotency-Key", `agentline-${input.attemptId}`),
            HttpClientRequest.bodyUnsafeJson({
              to: input.to,
              ...(input.from !== undefined ? { from: input.from } : {}),
              status_callback: input.callbackUrl,
              client_reference: String(input.attemptId),
              // What Acme runs once the callee answers.
              actions: actions(input.whenAnswered)
            })
          )
          const response = yield* send(input.config, request, "place a call")
          if (response.status !== 200 && response.status !== 201) return yield* refused("place the call", response)
          const call = yield* body(CallResource, response, "the new call")
          return { providerCallId: call.id }
        }),

      hangUp: ({ config, providerCallId }) =>
        Effect.gen(function*() {
          const response = yield* send(config, HttpClientRequest.post(url(config, `/calls/${encodeURIComponent(providerCallId)}/hangup`)), "hang up")
          // Hanging up a call that is already over is not an error: the goal is reached.
          if (response.status < 300 || response.status === 404 || response.status === 409) return
          return yield* refused("hang up", response)
        }),

      get: ({ config, providerCallId }) =>
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
        )
    }

    const decodeJson = <A, I>(schema: Schema.Schema<A, I>, rawBody: Uint8Array, what: string) =>
      Either.mapLeft(
        Schema.decodeUnknownEither(Schema.parseJson(schema))(new TextDecoder().decode(rawBody)),
        (cause) => failure(`not an Acme ${what}`, false, cause)
      )

    const webhooks: ProviderWebhooks<AcmeConfig> = {
      // Acme signs the body and a timestamp (not the URL); both webhooks use the same scheme.
      verify: ({ config, request }) =>
        Effect.map(Clock.currentTimeMillis, (now) => verify(config.webhook_secret, header(request, "acme-signature"), request.rawBody, now)),
      parseStatus: ({ request }) => Either.map(decodeJson(AcmeCallback, request.rawBody, "status callback"), toEvents),
      parseInbound: ({ request }) =>
        Either.map(decodeJson(AcmeIncomingCall, request.rawBody, "incoming call"), (call) => ({
          accountId: call.account_id,
          providerCallId: call.call_id,
          from: call.from,
          to: call.to
        })),
      answer: ({ instruction }) => answer(instruction)
    }

    const inbound: ProviderInbound<AcmeConfig> = {
      configure: ({ address, config, webhookUrl }) =>
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
        )
    }

    return {
      name,
      displayName: options.displayName ?? "Acme Voice (example)",
      configSchema: AcmeConfig,
      fields,
      accountId: (config) => config.account_id,
      calls,
      webhooks,
      media,
      inbound
    } satisfies AcmeProvider
  })
