import type { AudioFormat, AudioFrame } from "@agentline/core/audio/AudioFormat"
import { describe, expect, it } from "@effect/vitest"
import { SpeechError, SpeechToText } from "@agentline/core/voice/Speech"
import { Chunk, Effect, Fiber, Redacted, Stream, TestClock } from "effect"
import * as Deepgram from "../src/DeepgramSpeechToText.js"
import { startFakeDeepgram } from "./FakeDeepgram.js"

const format: AudioFormat = { encoding: "mulaw", sampleRate: 8000 }
/** One second of 20 ms µ-law frames. */
const second: ReadonlyArray<AudioFrame> = Array.from({ length: 50 }, () => ({ format, data: new Uint8Array(160).fill(0xff) }))

describe("Deepgram live STT against a fake /v1/listen", () => {
  it.effect("sends the audio with the format and options in the query, reads results, and ends on CloseStream", () =>
    Effect.scoped(Effect.gen(function*() {
      const fake = yield* startFakeDeepgram({ key: "dg-key", words: "book an appointment", bytesPerSecond: 8000 })
      const stt = Deepgram.make({ apiKey: Redacted.make("dg-key"), url: fake.url, model: "nova-3" })
      const events = Chunk.toReadonlyArray(yield* Stream.runCollect(stt.transcribe(format, Stream.fromIterable(second))))
      expect(events.filter((e) => e._tag !== "Metadata")).toEqual([
        { _tag: "SpeechStarted", at: 0.2 },
        { _tag: "Interim", text: "book" },
        { _tag: "Final", text: "book an appointment", endOfSpeech: true, start: 0.2, duration: 1 },
        { _tag: "UtteranceEnd", lastWordEnd: 1.2 }
      ])
      // Usage: the audio sent, reported before the final (whatever was sent by then) and the rest at the
      // end, in place of Deepgram's own Metadata at the close (which says the same second).
      const reported = events.flatMap((e) => (e._tag === "Metadata" ? [e.audioSeconds] : []))
      expect(reported.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6)
      expect(events[events.findIndex((e) => e._tag === "Final") - 1]?._tag).toBe("Metadata")
      const query = fake.queries[0]!
      expect(Object.fromEntries(query)).toMatchObject({
        model: "nova-3",
        encoding: "mulaw",
        sample_rate: "8000",
        channels: "1",
        interim_results: "true",
        endpointing: "300",
        utterance_end_ms: "1000",
        vad_events: "true"
      })
      expect(fake.controls).toEqual(["CloseStream"])
    })))

  it.effect("sends KeepAlive when the audio pauses for 4 s (Deepgram closes idle sockets after ~10 s)", () =>
    Effect.scoped(Effect.gen(function*() {
      const fake = yield* startFakeDeepgram({ key: "k", words: "hello", bytesPerSecond: 8000 })
      const stt = Deepgram.make({ apiKey: Redacted.make("k"), url: fake.url, model: "nova-3" })
      const paused = Stream.concat(Stream.fromIterable(second.slice(0, 5)), Stream.never)
      const fiber = yield* Effect.fork(Stream.runDrain(stt.transcribe(format, paused)))
      // The socket is real: give it real time to open and take the audio, then move the test clock.
      const realWait = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))
      yield* realWait(300)
      yield* TestClock.adjust("3 seconds")
      yield* realWait(100)
      expect(fake.controls).toEqual([])
      yield* TestClock.adjust("2 seconds")
      yield* realWait(100)
      expect(fake.controls).toEqual(["KeepAlive"])
      yield* Fiber.interrupt(fiber)
    })))

  it.effect("usage counts the audio sent when the call ends before Deepgram's closing Metadata", () =>
    Effect.scoped(Effect.gen(function*() {
      const fake = yield* startFakeDeepgram({ key: "k", words: "yes please", bytesPerSecond: 8000 })
      const stt = Deepgram.make({ apiKey: Redacted.make("k"), url: fake.url, model: "nova-3" })
      // Two seconds, then the line stays open: the runtime stops reading once the call is over.
      const open = Stream.concat(Stream.fromIterable([...second, ...second]), Stream.never)
      const untilFinal = yield* stt.transcribe(format, open).pipe(
        Stream.takeUntil((e) => e._tag === "Final"),
        Stream.runCollect,
        Effect.map(Chunk.toReadonlyArray)
      )
      expect(untilFinal.at(-1)?._tag).toBe("Final")
      const reported = untilFinal.flatMap((e) => (e._tag === "Metadata" ? [e.audioSeconds] : []))
      expect(reported.length).toBe(1)
      // At least the half second the fake waits for before answering; at most what was sent.
      expect(reported[0]).toBeGreaterThanOrEqual(0.5)
      expect(reported[0]).toBeLessThanOrEqual(2)
      expect(fake.controls).toEqual([])
    })))

  it.effect("a refused key fails with the handshake's 401", () =>
    Effect.scoped(Effect.gen(function*() {
      const fake = yield* startFakeDeepgram({ key: "dg-key", words: "x", bytesPerSecond: 8000 })
      const stt = Deepgram.make({ apiKey: Redacted.make("wrong"), url: fake.url, model: "nova-3" })
      const error = yield* Stream.runDrain(stt.transcribe(format, Stream.fromIterable(second))).pipe(Effect.flip)
      expect(error).toBeInstanceOf(Deepgram.DeepgramError)
      expect((error as Deepgram.DeepgramError).code).toBe(401)
    })))

  it.effect("as the SpeechToText port: key terms in the query, a refusal as a SpeechError with its status", () =>
    Effect.scoped(Effect.gen(function*() {
      const fake = yield* startFakeDeepgram({ key: "dg-key", words: "x", bytesPerSecond: 8000 })
      const refused = yield* SpeechToText.pipe(
        Effect.flatMap((stt) => Stream.runDrain(stt.transcribe(format, Stream.fromIterable(second), { phrases: ["Agentline", "book"] }))),
        Effect.provide(Deepgram.layer({ apiKey: Redacted.make("nope"), url: fake.url, model: "nova-3" })),
        Effect.flip
      )
      expect(refused).toBeInstanceOf(SpeechError)
      expect([(refused as SpeechError).service, (refused as SpeechError).code]).toEqual(["deepgram", 401])
      const events = yield* SpeechToText.pipe(
        Effect.flatMap((stt) => Stream.runCollect(stt.transcribe(format, Stream.fromIterable(second), { phrases: ["Agentline", "book"] }))),
        Effect.provide(Deepgram.layer({ apiKey: Redacted.make("dg-key"), url: fake.url, model: "nova-3" }))
      )
      expect(Chunk.size(events)).toBeGreaterThan(0)
      expect(fake.queries[0]!.getAll("keyterm")).toEqual(["Agentline", "book"])
    })))

  it.effect("a socket dropped mid-stream fails after the results that arrived", () =>
    Effect.scoped(Effect.gen(function*() {
      const fake = yield* startFakeDeepgram({ key: "k", words: "yes please", bytesPerSecond: 8000, drop: true })
      const stt = Deepgram.make({ apiKey: Redacted.make("k"), url: fake.url, model: "nova-3" })
      const seen: Array<string> = []
      const error = yield* stt.transcribe(format, Stream.fromIterable([...second, ...second])).pipe(
        Stream.runForEach((event) => Effect.sync(() => seen.push(event._tag))),
        Effect.flip
      )
      expect(seen).toContain("Final")
      expect((error as Deepgram.DeepgramError).code).toBe(1006)
    })))

  it.effect("an error close (1011 NET-0001) fails with its code and reason", () =>
    Effect.scoped(Effect.gen(function*() {
      const fake = yield* startFakeDeepgram({ key: "k", words: "hello", bytesPerSecond: 8000, closeCode: 1011 })
      const stt = Deepgram.make({ apiKey: Redacted.make("k"), url: fake.url, model: "nova-3" })
      const error = yield* Stream.runDrain(stt.transcribe(format, Stream.fromIterable([...second, ...second]))).pipe(Effect.flip)
      expect((error as Deepgram.DeepgramError).code).toBe(1011)
      expect((error as Deepgram.DeepgramError).message).toContain("NET-0001")
    })))

  it.effect("a failing audio source fails the transcription with its own error", () =>
    Effect.scoped(Effect.gen(function*() {
      const fake = yield* startFakeDeepgram({ key: "k", words: "hello", bytesPerSecond: 8000 })
      const stt = Deepgram.make({ apiKey: Redacted.make("k"), url: fake.url, model: "nova-3" })
      const error = yield* Stream.runDrain(stt.transcribe(format, Stream.fail("caller hung up" as const))).pipe(Effect.flip)
      expect(error).toBe("caller hung up")
    })))

  it("big-endian L16 is sent as linear16 (little-endian)", () => {
    const url = new URL(Deepgram.listenUrl({ apiKey: Redacted.make("k"), model: "nova-3", language: "en-US" }, { encoding: "l16be", sampleRate: 16000 }))
    expect(url.origin + url.pathname).toBe("wss://api.deepgram.com/v1/listen")
    expect(url.searchParams.get("encoding")).toBe("linear16")
    expect(url.searchParams.get("sample_rate")).toBe("16000")
    expect(url.searchParams.get("language")).toBe("en-US")
  })
})
