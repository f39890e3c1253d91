/** Acme's `inbound`: `PUT /v1/accounts/{account}/numbers/{number}` `{voice_url}` (null: detached). */
import type { ProviderInbound, ProviderSync } from "@agentline/telephony-kit/TelephonyProvider"
import { Effect, Either, Schema } from "effect"
import type { AcmeConfig } from "./Config.js"
import * as Rest from "./Rest.js"

export const make = (rest: Rest.Rest): ProviderInbound<AcmeConfig> => ({
  configure: ({ address, config, webhookUrl }) =>
    Effect.gen(function*() {
      const done = yield* rest.send({
        apiKey: config.api_key,
        method: "PUT",
        path: `/accounts/${encodeURIComponent(config.account_id)}/numbers/${encodeURIComponent(address)}`,
        body: { voice_url: webhookUrl },
        schema: Schema.Unknown,
        what: `configure ${address}`
      })
      if (Either.isLeft(done)) {
        return {
          ok: false,
          message: done.left.status === 404 ? `Acme: the account does not own ${address}` : Rest.failure(done.left, `configure ${address}`).message
        }
      }
      return { ok: true, message: webhookUrl === null ? `Acme: inbound calls to ${address} detached` : `Acme: inbound calls to ${address} go to ${webhookUrl}` }
    }).pipe(
      // The port's contract: report, never fail (the phone-number change is kept either way).
      Effect.catchAll((e) => Effect.succeed<ProviderSync>({ ok: false, message: e.message }))
    )
})
