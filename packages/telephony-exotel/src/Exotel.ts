/**
 * Exotel: configuration and the calling adapter.
 *
 * - calls: "Connect Voice AI" — `POST /v1/Accounts/{sid}/Calls/connect.json` dials the callee (`From`)
 *   with an ExoPhone as caller id (`CallerId`) and connects the answered call straight to our media
 *   WebSocket (`StreamUrl`, `StreamType=bidirectional`): no flow, no answer webhook. The call details
 *   API tells how a call went; hang-up: see `Rest.ts`.
 * - webhooks: Exotel signs nothing, so the URLs we give it carry a token (`WebhookAuth.ts`). Status
 *   callbacks (`StatusCallback`, for the `answered` and `terminal` events) are form posts with
 *   `CallSid`, `Status`, `EventType`, `ConversationDuration` (`Callbacks.ts`).
 * - inbound: a number reaches a URL only through an App Bazaar flow, built by hand: its Voicebot
 *   applet's URL is our inbound route (with Basic credentials), which Exotel asks for the WebSocket
 *   URL of each call (it answers `{"url": "wss://..."}`). Exotel has no API that sets an applet's URL,
 *   so `provider_sync` reports `ok: false` with the exact URL to paste. A refused call gets no URL:
 *   Exotel then goes on to the flow's next applet (there is no busy signal to give).
 * - media: the Voicebot protocol (`VoicebotStream.ts`): JSON frames, base64 16-bit PCM at 8 kHz.
 *
 * - transfers: none. Exotel's public API has no request that redirects a call in progress (Voice API
 *   v1 cannot even end one; a Voicebot call goes on to its flow's next applet only when the stream
 *   closes, and that applet is fixed when the flow is built by hand). The adapter declares no
 *   `transfers`: a transfer node on an Exotel call is recorded `failed` with `NO_TRANSFERS` as its cause.
 *
 * The inbound routing key's account id is the account SID. Exotel documents no answering machine
 * detection for these calls: there is none here.
 */
import * as ProviderRest from "@agentline/telephony-kit/ProviderRest"
import { present } from "@agentline/telephony-kit/ProviderConfig"
import {
  type CallInstruction,
  type CallStatus,
  type InboundCall,
  type PlaceCall,
  type ProviderSync,
  TelephonyError,
  type TelephonyProvider,
  type WebhookRequest,
  type WebhookResponse
} from "@agentline/telephony-kit/TelephonyProvider"
import type { HttpClient } from "@effect/platform"
import { Clock, Effect, Either } from "effect"
import * as Callbacks from "./Callbacks.js"
import { accountId, type ExotelConfig, ExotelConfig as ExotelConfigSchema, fields } from "./Config.js"
import * as VoicebotStream from "./Media.js"
import * as Rest from "./Rest.js"
import * as WebhookAuth from "./Signature.js"

export * from "./Config.js"
export * as Callbacks from "./Callbacks.js"
export * as Media from "./Media.js"
export * as Signature from "./Signature.js"

const refused = (message: string) => new TelephonyError({ provider: "exotel", message, retryable: false })


/** Exotel passes at most three custom parameters, as the stream URL's query (256 characters at most). */
export const streamUrl = (url: string, parameters: Readonly<Record<string, string>>): string => {
  const parsed = new URL(url)
  for (const [name, value] of Object.entries(parameters).slice(0, 3)) parsed.searchParams.set(name, value)
  return parsed.toString()
}

/**
 * The answer to the Voicebot applet's request for a stream URL: `{"url": "wss://..."}` to connect the
 * call. Exotel has nothing to say a reason or give a busy signal with, and no way to keep a call open
 * without a stream: every other instruction answers no URL, and the flow goes on to its next applet.
 */
export const answer = (instruction: CallInstruction): WebhookResponse => ({
  status: 200,
  contentType: "application/json",
  body: JSON.stringify(instruction._tag === "ConnectMediaStream" ? { url: streamUrl(instruction.url, instruction.parameters) } : {})
})

