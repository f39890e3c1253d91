import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { costOf, defaultPrices, mergePrices, PriceTable } from "../../src/session/Costs.js"

describe("Costs", () => {
  it("prices tokens per million, audio per minute, characters per million; a voice falls back to its provider's price", () => {
    const cost = costOf(defaultPrices, {
      llm: { "openai:gpt-4.1-mini": { inputTokens: 15_000, outputTokens: 1_000 } },
      stt: { "deepgram:nova-3": { seconds: 180 } },
      tts: { "elevenlabs:voice-abc": { characters: 2_500 } }
    })
    // The reference's worked example of a 3-minute call: LLM ≈ $0.0076, STT ≈ $0.0144, TTS $0.125.
    expect(cost).toEqual({ llm_cost_usd: 0.0076, stt_cost_usd: 0.0144, tts_cost_usd: 0.125, total_cost_usd: 0.147 })
  })

  it("services without a price count 0 and are named; the offline default costs nothing", () => {
    expect(costOf(defaultPrices, {
      llm: { "openai:some-new-model": { inputTokens: 10, outputTokens: 10 } },
      stt: { local: { seconds: 60 } },
      tts: { local: { characters: 100 } }
    })).toEqual({ llm_cost_usd: 0, stt_cost_usd: 0, tts_cost_usd: 0, total_cost_usd: 0, unpriced: ["llm:openai:some-new-model"] })
  })

  it("an operator's table is merged over the defaults by service; it is decoded strictly", () => {
    const override = Schema.decodeUnknownSync(PriceTable)({ llm: { "openai:gpt-4.1-mini": { input_per_million: 0.2, output_per_million: 0.8 } } })
    const merged = mergePrices(defaultPrices, override)
    expect(merged.llm["openai:gpt-4.1-mini"]).toEqual({ input_per_million: 0.2, output_per_million: 0.8 })
    expect(merged.llm["openai:gpt-4o-mini"]).toEqual(defaultPrices.llm["openai:gpt-4o-mini"])
    expect(merged.stt).toEqual(defaultPrices.stt)
    expect(() => Schema.decodeUnknownSync(PriceTable)({ tts: { local: { per_million_characters: -1 } } })).toThrow()
  })
})
