import type { AudioFormat, AudioFrame } from "@agentline/core/audio/AudioFormat"
import { decodeToPcm16, encodePcm16 } from "@agentline/core/audio/Pcm"
import { OpenAiClient } from "@effect/ai-openai"
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Redacted, Stream } from "effect"
import * as OpenAiSpeech from "../src/OpenAiSpeech.js"
import { type Answer, startFakeOpenAi } from "../src/testing/FakeOpenAi.js"
import { SpeechToText } from "@agentline/core/voice/Speech"

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

  /** µ-law frames: `n` of a 300 Hz tone (voice to the energy detector) or of silence. */
  const toneFrames = (n: number): ReadonlyArray<AudioFrame> =>
    Array.from({ length: n }, (_, f) => ({
      format: telephone,
      data: encodePcm16("mulaw", Int16Array.from({ length: 160 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 300 * (f * 160 + i)) / 8000))))
    }))
  const silenceFrames = (n: number): ReadonlyArray<AudioFrame> => Array.from({ length: n }, () => ({ format: telephone, data: new Uint8Array(160).fill(0xff) }))
  const done = (text: string): Answer => ({ _tag: "Stream", done: false, chunks: [{ type: "transcript.text.done", text }] })

  it.effect("findUtterances: each utterance once its silence is heard, with 200 ms of pre-roll; one left open is given at the end", () =>
    Effect.gen(function*() {
      const audio = [...silenceFrames(25), ...toneFrames(40), ...silenceFrames(30), ...toneFrames(20), ...silenceFrames(5)]
      const found = Chunk.toReadonlyArray(yield* Stream.runCollect(OpenAiSpeech.findUtterances(Stream.fromIterable(audio))))
      expect(found.map((f) => f._tag)).toEqual(["Started", "Utterance", "Started", "Utterance"])
      const [started, first, , second] = found as any
      expect(started.atMs).toBe(500)
      // 200 ms before the voice (10 frames), the 800 ms of voice, then the 500 ms of silence that ended it.
      expect(first).toMatchObject({ startMs: 300, endMs: 1300 })
      expect(first.frames.length).toBe(10 + 40 + 25)
      // The second is still open when the audio ends: given with what was heard.
      expect(second.endMs).toBe(2400)
      expect(second.frames.length).toBeGreaterThanOrEqual(20 + 5)
    }))

  // Live clock: the retry waits 200 ms of real time for the fake server.
  it.live("the transcription port: one WAV request per utterance, finals in the audio's order with their times, retried after a 429", () =>
    Effect.scoped(Effect.gen(function*() {
      // The utterances are sent at once (up to three requests in flight): the fake answers by the WAV's
      // length (the first utterance is the longer one), and refuses the first request it gets.
      let requests = 0
      const fake = yield* startFakeOpenAi([], (request): Answer => {
        if (requests++ === 0) return { _tag: "Status", status: 429, message: "Rate limit", type: "requests" }
        return done((request.body as Buffer).length > 11_500 ? "Hello there." : "Book Tuesday.")
      })
      const client = OpenAiClient.layer({ apiKey: Redacted.make("sk-test"), apiUrl: fake.url }).pipe(Layer.provide(FetchHttpClient.layer))
      const stt = yield* Effect.provide(SpeechToText, OpenAiSpeech.transcriptionLayer({ model: "gpt-4o-transcribe" }).pipe(Layer.provide(client)))
      const audio = [...silenceFrames(10), ...toneFrames(40), ...silenceFrames(30), ...toneFrames(30), ...silenceFrames(30)]
      const events = Chunk.toReadonlyArray(yield* Stream.runCollect(stt.transcribe(telephone, Stream.fromIterable(audio))))
      // Voice at 200 ms for 800 ms, and at 1,600 ms for 600 ms; each with 200 ms of pre-roll.
      expect(events.filter((e) => e._tag === "Final").map((e: any) => [e.text, e.start, e.duration])).toEqual([
        ["Hello there.", 0, 1],
        ["Book Tuesday.", 1.4, 0.8]
      ])
      expect(events.map((e) => e._tag)).toEqual([
        "SpeechStarted", "Final", "UtteranceEnd", "Metadata",
        "SpeechStarted", "Final", "UtteranceEnd", "Metadata"
      ])
      // Usage: each utterance's audio as sent (and billed): the length of the WAV of its request.
      const wavSeconds = (body: Buffer) => {
        const riff = body.indexOf("RIFF")
        const data = body.indexOf("data", riff + 12)
        return body.readUInt32LE(data + 4) / body.readUInt16LE(riff + 32) / body.readUInt32LE(riff + 24)
      }
      const sent = [...new Set(fake.received.map((r) => wavSeconds(r.body as Buffer)))].sort()
      expect(events.flatMap((e) => (e._tag === "Metadata" ? [e.audioSeconds] : [])).sort()).toEqual(sent)
      expect(sent.length).toBe(2)
      // Two utterances, one retried: three requests, each a WAV with the chosen model.
      expect(fake.received.map((r) => r.path)).toEqual(["/v1/audio/transcriptions", "/v1/audio/transcriptions", "/v1/audio/transcriptions"])
      expect(fake.received.every((r) => /name="model"\r\n\r\ngpt-4o-transcribe/.test((r.body as Buffer).toString("latin1")))).toBe(true)
    })))

  it.live("the transcription port fails with a SpeechError when the service keeps refusing", () =>
    withClient(Array.from({ length: 3 }, (): Answer => ({ _tag: "Status", status: 500, message: "down", type: "server_error" })), () =>
      Effect.gen(function*() {
        const stt = yield* Effect.provide(SpeechToText, OpenAiSpeech.transcriptionLayer())
        const error = yield* Stream.runDrain(stt.transcribe(telephone, Stream.fromIterable([...toneFrames(20), ...silenceFrames(30)]))).pipe(Effect.flip)
        expect(error).toMatchObject({ _tag: "SpeechError", service: "openai", code: 500 })
      })))
})
