/**
 * Cloudonix's `inbound`: a voice application (`application_name`) holds the numbers (DNIDs) that reach it
 * and one URL for all of them. Binding a number points the application at this server and attaches the
 * number's DNID to it; unbinding detaches the DNID (the application's URL serves the others). Only a
 * DNID that is exactly the number counts as the number's (not a prefix or pattern that matches it).
 */
import type { ProviderInbound, ProviderSync } from "@agentline/telephony-kit/TelephonyProvider"
import { Effect, Either, Schema } from "effect"
import { cloudonixDomain, type CloudonixConfig } from "./Config.js"
import * as Rest from "./Rest.js"

const domainPath = (config: CloudonixConfig) => `/customers/self/domains/${encodeURIComponent(cloudonixDomain(config.domain_id) ?? "")}`

export const make = (rest: Rest.Rest): ProviderInbound<CloudonixConfig> => {
  const configure = (
    { address, config, webhookUrl }: { readonly config: CloudonixConfig; readonly address: string; readonly webhookUrl: string | null }
  ) =>
    Effect.gen(function*() {
      const application = config.application_name
      if (application === undefined || application.trim() === "") {
        return {
          ok: false,
          message: "Cloudonix: set application_name on the telephony configuration (the voice application that receives calls) to bind numbers"
        }
      }
      const appPath = `${domainPath(config)}/applications/${encodeURIComponent(application)}`
      const listed = yield* rest.send({
        apiKey: config.bearer_token,
        method: "GET",
        path: `${domainPath(config)}/dnids`,
        schema: Rest.Dnids,
        what: "list the domain's numbers"
      })
      if (Either.isLeft(listed)) return { ok: false, message: Rest.failure(listed.left, "list the domain's numbers").message }
      const existing = Rest.dnidOf(listed.right, address)
      const ours = existing !== undefined && Rest.applicationName(existing) === application
      if (webhookUrl === null) {
        if (existing === undefined || !ours) {
          return { ok: true, message: `Cloudonix: ${address} is not on the application ${application}; nothing to undo` }
        }
        const removed = yield* rest.send({
          apiKey: config.bearer_token,
          method: "DELETE",
          path: `${domainPath(config)}/dnids/${existing.id}`,
          schema: Schema.Unknown,
          what: "detach the number from the application"
        })
        if (Either.isLeft(removed)) return { ok: false, message: Rest.failure(removed.left, "detach the number from the application").message }
        return { ok: true, message: `Cloudonix: incoming calls to ${address} no longer reach this server` }
      }
      const pointed = yield* rest.send({
        apiKey: config.bearer_token,
        method: "PATCH",
        path: appPath,
        body: { url: webhookUrl, method: "POST" },
        schema: Schema.Unknown,
        what: "point the voice application at this server"
      })
      if (Either.isLeft(pointed)) return { ok: false, message: Rest.failure(pointed.left, "point the voice application at this server").message }
      if (existing !== undefined && ours) {
        if (existing.active === false) {
          return {
            ok: false,
            message: `Cloudonix: ${address} is on the application ${application} but its DNID is inactive; activate it in the Cloudonix cockpit`
          }
        }
        return { ok: true, message: `Cloudonix: incoming calls to ${address} are sent to ${webhookUrl}` }
      }
      if (existing !== undefined) {
        return {
          ok: false,
          message: `Cloudonix: ${address} belongs to the application ${Rest.applicationLabel(existing)}; move it to ${application} in the Cloudonix cockpit`
        }
      }
      const attached = yield* rest.send({
        apiKey: config.bearer_token,
        method: "POST",
        path: `${appPath}/dnids`,
        body: { source: address, prefix: false, expression: false, asteriskCompatible: false },
        schema: Schema.Unknown,
        what: "attach the number to the application"
      })
      if (Either.isLeft(attached)) return { ok: false, message: Rest.failure(attached.left, "attach the number to the application").message }
      return { ok: true, message: `Cloudonix: incoming calls to ${address} are sent to ${webhookUrl}` }
    }).pipe(Effect.catchAll((e) => Effect.succeed<ProviderSync>({ ok: false, message: e.message })))

  return { configure }
}
