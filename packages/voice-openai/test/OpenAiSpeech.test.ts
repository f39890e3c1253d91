import type { AudioFormat, AudioFrame } from "@agentline/core/telephony/Media"
import { decodeToPcm16, encodePcm16 } from "@agentline/voice-local/Audio"
import { OpenAiClient } from "@effect/ai-openai"
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Redacted, Stream } from "effect"
import * as OpenAiSpeech from "../src/OpenAiSpeech.js"
import { type Answer, startFakeOpenAi } from "../src/testing/FakeOpenAi.js"

const telephone: AudioFormat = { encoding: "mulaw", sampleRate: 8000 }
/** 20 ms of OpenAI's pcm (24 kHz) at a constant level, base64. */
const pcm20ms = Buffer.from(encodePcm16("l16le", new Int16Array(480).fill(1000))).toString("base64")

const withClient = <A, E>(answers: Array<Answer>, use: (fake: { received: Array<any> }) => Effect.Effect<A, E, OpenAiClient.OpenAiClient>) =>
  Effect.scoped(Effect.gen(function*() {
    const fake = yield* startFakeOpenAi(answers)
    const client = OpenAiClient.layer({ apiKey: Redacted.make("sk-test"), apiUrl: fake.url }).pipe(Layer.provide(FetchHttpClient.layer))
    return yield* use(fake).pipe(Effect.provide(client))
  }))

describe("OpenAI speech against the fake", () => {
  it.effect("asks for pcm over SSE per sentence and converts 24 kHz PCM to the call's µ-law as it arrives", () =>
    withClient([
      { _tag: "Stream", done: false, chunks: [{ type: "speech.audio.delta", audio: pcm20ms }, { type: "speech.audio.delta", audio: pcm20ms }, { type: "speech.audio.done", usage: { input_tokens: 5, output_tokens: 40, total_tokens: 45 } }] },
      { _tag: "Stream", done: false, chunks: [{ type: "speech.audio.delta", audio: pcm20ms }, { type: "speech.audio.done" }] }
    ], (fake) =>
      Effect.gen(function*() {
        const speech = yield* OpenAiSpeech.makeSpeech({ voice: "alloy" })
        const audio = Chunk.toReadonlyArray(yield* Stream.runCollect(speech.synthesize(telephone, Stream.make("Hello there.", "Bye."))))
        const bytes = audio.reduce((n, a) => n + a.audio.data.length, 0)
        expect(Math.abs(bytes - 3 * 160)).toBeLessThanOrEqual(1)
        expect(audio.every((a) => a.audio.format === telephone)).toBe(true)
        const level = decodeToPcm16("mulaw", audio[1]!.audio.data)
        expect(Math.abs(level[10]! - 1000)).toBeLessThan(40)
        expect(fake.received.map((r) => [r.path, r.body.input])).toEqual([
          ["/v1/audio/speech", "Hello there."],
          ["/v1/audio/speech", "Bye."]
        ])
        expect(fake.received[0].body).toMatchObject({ model: "gpt-4o-mini-tts", voice: "alloy", response_format: "pcm", stream_format: "sse" })
      })))

  it.effect("429 on speech fails with the status", () =>
    withClient([{ _tag: "Status", status: 429, message: "Rate limit", type: "requests" }], () =>
      Effect.gen(function*() {
        const speech = yield* OpenAiSpeech.makeSpeech({ voice: "alloy" })
        const error = yield* Stream.runDrain(speech.synthesize(telephone, Stream.make("Hi."))).pipe(Effect.flip)
        expect(error._tag === "HttpResponseError" && error.response.status).toBe(429)
      })))

  it.effect("transcribes an utterance sent as a WAV upload, reading deltas as interim and done as final", () =>
    withClient([{
      _tag: "Stream",
      done: false,
      chunks: [
        { type: "transcript.text.delta", delta: "Book " },
        { type: "transcript.text.delta", delta: "Tuesday." },
        { type: "transcript.text.done", text: "Book Tuesday.", usage: { type: "tokens", input_tokens: 20, output_tokens: 3, total_tokens: 23 } }
      ]
    }], (fake) =>
      Effect.gen(function*() {
        const stt = yield* OpenAiSpeech.makeTranscription({ language: "en" })
        const second: ReadonlyArray<AudioFrame> = Array.from({ length: 50 }, () => ({ format: telephone, data: new Uint8Array(160).fill(0xff) }))
        const events = Chunk.toReadonlyArray(yield* Stream.runCollect(stt.transcribeUtterance(Stream.fromIterable(second))))
        expect(events).toEqual([
          { _tag: "Interim", text: "Book " },
          { _tag: "Interim", text: "Tuesday." },
          { _tag: "Final", text: "Book Tuesday.", endOfSpeech: true, start: 0, duration: 1 },
          { _tag: "Metadata", audioSeconds: 1 }
        ])
        const request = fake.received[0]
        expect(request.path).toBe("/v1/audio/transcriptions")
        expect(request.contentType).toMatch(/^multipart\/form-data; boundary=/)
        const body = (request.body as Buffer).toString("latin1")
        expect(body).toContain("filename=\"utterance.wav\"")
        expect(body).toContain("RIFF")
        expect(body).toMatch(/name="model"\r\n\r\ngpt-4o-mini-transcribe/)
        expect(body).toMatch(/name="stream"\r\n\r\ntrue/)
        expect(body).toMatch(/name="language"\r\n\r\nen/)
      })))

  it.effect("speech whose stream closes before speech.audio.done fails (not a silently short sentence)", () =>
    withClient([{ _tag: "Stream", done: false, chunks: [{ type: "speech.audio.delta", audio: pcm20ms }] }], () =>
      Effect.gen(function*() {
        const speech = yield* OpenAiSpeech.makeSpeech({ voice: "alloy" })
        const error = yield* Stream.runDrain(speech.synthesize(telephone, Stream.make("Hi."))).pipe(Effect.flip)
        expect(error._tag).toBe("MalformedOutput")
      })))

  it.effect("a transcription cut off before done fails instead of returning no text", () =>
    withClient([{ _tag: "Drop", chunks: [{ type: "transcript.text.delta", delta: "Book" }] }], () =>
      Effect.gen(function*() {
        const stt = yield* OpenAiSpeech.makeTranscription()
        const frame: AudioFrame = { format: telephone, data: new Uint8Array(160).fill(0xff) }
        const result = yield* Stream.runCollect(stt.transcribeUtterance(Stream.make(frame))).pipe(Effect.either)
        expect(result._tag).toBe("Left")
      })))
})
