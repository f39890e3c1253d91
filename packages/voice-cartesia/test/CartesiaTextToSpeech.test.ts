import type { AudioFormat } from "@agentline/core/audio/AudioFormat"
import { describe, expect, it } from "@effect/vitest"
import { SpeechError, TextToSpeech } from "@agentline/core/voice/Speech"
import { Chunk, Effect, Redacted, Schedule, Stream } from "effect"
import * as Cartesia from "../src/CartesiaTextToSpeech.js"
import { startFakeCartesia } from "./FakeCartesia.js"

const telephone: AudioFormat = { encoding: "mulaw", sampleRate: 8000 }
const sentences = Stream.make("Hello there.", "How can I help?")

describe("Cartesia TTS against a fake /tts/websocket", () => {
  it.effect("sends each sentence in one context with continue, closes the context, reads the audio until done", () =>
    Effect.scoped(Effect.gen(function*() {
      const fake = yield* startFakeCartesia({ key: "ck" })
      const tts = Cartesia.make({ apiKey: Redacted.make("ck"), url: fake.url, voiceId: "voice-9" })
      const audio = Chunk.toReadonlyArray(yield* Stream.runCollect(tts.synthesize(telephone, sentences)))
      expect(audio.map((a) => a.audio.data.length)).toEqual(["Hello there. ".length, "How can I help? ".length])
      expect(audio.every((a) => a.audio.data.every((b) => b === 0x33))).toBe(true)
      expect(fake.messages.map((m) => [m.transcript, m.continue])).toEqual([
        ["Hello there. ", true],
        ["How can I help? ", true],
        ["", false]
      ])
      expect(new Set(fake.messages.map((m) => m.context_id)).size).toBe(1)
      expect(fake.messages[0]).toMatchObject({
        model_id: "sonic-2",
        voice: { mode: "id", id: "voice-9" },
        output_format: { container: "raw", encoding: "pcm_mulaw", sample_rate: 8000 }
      })
    })))

  it.live("stopping early (barge-in) cancels the context", () =>
    Effect.scoped(Effect.gen(function*() {
      const fake = yield* startFakeCartesia({ key: "ck" })
      const tts = Cartesia.make({ apiKey: Redacted.make("ck"), url: fake.url, voiceId: "v" })
      const endless = Stream.concat(Stream.make("First sentence."), Stream.never)
      const first = yield* Stream.runCollect(tts.synthesize(telephone, endless).pipe(Stream.take(1)))
      expect(Chunk.size(first)).toBe(1)
      const cancel = yield* Effect.suspend(() => {
        const found = fake.messages.find((m) => m.cancel === true)
        return found === undefined ? Effect.fail("not yet") : Effect.succeed(found)
      }).pipe(Effect.retry(Schedule.spaced("20 millis").pipe(Schedule.upTo("2 seconds"))))
      expect(cancel.context_id).toBe(fake.messages[0].context_id)
    })))

  it.effect("a wrong key fails with 401, a rate limit with 429", () =>
    Effect.scoped(Effect.gen(function*() {
      const fake = yield* startFakeCartesia({ key: "ck" })
      const wrong = yield* Stream.runDrain(Cartesia.make({ apiKey: Redacted.make("x"), url: fake.url, voiceId: "v" }).synthesize(telephone, sentences)).pipe(Effect.flip)
      expect((wrong as Cartesia.CartesiaError).code).toBe(401)
      const limited = yield* startFakeCartesia({ key: "ck", rateLimited: true })
      const error = yield* Stream.runDrain(Cartesia.make({ apiKey: Redacted.make("ck"), url: limited.url, voiceId: "v" }).synthesize(telephone, sentences)).pipe(Effect.flip)
      expect((error as Cartesia.CartesiaError).code).toBe(429)
    })))

  it.effect("as the TextToSpeech port: audio as SpeechAudio, a wrong key a SpeechError with 401", () =>
    Effect.scoped(Effect.gen(function*() {
      const fake = yield* startFakeCartesia({ key: "ck" })
      const audio = yield* TextToSpeech.pipe(
        Effect.flatMap((tts) => Stream.runCollect(tts.synthesize(telephone, sentences))),
        Effect.provide(Cartesia.layer({ apiKey: Redacted.make("ck"), url: fake.url, voiceId: "v" }))
      )
      expect(Chunk.size(audio)).toBe(2)
      const error = yield* TextToSpeech.pipe(
        Effect.flatMap((tts) => Stream.runDrain(tts.synthesize(telephone, sentences))),
        Effect.provide(Cartesia.layer({ apiKey: Redacted.make("bad"), url: fake.url, voiceId: "v" })),
        Effect.flip
      )
      expect([(error as SpeechError).service, (error as SpeechError).code]).toEqual(["cartesia", 401])
    })))

  it.effect("a socket dropped mid-speech fails after the audio that arrived", () =>
    Effect.scoped(Effect.gen(function*() {
      const fake = yield* startFakeCartesia({ key: "ck", drop: true })
      const tts = Cartesia.make({ apiKey: Redacted.make("ck"), url: fake.url, voiceId: "v" })
      let chunks = 0
      const error = yield* tts.synthesize(telephone, sentences).pipe(Stream.runForEach(() => Effect.sync(() => chunks++)), Effect.flip)
      expect(chunks).toBe(1)
      expect((error as Cartesia.CartesiaError).code).toBe(1006)
    })))

  it.effect("an error message fails with its title, message and status", () =>
    Effect.scoped(Effect.gen(function*() {
      const fake = yield* startFakeCartesia({ key: "ck", error: "voice not found" })
      const error = yield* Stream.runDrain(Cartesia.make({ apiKey: Redacted.make("ck"), url: fake.url, voiceId: "v" }).synthesize(telephone, sentences)).pipe(Effect.flip)
      expect((error as Cartesia.CartesiaError).message).toBe("Invalid request: voice not found")
      expect((error as Cartesia.CartesiaError).code).toBe(400)
    })))

  it("output formats", () => {
    expect(Cartesia.outputFormat({ encoding: "l16le", sampleRate: 24000 })).toEqual({ container: "raw", encoding: "pcm_s16le", sample_rate: 24000 })
    expect(Cartesia.outputFormat({ encoding: "alaw", sampleRate: 8000 })?.encoding).toBe("pcm_alaw")
    expect(Cartesia.outputFormat({ encoding: "l16be", sampleRate: 8000 })).toBeUndefined()
    expect(Cartesia.outputFormat({ encoding: "mulaw", sampleRate: 11025 })).toBeUndefined()
  })
})