/** A request's parameters: the query, then the body's (form or JSON) for names the query lacks. */
export const requestParams = (request: WebhookRequest): Map<string, string> => {
  const params = new Map<string, string>()
  try {
    for (const [k, v] of new URL(request.url).searchParams) if (!params.has(k)) params.set(k, v)
  } catch {
    // An unreadable URL has no parameters.
  }
  for (const [k, v] of Callbacks.paramsOf(new TextDecoder().decode(request.rawBody))) if (!params.has(k)) params.set(k, v)
  return params
}

/** The Voicebot applet's request as an incoming call (unverified: the number's configuration verifies it). */
export const inboundCall = (request: WebhookRequest): Either.Either<InboundCall, string> => {
  const params = requestParams(request)
  const basic = WebhookAuth.basicCredentials(request)
  const accountId = present(basic?.user) ?? present(params.get("AccountSid"))
  const to = present(params.get("CallTo")) ?? present(params.get("To"))
  const from = params.get("CallFrom") ?? params.get("From") ?? ""
  const providerCallId = present(params.get("CallSid"))
  if (accountId === undefined || to === undefined || providerCallId === undefined) {
    return Either.left(
      "not an Exotel call for this server: CallSid, CallTo and the account (the Basic user name of the applet's URL) are required"
    )
  }
  return Either.right({ accountId, to: Callbacks.e164(to), from: from === "" ? from : Callbacks.e164(from), providerCallId })
}

/** Where the flow's Voicebot applet must point for this configuration: what `provider_sync` tells. */
export const inboundSetup = (config: ExotelConfig, address: string, webhookUrl: string | null): ProviderSync =>
  webhookUrl === null
    ? {
      ok: false,
      message: `Exotel has no API to take ${address} off a flow: in App Bazaar, move it to another flow; ` +
        `until then its calls are refused politely by this server`
    }
    : {
      ok: false,
      message: `Exotel has no API to point a number at a URL: in App Bazaar, give ${address} a flow whose Voicebot applet URL is ` +
        `${WebhookAuth.inboundFlowUrl(config, webhookUrl)} (the route ${webhookUrl} with HTTP Basic credentials; ` +
        `one flow serves every number of this configuration)`
    }

export type ExotelProvider = TelephonyProvider<ExotelConfig> & {
  readonly calls: NonNullable<TelephonyProvider<ExotelConfig>["calls"]>
  readonly webhooks: NonNullable<TelephonyProvider<ExotelConfig>["webhooks"]>
}

/** The adapter over the context's `HttpClient`; `apiUrl` overrides `AGENTLINE_EXOTEL_API_URL` and the configured region (tests). */
/** Why an Exotel call cannot be transferred, as the run's log gives it. */
export const NO_TRANSFERS =
  "Exotel cannot transfer a call in progress: its API has no request that redirects a live call to another number or SIP URI"

