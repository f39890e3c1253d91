/**
 * `OutboundRouting` over the stored telephony configurations: the configuration a call goes through
 * (the one named, or the organization's default outbound), opened (credentials decrypted), with its
 * calls bound to its credentials, this server's URLs and a fresh media token per attempt, its
 * connection opened first where the provider keeps one, and its caller ids.
 */
import { Effect, Layer, Option } from "effect"
import { SecretBox } from "../crypto/SecretBox.js"
import { MediaTokens } from "../media/MediaTokens.js"
import { PhoneNumbersRepo } from "../phone-numbers/PhoneNumbersRepo.js"
import { PublicUrls } from "../PublicUrls.js"
import { NoOutboundRoute } from "../telephony/Errors.js"
import { bindCalls, OutboundRouting } from "../telephony/OutboundRouting.js"
import { openConfiguration } from "../telephony/TelephonyConfigs.js"
import { TelephonyConfigsRepo } from "../telephony/TelephonyConfigsRepo.js"
import { TelephonyRegistry } from "../telephony/TelephonyRegistry.js"
import { ProviderConnections } from "./ProviderConnections.js"

export const layer = Layer.effect(
  OutboundRouting,
  Effect.gen(function*() {
    const repo = yield* TelephonyConfigsRepo
    const open = openConfiguration(yield* TelephonyRegistry, yield* SecretBox)
    const numbers = yield* PhoneNumbersRepo
    const urls = yield* PublicUrls
    const tokens = yield* MediaTokens
    const connections = yield* ProviderConnections

    return OutboundRouting.of({
      resolve: (organizationId, configurationId) =>
        Effect.gen(function*() {
          const stored = configurationId === null
            ? yield* repo.findDefault(organizationId)
            : yield* repo.find(organizationId, configurationId)
          if (Option.isNone(stored)) {
            return yield* new NoOutboundRoute({ configurationId })
          }
          const { config, provider } = yield* open(stored.value)
          const callers = yield* numbers.callerIds(stored.value.id)
          return {
            configurationId: stored.value.id,
            configurationName: stored.value.name,
            provider,
            config,
            calls: bindCalls(provider, config, urls, connections.connected(stored.value, provider, config), tokens.issuerFor(provider.name)),
            defaultCallerId: callers.defaultCallerId,
            callerIds: callers.active
          }
        })
    })
  })
)
