import type { TelephonyProvider } from "@agentline/telephony-kit/TelephonyProvider"
import { TelephonyRegistry } from "@agentline/core/telephony/TelephonyRegistry"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import * as NodeOs from "node:os"
import * as Server from "../src/Server.js"
import { ServerConfig } from "../src/ServerConfig.js"

const registryOf = (telephonyProviders: ReadonlyArray<TelephonyProvider>) =>
  TelephonyRegistry.pipe(
    Effect.provide(Server.InfrastructureLive.pipe(Layer.provide(ServerConfig.layer({
      port: 0, host: "", dataDir: NodeOs.tmpdir(), publicUrl: "http://x", version: "t",
      secretKey: Redacted.make("k"), publicLinkTtlSeconds: 60, maxUploadBytes: 10, uploadUrlTtlSeconds: 60,
      telephonyProviders
    }))))
  )

const configOnly = (name: string, displayName: string): TelephonyProvider<{ readonly token: string }> => ({
  name,
  displayName,
  configSchema: Schema.Struct({ token: Schema.String }),
  fields: [{ name: "token", label: "Token", type: "password", required: true, sensitive: true }],
  accountId: () => undefined
})

describe("telephony registry of the server", () => {
  it.scoped("holds the eight first-party providers, the simulator and any third-party adapter given in the configuration", () =>
    Effect.gen(function*() {
      const registry = yield* registryOf([configOnly("acme", "Acme Voice")])
      expect(registry.all.map((p) => p.name)).toEqual(
        ["acme", "ari", "cloudonix", "exotel", "plivo", "simulator", "telnyx", "twilio", "vobiz", "vonage"]
      )
      expect(Option.getOrThrow(registry.get("acme")).displayName).toBe("Acme Voice")
    }))

  it.scoped("an application's adapter replaces the built-in provider of the same name (it used to throw)", () =>
    Effect.gen(function*() {
      const registry = yield* registryOf([configOnly("twilio", "Our own Twilio")])
      expect(registry.all.map((p) => p.name)).toEqual(
        ["ari", "cloudonix", "exotel", "plivo", "simulator", "telnyx", "twilio", "vobiz", "vonage"]
      )
      expect(Option.getOrThrow(registry.get("twilio")).displayName).toBe("Our own Twilio")
    }))

  it("the last of several providers with one name wins", () => {
    const registry = TelephonyRegistry.make([configOnly("a", "first"), configOnly("b", "b"), configOnly("a", "second")])
    expect(registry.all.map((p) => p.displayName)).toEqual(["second", "b"])
  })
})
