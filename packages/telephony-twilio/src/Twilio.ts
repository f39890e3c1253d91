/**
 * Twilio (Programmable Voice): configuration and the calling adapter.
 *
 * - calls: `POST Calls.json` with `Url` (our answer route: TwiML `<Connect><Stream>`), `StatusCallback`
 *   for every progress event, and `MachineDetection=Enable` when `amd_enabled`; hang-up and fetch.
 * - webhooks: `X-Twilio-Signature` over the full public URL; status callbacks and inbound calls are
 *   form posts; answers are TwiML.
 * - media: Twilio Media Streams (JSON, base64 µ-law 8 kHz).
 * - inbound: the number's `VoiceUrl` (IncomingPhoneNumbers).
 *
 * The inbound routing key's account id is the account SID.
 */
import * as ProviderRest from "@agentline/core/telephony/ProviderRest"
import { present, providerConfig, requiredText, secretField } from "@agentline/core/telephony/ProviderConfig"
import {
  type CallStatus,
  type InboundCall,
  type PlaceCall,
  type ProviderField,
  type ProviderSync,
  TelephonyError,
  type TelephonyProvider,
  type WebhookRequest
} from "@agentline/core/telephony/TelephonyProvider"
import { Clock, Effect, Either, Schema } from "effect"
import * as MediaStream from "./MediaStream.js"
import * as Rest from "./Rest.js"
import * as Signature from "./Signature.js"
import * as Statuses from "./Statuses.js"
import * as TwiML from "./TwiML.js"

export const TwilioConfig = providerConfig({
  account_sid: requiredText("account_sid"),
  auth_token: requiredText("auth_token"),
  amd_enabled: Schema.optionalWith(Schema.Boolean, { nullable: true, default: () => false })
})
export type TwilioConfig = typeof TwilioConfig.Type

export const fields: ReadonlyArray<ProviderField> = [
  secretField("account_sid", "Account SID", true),
  secretField("auth_token", "Auth token", true),
  {
    name: "amd_enabled",
    label: "Answering machine detection",
    type: "boolean",
    required: false,
    sensitive: false,
    description: "Ask Twilio to detect answering machines; machine answers end as voicemail"
  }
]

/** Every progress event Twilio can report, so the run's log shows the whole call. */
export const STATUS_EVENTS = ["initiated", "ringing", "answered", "completed"] as const


const refused = (message: string) => new TelephonyError({ provider: "twilio", message, retryable: false })

const header = (request: WebhookRequest, name: string): string | undefined => {
  for (const [key, value] of Object.entries(request.headers)) if (key.toLowerCase() === name) return value
  return undefined
}

export type TwilioProvider = TelephonyProvider<TwilioConfig> & {
  readonly calls: NonNullable<TelephonyProvider<TwilioConfig>["calls"]>
  readonly webhooks: NonNullable<TelephonyProvider<TwilioConfig>["webhooks"]>
}

