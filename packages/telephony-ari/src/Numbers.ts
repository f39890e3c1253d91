/**
 * ARI's `inbound`: Asterisk has no per-number webhook, its dialplan sends calls to `Stasis(<app>)`.
 * Binding a number checks that Asterisk knows the application and says what the dialplan needs.
 */
import type { ProviderInbound, ProviderSync } from "@agentline/telephony-kit/TelephonyProvider"
import { Effect, Either } from "effect"
import type { AriConfig } from "./Config.js"
import * as AriRest from "./Rest.js"

export const make = (send: AriRest.Rest["send"]): ProviderInbound<AriConfig> => {
  /**
   * Asterisk has no per-number webhook: its dialplan sends calls to `Stasis(<app>)`. Binding a number
   * checks that Asterisk knows the application (it does while this server holds its events
   * WebSocket) and says what the dialplan needs; unbinding changes nothing there.
   */
  const configure: ProviderInbound<AriConfig>["configure"] = ({ address, config, webhookUrl }) =>
    Effect.gen(function*() {
      if (webhookUrl === null) {
        return { ok: true, message: `nothing to clear on Asterisk: its dialplan decides where ${address} goes` } satisfies ProviderSync
      }
      const found = yield* send({ config, method: "GET", path: `/applications/${encodeURIComponent(config.app_name)}`, what: "look the application up" })
      if (Either.isLeft(found)) {
        return {
          ok: false,
          message: found.left.status === 404
            ? `Asterisk does not know the Stasis application ${config.app_name} yet (it is registered while this server holds its events WebSocket)`
            : AriRest.failure(found.left, "look the application up").message
        } satisfies ProviderSync
      }
      return {
        ok: true,
        message: `Asterisk hears the Stasis application ${config.app_name}: its dialplan must send ${address} to Stasis(${config.app_name})`
      } satisfies ProviderSync
    }).pipe(Effect.catchAll((e) => Effect.succeed({ ok: false, message: e.message } satisfies ProviderSync)))

  return { configure }
}
