/** Twilio's `inbound`: a number's `VoiceUrl` (IncomingPhoneNumbers), found by the number and updated. */
import type { ProviderInbound, ProviderSync } from "@agentline/telephony-kit/TelephonyProvider"
import { Effect, Either, Schema } from "effect"
import type { TwilioConfig } from "./Config.js"
import * as Rest from "./Rest.js"

export const make = (rest: Rest.Rest): ProviderInbound<TwilioConfig> => ({
  configure: ({ address, config, webhookUrl }) =>
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
})
