import type { AudioFormat } from "@agentline/core/audio/AudioFormat"
import { describe, expect, it } from "@effect/vitest"
import { SpeechError, TextToSpeech } from "@agentline/core/voice/Speech"
import { Chunk, Effect, Redacted, Stream } from "effect"
import * as ElevenLabs from "../src/ElevenLabsTextToSpeech.js"
import { startFakeElevenLabs } from "./FakeElevenLabs.js"

const telephone: AudioFormat = { encoding: "mulaw", sampleRate: 8000 }
const sentences = Stream.make("Hello there.", "How can I help?")

describe("ElevenLabs TTS against a fake stream-input WebSocket", () => {
  it.effect("sends the init space, each sentence flushed with a trailing space, the closing empty text; reads audio and alignment", () =>
    Effect.scoped(Effect.gen(function*() {
      const fake = yield* startFakeElevenLabs({ key: "xi" })
      const tts = ElevenLabs.make({ apiKey: Redacted.make("xi"), url: fake.url, voiceId: "voice-1", voiceSettings: { stability: 0.5 } })
      const audio = Chunk.toReadonlyArray(yield* Stream.runCollect(tts.synthesize(telephone, sentences)))
      expect(audio.map((a) => a.audio.data.length)).toEqual(["Hello there. ".length, "How can I help? ".length])
      expect(audio.every((a) => a.audio.format === telephone && a.audio.data.every((b) => b === 0x55))).toBe(true)
      expect(audio[0]!.alignment!.chars.join("")).toBe("Hello there. ")
      expect(audio[0]!.alignment!.durationMs[0]).toBe(50)
      expect(fake.messages).toEqual([
        { text: " ", voice_settings: { stability: 0.5 } },
        { text: "Hello there. ", flush: true },
        { text: "How can I help? ", flush: true },
        { text: "" }
      ])
      const path = new URL(fake.paths[0]!, "ws://x")
      expect(path.pathname).toBe("/v1/text-to-speech/voice-1/stream-input")
      expect(Object.fromEntries(path.searchParams)).toEqual({ model_id: "eleven_flash_v2_5", output_format: "ulaw_8000" })
    })))

  it.effect("a wrong key fails with the handshake's 401, a rate limit with 429", () =>
    Effect.scoped(Effect.gen(function*() {
      const fake = yield* startFakeElevenLabs({ key: "xi" })
      const wrong = ElevenLabs.make({ apiKey: Redacted.make("nope"), url: fake.url, voiceId: "v" })
      const refused = yield* Stream.runDrain(wrong.synthesize(telephone, sentences)).pipe(Effect.flip)
      expect((refused as ElevenLabs.ElevenLabsError).code).toBe(401)
      const limited = yield* startFakeElevenLabs({ key: "xi", rateLimited: true })
      const tts = ElevenLabs.make({ apiKey: Redacted.make("xi"), url: limited.url, voiceId: "v" })
      const error = yield* Stream.runDrain(tts.synthesize(telephone, sentences)).pipe(Effect.flip)
      expect((error as ElevenLabs.ElevenLabsError).code).toBe(429)
    })))

  it.effect("as the TextToSpeech port: a rate limit is a SpeechError with 429", () =>
    Effect.scoped(Effect.gen(function*() {
      const limited = yield* startFakeElevenLabs({ key: "xi", rateLimited: true })
      const error = yield* TextToSpeech.pipe(
        Effect.flatMap((tts) => Stream.runDrain(tts.synthesize(telephone, sentences))),
        Effect.provide(ElevenLabs.layer({ apiKey: Redacted.make("xi"), url: limited.url, voiceId: "v" })),
        Effect.flip
      )
      expect(error).toBeInstanceOf(SpeechError)
      expect([(error as SpeechError).service, (error as SpeechError).code]).toEqual(["elevenlabs", 429])
    })))

  it.effect("a socket dropped mid-speech fails after the audio that arrived", () =>
    Effect.scoped(Effect.gen(function*() {
      const fake = yield* startFakeElevenLabs({ key: "xi", drop: true })
      const tts = ElevenLabs.make({ apiKey: Redacted.make("xi"), url: fake.url, voiceId: "v" })
      let chunks = 0
      const error = yield* tts.synthesize(telephone, sentences).pipe(
        Stream.runForEach(() => Effect.sync(() => chunks++)),
        Effect.flip
      )
      expect(chunks).toBe(1)
      expect((error as ElevenLabs.ElevenLabsError).code).toBe(1006)
    })))

  it.effect("an error message (quota) fails with its text", () =>
    Effect.scoped(Effect.gen(function*() {
      const fake = yield* startFakeElevenLabs({ key: "xi", error: "This request exceeds your quota" })
      const tts = ElevenLabs.make({ apiKey: Redacted.make("xi"), url: fake.url, voiceId: "v" })
      const error = yield* Stream.runDrain(tts.synthesize(telephone, sentences)).pipe(Effect.flip)
      expect((error as ElevenLabs.ElevenLabsError).message).toContain("exceeds your quota")
    })))

  it.effect("a format ElevenLabs cannot produce fails before connecting", () =>
    Effect.gen(function*() {
      const tts = ElevenLabs.make({ apiKey: Redacted.make("xi"), url: "ws://127.0.0.1:9", voiceId: "v" })
      const error = yield* Stream.runDrain(tts.synthesize({ encoding: "l16be", sampleRate: 16000 }, sentences)).pipe(Effect.flip)
      expect((error as ElevenLabs.ElevenLabsError).message).toContain("no ElevenLabs output format")
    }))

  it("output formats and both spellings of the alignment durations", () => {
    expect(ElevenLabs.outputFormat({ encoding: "l16le", sampleRate: 16000 })).toBe("pcm_16000")
    expect(ElevenLabs.outputFormat({ encoding: "alaw", sampleRate: 8000 })).toBe("alaw_8000")
    expect(ElevenLabs.outputFormat({ encoding: "mulaw", sampleRate: 16000 })).toBeUndefined()
    expect(ElevenLabs.toAlignment({ chars: ["a"], charStartTimesMs: [0], charDurationsMs: [7] })?.durationMs).toEqual([7])
    expect(ElevenLabs.toAlignment(null)).toBeUndefined()
  })
})
