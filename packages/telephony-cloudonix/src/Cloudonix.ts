/**
 * Cloudonix: the adapter, made of its parts. Cloudonix speaks Twilio's dialect (CXML is TwiML, media
 * streams are Twilio Media Streams) with a REST API of its own:
 *
 * | part | file |
 * |---|---|
 * | configuration: API key, domain, voice application | `Config.ts` |
 * | calls: `POST /calls/{domain}/application` with a CXML redirect to our answer route; sessions | `Calls.ts` over `Rest.ts` |
 * | webhooks: `x-cx-apikey`, session notifications and voice application requests (JSON), CXML answers | `Callbacks.ts`, `Requests.ts`, `Signature.ts`, `Answer.ts` |
 * | media: Twilio Media Streams, Twilio's codec | `@agentline/telephony-twilio` |
 * | inbound: the voice application's URL and the number's DNID | `Numbers.ts` |
 * | transfers (cold): the session handed a `<Dial>` of the target, its result from the dial's `action` | `Transfer.ts` |
 *
 * There is no answering-machine detection: Cloudonix documents none that this adapter could use.
 */
import { TelephonyError, type TelephonyProvider } from "@agentline/telephony-kit/TelephonyProvider"
import { Twilio } from "@agentline/telephony-twilio"
import type { HttpClient } from "@effect/platform"
import { Clock, Effect } from "effect"
import * as Callbacks from "./Callbacks.js"
import * as Calls from "./Calls.js"
import { accountId, CloudonixConfig, fields } from "./Config.js"
import * as Numbers from "./Numbers.js"
import * as Rest from "./Rest.js"
import * as Transfer from "./Transfer.js"

export * from "./Config.js"
export * as Answer from "./Answer.js"
export * as Callbacks from "./Callbacks.js"
export * as Requests from "./Requests.js"
export * as Signature from "./Signature.js"
export * as Transfer from "./Transfer.js"

export type CloudonixProvider = TelephonyProvider<CloudonixConfig> & {
  readonly calls: NonNullable<TelephonyProvider<CloudonixConfig>["calls"]>
  readonly webhooks: NonNullable<TelephonyProvider<CloudonixConfig>["webhooks"]>
}

/**
 * The adapter over the context's `HttpClient`; `apiUrl` overrides `AGENTLINE_CLOUDONIX_API_URL` (tests,
 * private deployments).
 */
export const make = (options: { readonly apiUrl?: string | undefined } = {}): Effect.Effect<CloudonixProvider, never, HttpClient.HttpClient> =>
  Effect.map(Rest.make(options), (rest) => ({
    name: "cloudonix",
    displayName: "Cloudonix",
    configSchema: CloudonixConfig,
    fields,
    accountId,
    calls: { ...Calls.make(rest), transfer: Transfer.transfer(rest) },
    transfers: { cold: true, warm: false },
    webhooks: {
      ...Callbacks.webhooks,
      parseTransferResult: ({ request }) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const result = Transfer.parseResultRequest(new TextDecoder().decode(request.rawBody), request.url, now)
          return typeof result === "string" ? Effect.fail(new TelephonyError({ provider: "cloudonix", message: result, retryable: false })) : Effect.succeed(result)
        }),
      transferAnswer: () => Transfer.resultAnswer()
    },
    media: Twilio.Media.media,
    inbound: Numbers.make(rest)
  }))