export const make = (options: { readonly apiUrl?: string | undefined } = {}): Effect.Effect<ExotelProvider, never, HttpClient.HttpClient> =>
  Effect.map(Rest.make(options), (rest): ExotelProvider => {

  const place = (input: PlaceCall<ExotelConfig>) =>
    Effect.gen(function*() {
      if (input.from === undefined) {
        return yield* refused("Exotel needs a caller id: add an ExoPhone of this Exotel account to the configuration")
      }
      if (input.whenAnswered._tag !== "ConnectMediaStream") {
        return yield* refused("Exotel connects an answered call to a media stream, and this server offers none (no media route)")
      }
      const placed = yield* rest.send({
        credentials: input.config,
        method: "POST",
        path: "/Calls/connect.json",
        form: [
          ["From", input.to],
          ["CallerId", input.from],
          ["StreamUrl", streamUrl(input.whenAnswered.url, input.whenAnswered.parameters)],
          ["StreamType", "bidirectional"],
          ["StatusCallback", WebhookAuth.withToken(input.config, input.callbackUrl)],
          ["StatusCallbackEvents[0]", "answered"],
          ["StatusCallbackEvents[1]", "terminal"],
          ["CustomField", `agentline-attempt-${input.attemptId}`]
        ],
        what: "place the call"
      })
      if (Either.isLeft(placed)) return yield* Rest.failure(placed.left, "place the call")
      const sid = Rest.text(Rest.member(Rest.member(placed.right, "Call"), "Sid"))
      if (sid === undefined) return yield* refused("Exotel's answer to place the call had no Call.Sid")
      return { providerCallId: sid }
    })

  const details = (config: ExotelConfig, callSid: string) =>
    rest.send({ credentials: config, method: "GET", path: `/Calls/${encodeURIComponent(callSid)}.json`, what: "look the call up" })

  const statusOf = (body: unknown): CallStatus | undefined => {
    const call = Rest.member(body, "Call")
    const status = Rest.text(Rest.member(call, "Status"))
    if (status === undefined) return undefined
    const talked = Rest.text(Rest.member(Rest.member(call, "Details"), "ConversationDuration")) ?? Rest.text(Rest.member(call, "Duration"))
    return Callbacks.callStatus(status, talked)
  }

  /** Transient failures are tried again here: `get` has no error channel, and Unknown means "never re-dial". */
  const get = ({ config, providerCallId }: { readonly config: ExotelConfig; readonly providerCallId: string }) =>
    ProviderRest.lookUpCall(
      details(config, providerCallId),
      (f) => Rest.failure(f, "look the call up"),
      (found): CallStatus => statusOf(found) ?? { _tag: "Unknown", reason: "Exotel's call details had no Status" }
    )

  /**
   * Exotel's Voice API v1 documents no request that ends a call, so none is sent. A call already over is
   * left alone (the goal is reached); an answered call ends when its media stream closes, which the
   * server does right after asking for the hang-up; a call still ringing cannot be ended: it rings until
   * it is answered (its stream then ends it) or until Exotel's ring time runs out.
   */
  const hangUp = ({ config, providerCallId }: { readonly config: ExotelConfig; readonly providerCallId: string }) =>
    Effect.gen(function*() {
      const found = yield* details(config, providerCallId)
      if (Either.isLeft(found)) return yield* Rest.failure(found.left, "hang up the call")
      const status = Rest.text(Rest.member(Rest.member(found.right, "Call"), "Status"))
      if (statusOf(found.right)?._tag === "Ended" || status === "in-progress") return
      return yield* refused(
        `Exotel's API has no request to end a call that is ${status ?? "not answered yet"}: it rings until answered ` +
          `(its media stream then ends it) or until Exotel's ring time runs out`
      )
    })

  const parseStatus = ({ request }: { readonly request: WebhookRequest }) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const parsed = Callbacks.parseStatus(Callbacks.paramsOf(new TextDecoder().decode(request.rawBody)), now)
      return parsed._tag === "Events" ? Effect.succeed(parsed.events) : Effect.fail(refused(parsed.reason))
    })

  const parseInbound = ({ request }: { readonly request: WebhookRequest }) =>
    Effect.suspend(() => Either.match(inboundCall(request), { onLeft: (reason) => Effect.fail(refused(reason)), onRight: Effect.succeed }))

  return {
    name: "exotel",
    displayName: "Exotel",
    configSchema: ExotelConfigSchema,
    fields,
    accountId,
    calls: { place, hangUp, get },
    // No `transfers`: see `NO_TRANSFERS`.
    noTransfers: NO_TRANSFERS,
    webhooks: {
      verify: ({ config, request }) => Effect.sync(() => WebhookAuth.isAuthentic(config, request)),
      parseStatus,
      parseInbound,
      answer: ({ instruction }) => answer(instruction)
    },
    media: VoicebotStream.media,
    inbound: { configure: ({ address, config, webhookUrl }) => Effect.sync(() => inboundSetup(config, address, webhookUrl)) }
  }
  })
