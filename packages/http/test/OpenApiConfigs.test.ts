/**
 * Defect 9.8 (config part): the OpenAPI document describes the telephony `config` union — every
 * provider of the registry the server was built with, its fields, which are required and which are
 * sensitive. It used to say only `{provider: string, ...unknown}`.
 */
import type { TelephonyProvider } from "@agentline/telephony-kit/TelephonyProvider"
import { TelephonyRegistry } from "@agentline/core/telephony/TelephonyRegistry"
import { FetchHttpClient, OpenApi } from "@effect/platform"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { AgentlineApi } from "@agentline/api/Api"
import { withProviderConfigs } from "../src/telephony/OpenApiConfigs.js"
import { firstPartyProviders as made } from "../src/telephony/Providers.js"
import { call, TestApp } from "./Harness.js"

const firstPartyProviders = Effect.runSync(made.pipe(Effect.provide(FetchHttpClient.layer)))

const member = (spec: any, provider: string) => spec.components.schemas[`TelephonyProviderConfig.${provider}`]

const requestConfig = (spec: any, path: string, method: string) =>
  spec.paths[path][method].requestBody.content["application/json"].schema.properties.config

layer(TestApp("sqlite"), { timeout: "60 seconds" })("OpenAPI document of the server", (it) => {
  it.effect("describes the config union of its registry: each provider's fields, required and sensitive ones", () =>
    Effect.gen(function*() {
      const spec = (yield* call("GET", "/api/v1/openapi.json")).body
      const union = spec.components.schemas.TelephonyProviderConfig
      expect(union.discriminator.propertyName).toBe("provider")
      expect(Object.keys(union.discriminator.mapping).sort()).toEqual(
        ["ari", "cloudonix", "exotel", "plivo", "simulator", "telnyx", "twilio", "vobiz", "vonage"]
      )
      expect(union.oneOf).toHaveLength(9)
      for (const [path, method] of [["/api/v1/organizations/telephony-configs", "post"], ["/api/v1/organizations/telephony-configs/{config_id}", "put"]]) {
        expect(requestConfig(spec, path!, method!)).toEqual({ $ref: "#/components/schemas/TelephonyProviderConfig" })
      }

      const twilio = member(spec, "twilio")
      expect(twilio.required).toEqual(["provider", "account_sid", "auth_token"])
      expect(twilio.properties.provider).toEqual({ type: "string", enum: ["twilio"] })
      expect(twilio.properties.auth_token).toMatchObject({ type: "string", format: "password", "x-sensitive": true })
      expect(twilio.properties.amd_enabled.anyOf).toContainEqual({ type: "boolean" })
      expect(twilio.properties.amd_enabled["x-sensitive"]).toBeUndefined()
      expect(member(spec, "exotel").properties.api_base_url.enum).toEqual(["https://api.exotel.com", "https://api.in.exotel.com"])
      expect(member(spec, "simulator").properties.webhook_secret["x-sensitive"]).toBe(true)
      for (const provider of firstPartyProviders) {
        const described = member(spec, provider.name)
        expect(Object.keys(described.properties)).toEqual(["provider", ...provider.fields.map((f) => f.name)])
        const sensitive = Object.entries<any>(described.properties).filter(([, p]) => p["x-sensitive"] === true).map(([k]) => k)
        expect(sensitive).toEqual(provider.fields.filter((f) => f.sensitive).map((f) => f.name))
      }
    }))
})

describe("withProviderConfigs", () => {
  const acme: TelephonyProvider<{ readonly api_key: string }> = {
    name: "twilio",
    displayName: "Twilio through Acme",
    configSchema: Schema.Struct({ api_key: Schema.String }),
    fields: [{ name: "api_key", label: "API key", type: "password", required: true, sensitive: true }],
    accountId: () => undefined
  }

  it("follows the registry: a replaced provider is described by its replacement", () => {
    const spec: any = OpenApi.fromApi(withProviderConfigs(AgentlineApi, TelephonyRegistry.make([...firstPartyProviders, acme])))
    expect(Object.keys(spec.components.schemas.TelephonyProviderConfig.discriminator.mapping)).toHaveLength(8)
    expect(member(spec, "twilio")).toMatchObject({ title: "Twilio through Acme", required: ["provider", "api_key"] })
    expect(Object.keys(member(spec, "twilio").properties)).toEqual(["provider", "api_key"])
  })

  it("keeps the api's own transform and applies after it", () => {
    const marked = AgentlineApi.annotate(OpenApi.Transform, (spec) => ({ ...spec, "x-marked": true }))
    const spec: any = OpenApi.fromApi(withProviderConfigs(marked, TelephonyRegistry.make([acme])))
    expect(spec["x-marked"]).toBe(true)
    expect(member(spec, "twilio")).toBeDefined()
  })
})
