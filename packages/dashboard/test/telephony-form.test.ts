import { describe, expect, it } from "@effect/vitest"
import { fields as simulatorFields } from "@agentline/telephony-simulator/Config"
import { fields as twilioFields } from "@agentline/telephony-twilio/Config"
import { configIssues, initialValues, inputKind, type ProviderMeta, toConfig } from "../src/pages/telephony/providerForm.js"

// The simulator's real field list, as the metadata endpoint shows it (without `options`, which it does not send).
const simulator: ProviderMeta = {
  provider: "simulator",
  display_name: "Simulator",
  fields: simulatorFields.map(({ options: _options, ...field }) => field)
}

const twilioLike: ProviderMeta = {
  provider: "twilio",
  display_name: "Twilio",
  fields: [
    { name: "account_sid", label: "Account SID", type: "text", required: true, sensitive: false },
    { name: "auth_token", label: "Auth token", type: "password", required: true, sensitive: true },
    { name: "region", label: "Region", type: "select", required: false, sensitive: false },
    { name: "webhook_base", label: "Webhook base", type: "readonly", required: false, sensitive: false }
  ]
}

describe("provider form from metadata", () => {
  it("gives each metadata type its input", () => {
    expect(simulator.fields.map((f) => [f.name, inputKind(f)])).toEqual([
      ["default_outcome", "text"],
      ["rules", "json"],
      ["ring_seconds", "number"],
      ["talk_seconds", "number"],
      ["failure_rate", "number"],
      ["seed", "number"],
      ["place_call_latency_ms", "number"],
      ["account_id", "text"],
      ["webhook_secret", "password"],
      ["callee_lines", "lines"]
    ])
    // A sensitive field is a password input whatever its declared type, but an account identifier (a
    // sensitive field declared as text, such as Twilio's Account SID) is typed visibly.
    expect(inputKind({ name: "k", label: "K", type: "number", required: false, sensitive: true })).toBe("password")
    expect(inputKind({ name: "k", label: "K", type: "textarea", required: false, sensitive: true })).toBe("password")
    expect(inputKind({ name: "k", label: "K", type: "text", required: false, sensitive: true })).toBe("text")
  })

  it("Twilio's Account SID is typed visibly and its auth token hidden; a masked SID sent back keeps the stored one", () => {
    const twilio: ProviderMeta = { provider: "twilio", display_name: "Twilio", fields: twilioFields }
    expect(twilio.fields.map((f) => [f.name, inputKind(f)])).toEqual([
      ["account_sid", "text"],
      ["auth_token", "password"],
      ["amd_enabled", "checkbox"]
    ])
    const stored = { account_sid: "**********************1234", auth_token: "****************cdef", amd_enabled: true }
    expect(toConfig(twilio, initialValues(twilio, stored))).toEqual({ config: { ...stored, provider: "twilio" } })
  })

  it("turns values into a config: numbers, lists and JSON parsed, empty optionals left out", () => {
    const values = {
      ...initialValues(simulator),
      ring_seconds: "0.2",
      talk_seconds: "1",
      rules: "[{\"match\": \"prefix\", \"pattern\": \"+1\", \"outcomes\": [\"busy\"]}]",
      callee_lines: "Hello\n\n I'm here \n"
    }
    expect(toConfig(simulator, values)).toEqual({
      config: {
        provider: "simulator",
        ring_seconds: 0.2,
        talk_seconds: 1,
        rules: [{ match: "prefix", pattern: "+1", outcomes: ["busy"] }],
        callee_lines: ["Hello", "I'm here"]
      }
    })
  })

  it("says which fields are wrong before sending", () => {
    const result = toConfig(twilioLike, { ...initialValues(twilioLike), account_sid: "AC1" })
    expect(result).toEqual({ errors: { auth_token: "Auth token is required" } })
    expect(toConfig(simulator, { ...initialValues(simulator), seed: "x", rules: "[" })).toEqual({
      errors: { seed: "Seed must be a number", rules: expect.stringMatching(/^Rules is not valid JSON/) }
    })
  })

  it("sends a masked secret back as shown, so the server keeps it; a new one replaces it", () => {
    const stored = { account_sid: "AC1", auth_token: "****abcd", webhook_base: "https://x" }
    const values = initialValues(twilioLike, stored)
    expect(values.auth_token).toBe("****abcd")
    expect(toConfig(twilioLike, values)).toEqual({ config: { provider: "twilio", account_sid: "AC1", auth_token: "****abcd" } })
    expect(toConfig(twilioLike, { ...values, auth_token: "new-secret" })).toEqual({
      config: { provider: "twilio", account_sid: "AC1", auth_token: "new-secret" }
    })
  })

  it("round-trips a stored configuration's values", () => {
    const stored = { ring_seconds: 2, callee_lines: ["a", "b"], rules: [{ match: "exact", pattern: "+1", outcomes: ["busy"] }] }
    const values = initialValues(simulator, stored)
    expect(values.callee_lines).toBe("a\nb")
    const result = toConfig(simulator, values)
    expect(result).toEqual({ config: { provider: "simulator", ...stored } })
  })

  it("puts a 422's items on the fields they name", () => {
    expect(configIssues([
      { loc: ["body", "config", "ring_seconds"], msg: "ring_seconds must be a number from 0 to 600" },
      { loc: ["body", "config", "rules", 0, "pattern"], msg: "pattern must not be empty" },
      { loc: ["body", "name"], msg: "name must be 1 to 64 characters" },
      { loc: ["body", "config"], msg: "Expected an object" }
    ])).toEqual({
      ring_seconds: ["ring_seconds must be a number from 0 to 600"],
      rules: ["pattern must not be empty"],
      name: ["name must be 1 to 64 characters"],
      "": ["Expected an object"]
    })
  })
})
