import { TelephonyRegistry } from "@agentline/core/telephony/TelephonyProvider"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import * as Server from "../src/Server.js"
import { ServerConfig } from "../src/ServerConfig.js"
import * as NodeOs from "node:os"

describe("telephony registry of the server", () => {
  it.scoped("holds the eight first-party providers, the simulator and any third-party adapter given in the configuration", () =>
    Effect.gen(function*() {
      const acme = {
        name: "acme",
        displayName: "Acme Voice",
        configSchema: Schema.Struct({ token: Schema.String }),
        fields: [{ name: "token", label: "Token", type: "password" as const, required: true, sensitive: true }],
        accountId: () => undefined,
        placeCall: () => Effect.succeed({ providerCallId: "acme-1" }),
        hangup: () => Effect.void,
        getCall: () => Effect.succeed({ _tag: "Unknown" as const, reason: "test" }),
        parseCallback: () => Effect.succeed([]),
        verifySignature: () => Effect.succeed(true),
        configureInbound: () => Effect.succeed({ ok: true, message: "ok" }),
        checkOwnership: () => Effect.succeed(undefined)
      }
      const registry = yield* TelephonyRegistry.pipe(
        Effect.provide(Server.InfrastructureLive.pipe(Layer.provide(ServerConfig.layer({
          port: 0, host: "", dataDir: NodeOs.tmpdir(), publicUrl: "http://x", version: "t",
          secretKey: Redacted.make("k"), publicLinkTtlSeconds: 60, maxUploadBytes: 10, uploadUrlTtlSeconds: 60,
          telephonyProviders: [acme]
        }))))
      )
      expect(registry.all.map((p) => p.name)).toEqual(
        ["acme", "ari", "cloudonix", "exotel", "plivo", "simulator", "telnyx", "twilio", "vobiz", "vonage"]
      )
      expect(Option.getOrThrow(registry.get("acme")).displayName).toBe("Acme Voice")
    }))
})
