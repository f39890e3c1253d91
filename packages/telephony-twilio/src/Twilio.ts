/**
 * Twilio (Programmable Voice): the adapter, made of its parts —
 *
 * | part | file |
 * |---|---|
 * | configuration: account SID, auth token, answering machine detection | `Config.ts` |
 * | calls: `Calls.json` with our answer URL, every status callback, AMD; hang-up; fetch | `Calls.ts` over `Rest.ts` |
 * | webhooks: `X-Twilio-Signature`, status callbacks and incoming calls (form posts), TwiML answers | `Callbacks.ts`, `Signature.ts`, `Answer.ts` |
 * | media: Twilio Media Streams (JSON, base64 µ-law 8 kHz) | `Media.ts` |
 * | inbound: the number's `VoiceUrl` (IncomingPhoneNumbers) | `Numbers.ts` |
 * | transfers: cold, the live call updated with `<Dial>`; warm, the caller held in a conference the briefed target joins | `Transfer.ts` |
 */
import type { TelephonyProvider } from "@agentline/telephony-kit/TelephonyProvider"
import type { HttpClient } from "@effect/platform"
import { Effect } from "effect"
import * as Callbacks from "./Callbacks.js"
import * as Calls from "./Calls.js"
import { accountId, fields, TwilioConfig } from "./Config.js"
import * as Media from "./Media.js"
import * as Numbers from "./Numbers.js"
import * as Rest from "./Rest.js"
import * as Transfer from "./Transfer.js"

export * as Answer from "./Answer.js"
export * as Callbacks from "./Callbacks.js"
export * from "./Config.js"
export * as Media from "./Media.js"
export * as Signature from "./Signature.js"
export * as Transfer from "./Transfer.js"

export type TwilioProvider = TelephonyProvider<TwilioConfig> & {
  readonly calls: NonNullable<TelephonyProvider<TwilioConfig>["calls"]>
  readonly webhooks: NonNullable<TelephonyProvider<TwilioConfig>["webhooks"]>
}

/**
 * The adapter over the context's `HttpClient`; `apiUrl` overrides `AGENTLINE_TWILIO_API_URL` (tests,
 * regional endpoints).
 */
export const make = (options: { readonly apiUrl?: string | undefined } = {}): Effect.Effect<TwilioProvider, never, HttpClient.HttpClient> =>
  Effect.map(Rest.make(options), (rest) => {
    const calls = Calls.make(rest)
    return {
      name: "twilio",
      displayName: "Twilio",
      configSchema: TwilioConfig,
      fields,
      accountId,
      calls,
      webhooks: { ...Callbacks.webhooks, parseTransferResult: Transfer.parseTransferResult(rest, calls.hangUp) },
      media: Media.media,
      inbound: Numbers.make(rest),
      transfers: { cold: true, warm: true },
      verifyCredentials: Rest.verifyCredentials(rest)
    }
  })
