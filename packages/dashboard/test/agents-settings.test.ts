import { describe, expect, it } from "@effect/vitest"
import { joinConfigurations, sameSetting, splitConfigurations, variableRows, variablesObject } from "../src/pages/agents/agentSettings.js"

describe("template variables", () => {
  it("round-trips, keeping non-string values typed", () => {
    const original = { first_name: "Ann", retries: 3, vip: true }
    const rows = variableRows(original)
    expect(rows).toEqual([{ name: "first_name", value: "Ann" }, { name: "retries", value: "3" }, { name: "vip", value: "true" }])
    expect(variablesObject(rows, original)).toEqual({ value: original })
    // A typed value edited into text becomes text.
    expect(variablesObject([{ name: "retries", value: "many" }], original)).toEqual({ value: { retries: "many" } })
  })

  it("refuses empty and repeated names", () => {
    expect(variablesObject([{ name: " ", value: "x" }, { name: "a", value: "1" }, { name: "a", value: "2" }], null)).toEqual({
      errors: ["Variable 1 needs a name", "Variable a is listed twice"]
    })
  })
})

describe("configurations", () => {
  it("splits the known fields from the rest and joins them back unchanged", () => {
    const config = {
      max_call_duration: 600,
      voicemail_detection: { enabled: true, long_speech_timeout: 6 },
      dictionary: "Agentline, SIP",
      model_overrides: { llm: { model: "x" } }
    }
    const { rest, values } = splitConfigurations(config)
    expect(values).toEqual({
      max_call_duration: "600",
      max_user_idle_timeout: "",
      smart_turn_stop_secs: "",
      "voicemail_detection.enabled": true,
      "model_overrides.llm": "",
      "model_overrides.stt": "",
      "model_overrides.tts": ""
    })
    expect(JSON.parse(rest)).toEqual({ voicemail_detection: { long_speech_timeout: 6 }, dictionary: "Agentline, SIP", model_overrides: { llm: { model: "x" } } })
    expect(joinConfigurations(values, rest)).toEqual({ value: config })
    // The input object is not changed by splitting.
    expect(config.voicemail_detection).toEqual({ enabled: true, long_speech_timeout: 6 })
  })

  it("unsets emptied fields and reports what does not parse", () => {
    expect(joinConfigurations({ max_call_duration: "", "voicemail_detection.enabled": false }, "")).toEqual({ value: {} })
    expect(joinConfigurations({ max_call_duration: "abc" }, "[1]")).toEqual({
      errors: { rest: "Other settings must be a JSON object", max_call_duration: expect.stringMatching(/number/) }
    })
    expect(splitConfigurations(null)).toEqual({
      values: {
        max_call_duration: "",
        max_user_idle_timeout: "",
        smart_turn_stop_secs: "",
        "voicemail_detection.enabled": false,
        "model_overrides.llm": "",
        "model_overrides.stt": "",
        "model_overrides.tts": ""
      },
      rest: ""
    })
  })

  it("edits the agent's own services (model_overrides) as fields, keeping its stored credentials in the JSON", () => {
    const config = { model_overrides: { llm: "openai:gpt-4.1", tts: "elevenlabs:voice-1", credentials: { openai: "uuid-1" } } }
    const { rest, values } = splitConfigurations(config)
    expect([values["model_overrides.llm"], values["model_overrides.stt"], values["model_overrides.tts"]]).toEqual(["openai:gpt-4.1", "", "elevenlabs:voice-1"])
    expect(JSON.parse(rest)).toEqual({ model_overrides: { credentials: { openai: "uuid-1" } } })
    expect(joinConfigurations(values, rest)).toEqual({ value: config })
    // A voice chosen, the model emptied (back to the server's default), values trimmed.
    const edited = joinConfigurations({ ...values, "model_overrides.llm": " ", "model_overrides.stt": " deepgram:nova-3 " }, rest)
    expect(edited).toEqual({ value: { model_overrides: { stt: "deepgram:nova-3", tts: "elevenlabs:voice-1", credentials: { openai: "uuid-1" } } } })
    // Nothing chosen and no credentials: no model_overrides at all.
    expect(joinConfigurations({ "model_overrides.llm": "", "model_overrides.tts": "" }, "")).toEqual({ value: {} })
  })
})

describe("unchanged settings", () => {
  it("compares stored and edited parts regardless of key order, an empty part counting as unset", () => {
    const stored = { max_call_duration: 600, voicemail_detection: { long_speech_timeout: 6, enabled: true } }
    const { rest, values } = splitConfigurations(stored)
    const joined = joinConfigurations(values, rest)
    if (!("value" in joined)) throw new Error("must join")
    expect(sameSetting(stored, joined.value)).toBe(true)
    expect(sameSetting(null, {})).toBe(true)
    expect(sameSetting(stored, { ...joined.value, max_call_duration: 601 })).toBe(false)
    expect(sameSetting({ a: [1, 2] }, { a: [2, 1] })).toBe(false)
  })
})
