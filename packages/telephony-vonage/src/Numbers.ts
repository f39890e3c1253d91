/**
 * Vonage's `inbound`: an application has one answer URL for all the numbers linked to it. Binding a
 * number points the configuration's application at this server (Applications API v2, signed callbacks
 * on) and links the number to it (Numbers API); unbinding unlinks the number only.
 */
import type { ProviderInbound, ProviderSync } from "@agentline/telephony-kit/TelephonyProvider"
import { Effect, Either, Schema } from "effect"
import { endpointOf } from "./Calls.js"
import type { VonageConfig } from "./Config.js"
import * as Rest from "./Rest.js"

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

const basic = (config: VonageConfig): Rest.Auth => ({ _tag: "Basic", user: config.api_key, password: config.api_secret })

export const make = (rest: Rest.Rest): ProviderInbound<VonageConfig> => {
  const configure = (
    { address, config, webhookUrl }: { readonly config: VonageConfig; readonly address: string; readonly webhookUrl: string | null }
  ) =>
    Effect.gen(function*() {
      const number = endpointOf(address)
      if (number?.type !== "phone") return { ok: false, message: `Vonage: ${address} is not a phone number; link it to the application by hand` }
      const msisdn = number.number!
      const listed = yield* rest.send({
        api: "numbers",
        auth: basic(config),
        method: "GET",
        path: `/account/numbers?pattern=${encodeURIComponent(msisdn)}&search_pattern=0`,
        schema: Rest.OwnedNumbers,
        what: "find the number"
      })
      if (Either.isLeft(listed)) return { ok: false, message: Rest.failure(listed.left, "find the number").message }
      const owned = listed.right.numbers.find((n) => n.msisdn === msisdn)
      if (owned === undefined) return { ok: false, message: `Vonage: ${address} is not a number of this Vonage account` }
      const link = (appId: string, what: string) =>
        rest.send({
          api: "numbers",
          auth: basic(config),
          method: "POST",
          path: "/number/update",
          form: { country: owned.country, msisdn, app_id: appId },
          schema: Schema.Unknown,
          what
        })
      if (webhookUrl === null) {
        // The application's answer URL serves its other numbers: only this number is unlinked.
        if (owned.app_id !== config.application_id) {
          return { ok: true, message: `Vonage: ${address} is not linked to the application; nothing to undo` }
        }
        const unlinked = yield* link("", "unlink the number from the application")
        if (Either.isLeft(unlinked)) return { ok: false, message: Rest.failure(unlinked.left, "unlink the number from the application").message }
        return { ok: true, message: `Vonage: incoming calls to ${address} no longer reach this server` }
      }
      const appPath = `/v2/applications/${encodeURIComponent(config.application_id)}`
      const application = yield* rest.send({ api: "voice", auth: basic(config), method: "GET", path: appPath, schema: Rest.Application, what: "read the application" })
      if (Either.isLeft(application)) return { ok: false, message: Rest.failure(application.left, "read the application").message }
      const pointed = pointApplication(application.right, webhookUrl)
      if (pointed !== undefined) {
        const written = yield* rest.send({ api: "voice", auth: basic(config), method: "PUT", path: appPath, json: pointed, schema: Schema.Unknown, what: "point the application at this server" })
        if (Either.isLeft(written)) return { ok: false, message: Rest.failure(written.left, "point the application at this server").message }
      }
      // A number answers one application: binding it here is the intent, so it moves (and says so).
      const previous = owned.app_id == null || owned.app_id === "" || owned.app_id === config.application_id ? undefined : owned.app_id
      if (owned.app_id !== config.application_id) {
        const linked = yield* link(config.application_id, "link the number to the application")
        if (Either.isLeft(linked)) return { ok: false, message: Rest.failure(linked.left, "link the number to the application").message }
      }
      return {
        ok: true,
        message: `Vonage: incoming calls to ${address} are sent to ${webhookUrl}${previous === undefined ? "" : ` (the number left the application ${previous})`}`
      }
    }).pipe(Effect.catchAll((e) => Effect.succeed<ProviderSync>({ ok: false, message: e.message })))

  return { configure }
}

/**
 * The application (as the Applications API returned it) with its voice answer URL at `webhookUrl`
 * (POST) and signed callbacks on, as the body of the PUT that replaces it; undefined when it is so
 * already. The event URL is left as it is: events of outbound calls go to each call's own `event_url`,
 * and this server settles incoming calls by looking them up when their media stream ends.
 */
export const pointApplication = (application: Readonly<Record<string, unknown>>, webhookUrl: string): Record<string, unknown> | undefined => {
  const { _links, id, ...rest } = application
  void _links
  void id
  const capabilities = isRecord(rest.capabilities) ? rest.capabilities : {}
  const voice = isRecord(capabilities.voice) ? capabilities.voice : {}
  const webhooks = isRecord(voice.webhooks) ? voice.webhooks : {}
  const current = isRecord(webhooks.answer_url) ? webhooks.answer_url : {}
  if (current.address === webhookUrl && current.http_method === "POST" && voice.signed_callbacks === true) return undefined
  return {
    ...rest,
    capabilities: {
      ...capabilities,
      voice: { ...voice, signed_callbacks: true, webhooks: { ...webhooks, answer_url: { address: webhookUrl, http_method: "POST" } } }
    }
  }
}
