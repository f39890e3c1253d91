/**
 * `GET /user/configurations/user/validate`: what keeps the server's voice services from working, as the
 * dashboard shows it. The answer comes from the start, not from storage: SQLite only.
 */
import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import * as VoiceServices from "../src/voice/VoiceServices.js"
import { call, seedOrganization, TestApp } from "./Harness.js"

/** The voice services an operator would get from these variables. */
const voiceServices = (env: Record<string, string>) =>
  Layer.provide(VoiceServices.layerConfig, Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

layer(TestApp("sqlite", { voiceServices: voiceServices({}) }), { timeout: "60 seconds" })("configuration status without a language model", (it) => {
  it.effect("says there is no language model and what to set, to any signed-in user; 401 without one", () =>
    Effect.gen(function*() {
      const org = yield* seedOrganization()
      const status = yield* call("GET", "/api/v1/user/configurations/user/validate", { apiKey: org.apiKey })
      expect(status.status).toBe(200)
      expect(status.body.status.map((s: { model: string }) => s.model)).toEqual(["llm"])
      expect(status.body.status[0].message).toContain("AGENTLINE_LLM is not set")
      // The reference's parameter is taken (and bounded as there).
      expect((yield* call("GET", "/api/v1/user/configurations/user/validate?validity_ttl_seconds=60", { apiKey: org.apiKey })).status).toBe(200)
      const bad = yield* call("GET", "/api/v1/user/configurations/user/validate?validity_ttl_seconds=100000", { apiKey: org.apiKey })
      expect(bad.status).toBe(422)
      expect((yield* call("GET", "/api/v1/user/configurations/user/validate")).status).toBe(401)
    }))
})

layer(
  TestApp("sqlite", { voiceServices: voiceServices({ AGENTLINE_LLM: "openai:llama3.1:8b", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" }) }),
  { timeout: "60 seconds" }
)("configuration status with a language model", (it) => {
  it.effect("nothing is wrong: an empty status", () =>
    Effect.gen(function*() {
      const org = yield* seedOrganization()
      const status = yield* call("GET", "/api/v1/user/configurations/user/validate", { apiKey: org.apiKey })
      expect(status).toEqual({ status: 200, body: { status: [] } })
    }))
})
