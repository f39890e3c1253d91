/**
 * `provider_sync` for Plivo-compatible carriers. A number does not carry a webhook: it is linked to an
 * Application whose `answer_url` all its numbers share. Binding a number therefore
 *
 * 1. takes the configuration's `application_id`, or finds (else creates) the application named
 *    `Agentline` in the account;
 * 2. points the application's answer URL at us, with `account_id` in its query: Plivo's inbound
 *    request names no account, and the inbound route needs one to find the number's configuration
 *    (the URL is signed by Plivo together with everything else);
 * 3. links the number to the application (Plivo `POST Number/{n}/ {app_id}`, Vobiz
 *    `POST numbers/{+n}/application {application_id}`); a number the account does not own is a 404.
 *
 * Unbinding unlinks the number (Plivo: `POST Number/{n}/` without `app_id` gives it the account's
 * default number application; Vobiz: `DELETE numbers/{+n}/application`) and leaves the application
 * alone: its answer URL serves the account's other numbers.
 */
import { present } from "@agentline/telephony-kit/ProviderConfig"
import type { ProviderInbound } from "@agentline/telephony-kit/TelephonyProvider"
import { Effect, Schema } from "effect"
import { wireAddress } from "./Calls.js"
import type { PlivoCompatibleConfig } from "./Dialect.js"
import type { Rest } from "./Rest.js"

export const APPLICATION_NAME = "Agentline"

const Applications = Schema.Struct({
  objects: Schema.optionalWith(Schema.Array(Schema.Struct({ app_id: Schema.String, app_name: Schema.optional(Schema.NullOr(Schema.String)) })), {
    default: () => []
  }),
  meta: Schema.optional(Schema.Struct({ next: Schema.optional(Schema.NullOr(Schema.String)) }))
})
const Created = Schema.Struct({ app_id: Schema.String })

/** The answer URL of an application: `webhookUrl` with the account id in its query. */
export const answerUrlFor = (webhookUrl: string, accountId: string): string =>
  `${webhookUrl}${webhookUrl.includes("?") ? "&" : "?"}account_id=${encodeURIComponent(accountId)}`

const PAGE = 20
const PAGES = 10

export const make = (rest: Rest): ProviderInbound<PlivoCompatibleConfig> => {
  const { dialect } = rest
  const ok = (status: number) => status >= 200 && status < 300

  const findOrCreateApplication = (config: PlivoCompatibleConfig, answerUrl: string) =>
    Effect.gen(function*() {
      for (let page = 0; page < PAGES; page++) {
        const listed = yield* rest.send(config, {
          method: "GET",
          path: `Application/?limit=${PAGE}&offset=${page * PAGE}`,
          what: "list applications"
        })
        if (!ok(listed.status)) return yield* rest.refused("list applications", listed)
        const { meta, objects } = yield* rest.body(Applications, listed, "the applications")
        const found = objects.find((a) => a.app_name === APPLICATION_NAME)
        if (found !== undefined) return found.app_id
        if (objects.length < PAGE || meta?.next == null) break
      }
      const created = yield* rest.send(config, {
        method: "POST",
        path: "Application/",
        what: "create an application",
        body: { app_name: APPLICATION_NAME, answer_url: answerUrl, answer_method: "POST" }
      })
      if (!ok(created.status)) return yield* rest.refused("create an application", created)
      return (yield* rest.body(Created, created, "the new application")).app_id
    })

  const link = (config: PlivoCompatibleConfig, address: string, appId: string) =>
    dialect.numberLink === "plivo"
      ? rest.send(config, { method: "POST", path: `Number/${encodeURIComponent(wireAddress(address))}/`, what: "link the number", body: { app_id: appId } })
      : rest.send(config, {
        method: "POST",
        path: `numbers/${encodeURIComponent(address)}/application`,
        what: "link the number",
        body: { application_id: appId }
      })

  const unlink = (config: PlivoCompatibleConfig, address: string) =>
    dialect.numberLink === "plivo"
      ? rest.send(config, { method: "POST", path: `Number/${encodeURIComponent(wireAddress(address))}/`, what: "unlink the number", body: {} })
      : rest.send(config, { method: "DELETE", path: `numbers/${encodeURIComponent(address)}/application`, what: "unlink the number" })

  const configure: ProviderInbound<PlivoCompatibleConfig>["configure"] = ({ address, config, webhookUrl }) =>
    Effect.gen(function*() {
      if (webhookUrl === null) {
        const unlinked = yield* unlink(config, address)
        if (unlinked.status === 404) return { ok: false, message: `${dialect.displayName}: the account does not own ${address}` }
        if (!ok(unlinked.status)) return yield* rest.refused(`unlink ${address} from its application`, unlinked)
        return { ok: true, message: `${dialect.displayName}: inbound calls to ${address} no longer come to Agentline` }
      }
      const answerUrl = answerUrlFor(webhookUrl, config.auth_id)
      // An empty application id is "not set": Agentline then uses (or creates) its own application.
      const appId = present(config.application_id) ?? (yield* findOrCreateApplication(config, answerUrl))
      const updated = yield* rest.send(config, {
        method: "POST",
        path: `Application/${encodeURIComponent(appId)}/`,
        what: "update the application",
        body: { answer_url: answerUrl, answer_method: "POST" }
      })
      if (updated.status === 404) return { ok: false, message: `${dialect.displayName}: the account has no application ${appId}` }
      if (!ok(updated.status)) return yield* rest.refused(`update application ${appId}`, updated)
      const linked = yield* link(config, address, appId)
      if (linked.status === 404) return { ok: false, message: `${dialect.displayName}: the account does not own ${address}` }
      if (!ok(linked.status)) return yield* rest.refused(`link ${address} to application ${appId}`, linked)
      return { ok: true, message: `${dialect.displayName}: inbound calls to ${address} go to Agentline (application ${appId})` }
    }).pipe(
      // The port's contract: report, never fail (the phone-number change is kept either way).
      Effect.catchAll((e) => Effect.succeed({ ok: false, message: e.message }))
    )

  return { configure }
}
