/**
 * Number setup (`provider_sync`) on Telnyx. A number's inbound calls go to the Call Control Application
 * it is assigned to (`connection_id` on the number), and the application has ONE webhook URL
 * (`webhook_event_url`) for all its numbers. Binding a number therefore assigns it to the
 * configuration's application and points the application's webhook at this server; unbinding takes
 * the number off the application (`connection_id: null`) and leaves the application's webhook alone
 * (clearing it would cut the application's other numbers off).
 *
 *   GET   /v2/phone_numbers?filter[phone_number]=+1...         find the number
 *   PATCH /v2/phone_numbers/{id}                 {connection_id}  assign it to the application (null: take it off)
 *   GET   /v2/call_control_applications/{id}                     its name and webhook
 *   PATCH /v2/call_control_applications/{id}     {application_name, webhook_event_url}
 *                                                 (Telnyx wants the name even on a partial update)
 */
import type { ProviderSync } from "@agentline/telephony-kit/TelephonyProvider"
import { Effect, Either, Schema } from "effect"
import type { TelnyxConfig } from "./Config.js"
import * as Rest from "./Rest.js"

const warn = (message: string): ProviderSync => ({ ok: false, message: message.startsWith("Telnyx") ? message : `Telnyx: ${message}` })

export const configure = (rest: Rest.Rest) =>
(
  { address, config, webhookUrl }: { readonly config: TelnyxConfig; readonly address: string; readonly webhookUrl: string | null }
): Effect.Effect<ProviderSync> =>
  Effect.gen(function*() {
    const applicationId = config.connection_id
    if (applicationId === undefined || applicationId === "") {
      return warn("the configuration has no connection_id (Call Control Application id), so its numbers cannot be pointed at this server")
    }
    const found = yield* rest.send({
      apiKey: config.api_key,
      method: "GET",
      path: "/phone_numbers",
      query: { "filter[phone_number]": address },
      schema: Schema.Array(Rest.PhoneNumber),
      what: "look the number up"
    })
    if (Either.isLeft(found)) return warn(Rest.failure(found.left, "look the number up").message)
    const number = found.right.find((n) => n.phone_number === address)
    if (number === undefined) return warn(`the account has no phone number ${address}`)

    if (webhookUrl === null) {
      // Only this number leaves the application; the webhook its other numbers share stays as it is.
      if (number.connection_id !== applicationId) {
        return { ok: true, message: `Telnyx: ${address} is not on Call Control Application ${applicationId}; nothing to change` }
      }
      const detached = yield* rest.send({
        apiKey: config.api_key,
        method: "PATCH",
        path: `/phone_numbers/${encodeURIComponent(number.id)}`,
        body: { connection_id: null },
        schema: Rest.PhoneNumber,
        what: "take the number off the Call Control Application"
      })
      if (Either.isLeft(detached)) return warn(Rest.failure(detached.left, "take the number off the Call Control Application").message)
      return { ok: true, message: `Telnyx: calls to ${address} no longer reach this server (the number left Call Control Application ${applicationId})` }
    }
    if (number.connection_id !== applicationId) {
      const assigned = yield* rest.send({
        apiKey: config.api_key,
        method: "PATCH",
        path: `/phone_numbers/${encodeURIComponent(number.id)}`,
        body: { connection_id: applicationId },
        schema: Rest.PhoneNumber,
        what: "assign the number to the Call Control Application"
      })
      if (Either.isLeft(assigned)) return warn(Rest.failure(assigned.left, "assign the number to the Call Control Application").message)
    }
    const application = yield* rest.send({
      apiKey: config.api_key,
      method: "GET",
      path: `/call_control_applications/${encodeURIComponent(applicationId)}`,
      schema: Rest.CallControlApplication,
      what: "read the Call Control Application"
    })
    if (Either.isLeft(application)) return warn(Rest.failure(application.left, "read the Call Control Application").message)
    const { application_name, webhook_event_url } = application.right
    if (webhook_event_url !== webhookUrl) {
      const updated = yield* rest.send({
        apiKey: config.api_key,
        method: "PATCH",
        path: `/call_control_applications/${encodeURIComponent(applicationId)}`,
        body: { application_name, webhook_event_url: webhookUrl },
        schema: Rest.CallControlApplication,
        what: "set the Call Control Application's webhook"
      })
      if (Either.isLeft(updated)) return warn(Rest.failure(updated.left, "set the Call Control Application's webhook").message)
    }
    const replaced = webhook_event_url != null && webhook_event_url !== "" && webhook_event_url !== webhookUrl
      ? ` (it was ${webhook_event_url})`
      : ""
    return {
      ok: true,
      message: `Telnyx: calls to ${address} go to Call Control Application "${application_name}", ` +
        `whose webhook for all its numbers is ${webhookUrl}${replaced}`
    }
  }).pipe(Effect.catchAll((e) => Effect.succeed(warn(e.message))))
