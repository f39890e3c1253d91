/**
 * Vonage's `calls`: `POST /v1/calls` with an application JWT (RS256, the configuration's private key and
 * `application_id`: `Jwt.ts`), the callee, the caller id, our answer URL (`answer_method: POST`) and our
 * callback URL as the call's `event_url`; the `uuid` it answers is the call's id. With `amd_enabled`,
 * `advanced_machine_detection` in its synchronous mode (`detect`) with `behavior: hangup`: Vonage tells
 * who answered (`human` / `machine` events) before it asks for the NCCO, and drops machine-answered
 * calls itself. Hang-up is `PUT /v1/calls/{uuid}` `{"action":"hangup"}`; lookups `GET /v1/calls/{uuid}`.
 *
 * A configuration without `signature_secret` cannot verify Vonage's webhooks, so calls through it are
 * refused up front.
 */
import * as ProviderRest from "@agentline/telephony-kit/ProviderRest"
import { present } from "@agentline/telephony-kit/ProviderConfig"
import { type PlaceCall, type ProviderCalls, TelephonyError } from "@agentline/telephony-kit/TelephonyProvider"
import { Clock, Effect, Either, Schema } from "effect"
import * as Callbacks from "./Callbacks.js"
import type { VonageConfig } from "./Config.js"
import * as Jwt from "./Jwt.js"
import * as Rest from "./Rest.js"

const refused = (message: string) => new TelephonyError({ provider: "vonage", message, retryable: false })

/** How Vonage wants an address: phone numbers as digits without `+`, SIP URIs as `sip` endpoints. */
export const endpointOf = (address: string): Record<string, string> | undefined => {
  if (/^\+[1-9][0-9]{6,14}$/.test(address)) return { type: "phone", number: address.slice(1) }
  if (/^sips?:/i.test(address)) return { type: "sip", uri: address }
  return undefined
}

/** The application JWT for one request; a key that is not a PEM private key is a refusal (its text never shown). */
export const applicationToken = (config: VonageConfig) =>
  Effect.flatMap(Clock.currentTimeMillis, (nowMillis) =>
    Effect.try({
      try: () => Jwt.applicationToken({ applicationId: config.application_id, privateKey: config.private_key, nowMillis }),
      catch: () => refused("Vonage: the configuration's private_key is not a valid PEM private key")
    }))

export const make = (rest: Rest.Rest): ProviderCalls<VonageConfig> => {
  const place = (input: PlaceCall<VonageConfig>) =>
    Effect.gen(function*() {
      const { config } = input
      if (present(config.signature_secret) === undefined) {
        return yield* refused("Vonage: set signature_secret on the telephony configuration: this server verifies every Vonage webhook")
      }
      const to = endpointOf(input.to)
      if (to === undefined) return yield* refused(`Vonage cannot dial ${input.to}: only phone numbers and SIP URIs`)
      const from = input.from === undefined ? undefined : endpointOf(input.from)
      const token = yield* applicationToken(config)
      const what = `place the call to ${input.to}`
      const placed = yield* rest.send({
        api: "voice",
        auth: { _tag: "Bearer", token },
        method: "POST",
        path: "/v1/calls",
        json: {
          to: [to],
          ...(from?.type === "phone" ? { from } : { random_from_number: true }),
          answer_url: [input.answerUrl],
          answer_method: "POST",
          event_url: [input.callbackUrl],
          event_method: "POST",
          ...(config.amd_enabled ? { advanced_machine_detection: { behavior: "hangup", mode: "detect" } } : {})
        },
        schema: Rest.PlacedCall,
        what
      })
      if (Either.isLeft(placed)) return yield* Rest.failure(placed.left, what)
      return { providerCallId: placed.right.uuid }
    })

  const lookUp = (config: VonageConfig, uuid: string) =>
    Effect.flatMap(applicationToken(config), (token) =>
      rest.send({
        api: "voice",
        auth: { _tag: "Bearer", token },
        method: "GET",
        path: `/v1/calls/${encodeURIComponent(uuid)}`,
        schema: Rest.Call,
        what: "look the call up"
      }))

  /** Transient failures are tried again here: `get` has no error channel, and Unknown means "never re-dial". */
  const get = ({ config, providerCallId }: { readonly config: VonageConfig; readonly providerCallId: string }) =>
    ProviderRest.lookUpCall(
      lookUp(config, providerCallId),
      (f) => Rest.failure(f, "look the call up"),
      (found) => Callbacks.callStatus({ status: found.status, duration: found.duration })
    )

  const isOver = (config: VonageConfig, uuid: string) =>
    Effect.map(lookUp(config, uuid), (found) => Either.isRight(found) && Callbacks.outcomeOf(found.right.status) !== undefined)

  /** A call already over is left alone (hanging it up is then no error); one that ends meanwhile too. */
  const hangUp = ({ config, providerCallId }: { readonly config: VonageConfig; readonly providerCallId: string }) =>
    Effect.gen(function*() {
      const found = yield* lookUp(config, providerCallId)
      if (Either.isLeft(found)) return yield* Rest.failure(found.left, "hang up the call")
      if (Callbacks.outcomeOf(found.right.status) !== undefined) return
      const token = yield* applicationToken(config)
      const done = yield* rest.send({
        api: "voice",
        auth: { _tag: "Bearer", token },
        method: "PUT",
        path: `/v1/calls/${encodeURIComponent(providerCallId)}`,
        json: { action: "hangup" },
        schema: Schema.Unknown,
        what: "hang up the call"
      })
      if (Either.isLeft(done) && !(done.left.status < 500 && done.left.status !== 429 && (yield* isOver(config, providerCallId)))) {
        return yield* Rest.failure(done.left, "hang up the call")
      }
    })

  return { place, hangUp, get }
}