/** The adapter; `apiUrl` overrides `AGENTLINE_TWILIO_API_URL` (tests, regional endpoints). */
export const make = (options: { readonly apiUrl?: string | undefined } = {}): TwilioProvider => {
  const rest = Rest.make(options)

  const place = (input: PlaceCall<TwilioConfig>) =>
    Effect.gen(function*() {
      if (input.from === undefined) {
        return yield* refused("Twilio needs a caller id: add a phone number of this Twilio account to the configuration")
      }
      const params: Array<readonly [string, string]> = [
        ["To", input.to],
        ["From", input.from],
        ["Url", input.answerUrl],
        ["Method", "POST"],
        ["StatusCallback", input.callbackUrl],
        ["StatusCallbackMethod", "POST"],
        ...STATUS_EVENTS.map((event) => ["StatusCallbackEvent", event] as const)
      ]
      if (input.config.amd_enabled) params.push(["MachineDetection", "Enable"])
      const created = yield* rest.send({
        credentials: input.config,
        method: "POST",
        path: "/Calls.json",
        params,
        schema: Rest.CallResource,
        what: "place the call"
      })
      if (Either.isLeft(created)) return yield* Rest.failure(created.left, "place the call")
      return { providerCallId: created.right.sid }
    })

  const fetchCall = (config: TwilioConfig, providerCallId: string) =>
    rest.send({
      credentials: config,
      method: "GET",
      path: `/Calls/${encodeURIComponent(providerCallId)}.json`,
      schema: Rest.CallResource,
      what: "look the call up"
    })

  /** Transient failures are tried again here: `get` has no error channel, and Unknown means "never re-dial". */
  const get = ({ config, providerCallId }: { readonly config: TwilioConfig; readonly providerCallId: string }) =>
    ProviderRest.lookUpCall(fetchCall(config, providerCallId), (f) => Rest.failure(f, "look the call up"), (call): CallStatus => {
      const outcome = Statuses.outcomeOf(call.status, call.answered_by ?? undefined)
      if (outcome === undefined) return { _tag: "InProgress" }
      const duration = Number(call.duration ?? "0")
      return { _tag: "Ended", outcome, durationSeconds: Number.isFinite(duration) ? duration : 0 }
    })

  /** A call still queued or ringing is canceled, one in progress completed; one already over is left alone. */
  const hangUp = ({ config, providerCallId }: { readonly config: TwilioConfig; readonly providerCallId: string }) =>
    Effect.gen(function*() {
      const found = yield* fetchCall(config, providerCallId)
      if (Either.isLeft(found)) return yield* Rest.failure(found.left, "hang up the call")
      const status = found.right.status
      if (Statuses.outcomeOf(status, undefined) !== undefined) return
      const updated = yield* rest.send({
        credentials: config,
        method: "POST",
        path: `/Calls/${encodeURIComponent(providerCallId)}.json`,
        params: [["Status", status === "in-progress" ? "completed" : "canceled"]],
        schema: Rest.CallResource,
        what: "hang up the call"
      })
      if (Either.isLeft(updated)) return yield* Rest.failure(updated.left, "hang up the call")
    })

  const parseStatus = ({ request }: { readonly request: WebhookRequest }) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const parsed = Statuses.parseStatus(Signature.formParams(request.rawBody), now)
      return parsed._tag === "Events" ? Effect.succeed(parsed.events) : Effect.fail(refused(parsed.reason))
    })

  const parseInbound = ({ request }: { readonly request: WebhookRequest }) =>
    Effect.suspend(() => {
      const params = new Map(Signature.formParams(request.rawBody))
      const accountId = params.get("AccountSid")
      const to = params.get("To") ?? params.get("Called")
      const from = params.get("From") ?? params.get("Caller") ?? ""
      const providerCallId = params.get("CallSid")
      if (accountId === undefined || to === undefined || providerCallId === undefined) {
        return Effect.fail(refused("not a Twilio incoming call: AccountSid, To and CallSid are required"))
      }
      const direction = params.get("Direction")
      if (direction !== undefined && direction !== "inbound") {
        return Effect.fail(refused(`not an incoming call: Direction is ${direction}`))
      }
      return Effect.succeed<InboundCall>({ accountId, to, from, providerCallId })
    })

  const configure = (
    { address, config, webhookUrl }: { readonly config: TwilioConfig; readonly address: string; readonly webhookUrl: string | null }
  ) =>
    Effect.gen(function*() {
      const found = yield* rest.send({
        credentials: config,
        method: "GET",
        path: "/IncomingPhoneNumbers.json",
        params: [["PhoneNumber", address]],
        schema: Rest.IncomingNumbers,
        what: "look the number up"
      })
      if (Either.isLeft(found)) return { ok: false, message: Rest.failure(found.left, "look the number up").message }
      const number = found.right.incoming_phone_numbers.find((n) => n.phone_number === address)
      if (number === undefined) {
        return { ok: false, message: `Twilio: the account has no incoming phone number ${address}` }
      }
      const updated = yield* rest.send({
        credentials: config,
        method: "POST",
        path: `/IncomingPhoneNumbers/${encodeURIComponent(number.sid)}.json`,
        params: [["VoiceUrl", webhookUrl ?? ""], ["VoiceMethod", "POST"]],
        schema: Schema.Struct({ sid: Schema.String }),
        what: "set the number's voice webhook"
      })
      if (Either.isLeft(updated)) return { ok: false, message: Rest.failure(updated.left, "set the number's voice webhook").message }
      return {
        ok: true,
        message: webhookUrl === null
          ? `Twilio: incoming calls to ${address} no longer reach this server`
          : `Twilio: incoming calls to ${address} are sent to ${webhookUrl}`
      }
    }).pipe(Effect.catchAll((e) => Effect.succeed<ProviderSync>({ ok: false, message: e.message })))

  /** One page of one number: the cheapest request that needs the account's credentials. */
  const verifyCredentials = (config: TwilioConfig) =>
    rest.send({
      credentials: config,
      method: "GET",
      path: "/IncomingPhoneNumbers.json",
      params: [["PageSize", "1"]],
      schema: Rest.IncomingNumbers,
      what: "check the credentials"
    }).pipe(
      Effect.map(Either.match({
        onLeft: (failure): ProviderSync => ({ ok: false, message: Rest.failure(failure, "check the credentials").message }),
        onRight: (): ProviderSync => ({ ok: true, message: "Twilio accepts the credentials" })
      })),
      Effect.catchAll((e) => Effect.succeed<ProviderSync>({ ok: false, message: e.message }))
    )

  return {
    name: "twilio",
    displayName: "Twilio",
    verifyCredentials,
    configSchema: TwilioConfig,
    fields,
    accountId: (config) => present(config.account_sid),
    calls: { place, hangUp, get },
    webhooks: {
      verify: ({ config, request }) =>
        Effect.sync(() =>
          Signature.isValid(config.auth_token, header(request, "x-twilio-signature"), request.url, Signature.formParams(request.rawBody))
        ),
      parseStatus,
      parseInbound,
      answer: ({ instruction }) => ({ status: 200, contentType: "text/xml", body: TwiML.answer(instruction) })
    },
    media: MediaStream.media,
    inbound: { configure }
  }
}

/** The adapter the server registers: Twilio's API at `AGENTLINE_TWILIO_API_URL`. */
export const provider: TwilioProvider = make()
