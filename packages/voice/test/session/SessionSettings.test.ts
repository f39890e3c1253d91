import { describe, expect, it } from "@effect/vitest"
import { hasOverrides, modelOverrides } from "../../src/session/ServiceOverrides.js"
import {
  DEFAULT_OPT_OUT_PHRASES,
  DEFAULT_VOICEMAIL_PROMPT,
  optOutIn,
  optOutPhrases,
  saysVoicemail,
  sessionSettings,
  voicemailDetection
} from "../../src/session/SessionSettings.js"

describe("voicemail_detection", () => {
  it("is off unless enabled is true", () => {
    expect(sessionSettings(null).voicemail).toBeUndefined()
    expect(voicemailDetection(undefined)).toBeUndefined()
    expect(voicemailDetection({})).toBeUndefined()
    expect(voicemailDetection({ enabled: "true" })).toBeUndefined()
    expect(voicemailDetection({ enabled: false, long_speech_timeout: 3 })).toBeUndefined()
  })

  it("takes the reference's keys and defaults", () => {
    expect(voicemailDetection({ enabled: true })).toEqual({ longSpeechMillis: 8000, useLanguageModel: true, systemPrompt: DEFAULT_VOICEMAIL_PROMPT })
    expect(voicemailDetection({ enabled: true, use_workflow_llm: false, long_speech_timeout: 2.5, system_prompt: "  Decide.  " }))
      .toEqual({ longSpeechMillis: 2500, useLanguageModel: false, systemPrompt: "Decide." })
    // Nulls and bad values are unset, as in the reference.
    expect(voicemailDetection({ enabled: true, long_speech_timeout: -1, system_prompt: null, use_workflow_llm: null }))
      .toEqual({ longSpeechMillis: 8000, useLanguageModel: true, systemPrompt: DEFAULT_VOICEMAIL_PROMPT })
    expect(sessionSettings({ voicemail_detection: { enabled: true, long_speech_timeout: 4 } }).voicemail?.longSpeechMillis).toBe(4000)
  })

  it.each([
    ["voicemail", true],
    ["Voicemail.", true],
    ["This is an answering machine", true],
    ["human", false],
    ["Human.", false],
    ["human, not a machine", false],
    ["", false],
    ["I am not sure", false]
  ])("the model's answer %j says voicemail: %s", (answer, expected) => {
    expect(saysVoicemail(answer)).toBe(expected)
  })
})

describe("model_overrides", () => {
  it("keeps non-blank strings for llm, stt and tts; anything else is unset", () => {
    expect(sessionSettings(null).overrides).toEqual({})
    expect(modelOverrides({ llm: " openai:gpt-4.1 ", stt: "deepgram:nova-3", tts: "local" }))
      .toEqual({ llm: "openai:gpt-4.1", stt: "deepgram:nova-3", tts: "local" })
    expect(modelOverrides({ llm: "", stt: null, tts: 3, realtime: "openai:gpt-realtime" })).toEqual({})
    expect(modelOverrides(["openai:gpt-4.1"])).toEqual({})
    expect(modelOverrides("openai:gpt-4.1")).toEqual({})
    expect(hasOverrides(modelOverrides({ tts: "local" }))).toBe(true)
    expect(hasOverrides({})).toBe(false)
  })

  it("credentials: vendor (trimmed, lower case) → credential uuid; blank or non-string entries and non-objects are dropped", () => {
    expect(modelOverrides({ credentials: { " OpenAI ": " uuid-1 ", deepgram: "", cartesia: 3, elevenlabs: "uuid-2" } }))
      .toEqual({ credentials: { openai: "uuid-1", elevenlabs: "uuid-2" } })
    expect(modelOverrides({ credentials: ["uuid-1"] })).toEqual({})
    expect(modelOverrides({ credentials: { openai: "" } })).toEqual({})
    expect(hasOverrides(modelOverrides({ credentials: { openai: "uuid-1" } }))).toBe(true)
  })
})

describe("do_not_call_detection", () => {
  it("is on by default with the default phrases; off when enabled is false; own phrases replace them", () => {
    expect(sessionSettings(null).optOutPhrases).toEqual(DEFAULT_OPT_OUT_PHRASES)
    expect(optOutPhrases({ enabled: false })).toEqual([])
    expect(optOutPhrases({ phrases: ["Unsubscribe!", "", 3] })).toEqual(["unsubscribe"])
  })

  it.each([
    ["Please do not call me again.", "do not call"],
    ["DON'T CALL me", "don't call"],
    ["Don’t call this number", "don't call"],
    ["Can you take me off your list?", "take me off your list"],
    ["stop   calling, thanks", "stop calling"],
    ["I do not callously ignore people", undefined],
    ["Yes, I am interested.", undefined]
  ])("%j → %j", (text, phrase) => {
    expect(optOutIn(text, DEFAULT_OPT_OUT_PHRASES)).toBe(phrase)
  })
})
