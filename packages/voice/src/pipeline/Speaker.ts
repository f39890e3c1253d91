/**
 * The speaker: the agent's mouth on one call. A reply's text goes into ONE `TextToSpeech` stream as the
 * language model produces it (sentence by sentence, without waiting for the audio of the previous one);
 * the audio that comes back is cut into 20 ms frames and sent on the call's pacer (the Clock, a little
 * ahead so the provider never runs dry), with a mark at the end of each stretch. A recording (greeting,
 * transition speech, a tool's waiting message) plays between stretches of text. What was sent is
 * recorded on the call's timeline; `played` tells how much of the reply the caller heard when it was
 * cut (barge-in). Interrupting the fiber that owns a reply's scope stops its synthesis at once.
 */
import type { CallAudio } from "@agentline/core/audio/CallAudio"
import * as Pcm from "@agentline/core/audio/Pcm"
import type { SpeechError, TextToSpeechService } from "@agentline/core/voice/Speech"
import { Effect, Fiber, Metric, Option, Queue, type Scope, Stream } from "effect"
import { framesLate, framesSent } from "../TurnTelemetry.js"
import { type CallRecord, recordAgentAudio } from "../session/CallRecord.js"

export const FRAME_MS = 20
/** How far ahead of real time audio is sent: enough to ride over a busy event loop, small enough to clear fast. */
export const LEAD_MS = 60
/**
 * Once the lead is full the speaker waits until there is room for this much audio again, then sends it
 * at once: two frames a wake-up instead of one (a timer and a fiber's wake-up per frame per call cost
 * more than the frame). The lead stays between LEAD_MS - REFILL_MS + FRAME_MS and LEAD_MS.
 */
export const REFILL_MS = 40

/** `samples` cut into frames of `FRAME_MS` (the last one shorter). Pure. */
export const frames = (pcm: Pcm.PcmFrame): ReadonlyArray<Pcm.PcmFrame> => {
  const size = Math.max(1, Math.round((pcm.sampleRate * FRAME_MS) / 1000))
  const out: Array<Pcm.PcmFrame> = []
  for (let i = 0; i < pcm.samples.length; i += size) out.push({ sampleRate: pcm.sampleRate, samples: pcm.samples.subarray(i, i + size) })
  return out
}

/** The words of `text` heard when `fraction` of its audio was played (whole words only). Pure. */
export const heardPrefix = (text: string, fraction: number): string => {
  if (fraction >= 1) return text
  const words = text.split(/\s+/).filter((w) => w !== "")
  return words.slice(0, Math.floor(words.length * Math.max(0, fraction))).join(" ")
}

/**
 * A stretch of speech in flight: the sentences the synthesizer took so far, each with how much audio
 * had come back when it was taken (a synthesizer cannot have spoken text it has not taken yet), and how
 * much audio came back and was sent.
 */
export interface Stretch {
  readonly taken: Array<{ readonly text: string; readonly atMs: number }>
  synthesizedMs: number
  sentMs: number
}

/**
 * What the caller heard of a stretch, without timings from the vendor. The audio from a sentence's
 * take to the next one's is that sentence's (exact for a synthesizer that takes sentences one at a
 * time, like the offline voice); sentences taken together share their audio in proportion. Whole
 * words of the sentence being played, in proportion to its audio sent. Pure.
 */
export const heardOf = (stretch: Stretch): string => {
  const heard: Array<string> = []
  let i = 0
  while (i < stretch.taken.length) {
    const start = stretch.taken[i]!.atMs
    let j = i
    while (j < stretch.taken.length && stretch.taken[j]!.atMs === start) j++
    const text = stretch.taken.slice(i, j).map((t) => t.text).join(" ")
    const end = j < stretch.taken.length ? stretch.taken[j]!.atMs : stretch.synthesizedMs
    if (stretch.sentMs >= end && end > start) {
      heard.push(text)
      i = j
      continue
    }
    if (end > start) heard.push(heardPrefix(text, (stretch.sentMs - start) / (end - start)))
    break
  }
  return heard.filter((t) => t !== "").join(" ")
}

export interface SpeakerOptions {
  readonly audio: Pick<CallAudio, "play" | "mark" | "sampleRate">
  readonly tts: TextToSpeechService
  readonly record: CallRecord
  /** Call-relative milliseconds now. */
  readonly callTime: Effect.Effect<number>
}

/** One reply of the agent (or the greeting): text and recordings in order, one synthesis per stretch of text. */
export interface Reply {
  /** Queues a sentence: synthesized and played after what was queued before; returns at once. */
  readonly text: (sentence: string) => Effect.Effect<void>
  /** Plays a recording once what was queued before has been sent; `text` is its transcript. */
  readonly recording: (text: string, pcm: Pcm.PcmFrame) => Effect.Effect<void, SpeechError>
  /** Waits until everything queued was sent (it fails when the synthesizer did). */
  readonly finish: Effect.Effect<void, SpeechError>
  /** What the caller heard of this reply so far. */
  readonly played: () => string
  /** The sentences queued to this reply, in order (what the agent meant to say). */
  readonly queued: () => ReadonlyArray<string>
  /** Call time of the first frame sent, for the turn's latency. */
  readonly firstFrameAtMs: () => number | undefined
}

export const makeSpeaker = (options: SpeakerOptions) => {
  const { audio, callTime, record, tts } = options
  const format = { encoding: "l16le" as const, sampleRate: audio.sampleRate }
  /** When the next frame is due on the call's timeline (audio already queued at the provider). */
  let dueMs = 0
  let marks = 0
  let characters = 0

  /** `continuing`: the frame follows another of the same audio, so it is late when its slot has passed. */
  const sendPaced = (frame: Pcm.PcmFrame, onFirst: (atMs: number) => void, continuing: boolean) =>
    Effect.gen(function*() {
      const now = yield* callTime
      if (continuing && now - dueMs > FRAME_MS) yield* Metric.increment(framesLate)
      if (dueMs < now) dueMs = now
      const ahead = dueMs - now
      if (ahead > LEAD_MS) yield* Effect.sleep(ahead - LEAD_MS + REFILL_MS - FRAME_MS)
      yield* audio.play(frame)
      yield* Metric.increment(framesSent)
      recordAgentAudio(record, frame, dueMs)
      onFirst(dueMs)
      dueMs += (frame.samples.length * 1000) / frame.sampleRate
    })

  /** A new reply whose synthesis fibers live in the current scope. */
  const reply: Effect.Effect<Reply, never, Scope.Scope> = Effect.gen(function*() {
    // The late frames' series is exported from the first reply on, at 0 until a frame is late.
    yield* Metric.incrementBy(framesLate, 0)
    const done: Array<string> = []
    const queued: Array<string> = []
    let firstFrameAtMs: number | undefined
    let playing: { readonly text: string; sent: number; total: number } | undefined
    const onFirst = (atMs: number) => {
      if (firstFrameAtMs === undefined) firstFrameAtMs = atMs
    }
    let open: { readonly input: Queue.Queue<Option.Option<string>>; readonly fiber: Fiber.Fiber<void, SpeechError>; readonly stretch: Stretch } | undefined
    const scope = yield* Effect.scope

    const startStretch = Effect.gen(function*() {
      const input = yield* Queue.unbounded<Option.Option<string>>()
      const stretch: Stretch = { taken: [], synthesizedMs: 0, sentMs: 0 }
      const sentences = Stream.fromQueue(input).pipe(
        Stream.takeWhile(Option.isSome),
        Stream.map((s) => {
          stretch.taken.push({ text: s.value, atMs: stretch.synthesizedMs })
          return s.value
        })
      )
      // Synthesis runs ahead of playback (buffered): the next sentence is synthesized while this one
      // plays, so a slow start of the synthesizer does not become a gap in the agent's speech.
      const fiber = yield* tts.synthesize(format, sentences).pipe(
        Stream.map((chunk) => {
          const pcm = Pcm.decode(chunk.audio)
          stretch.synthesizedMs += (pcm.samples.length * 1000) / pcm.sampleRate
          return pcm
        }),
        Stream.buffer({ capacity: "unbounded" }),
        Stream.runForEach((pcm) => {
          return Effect.forEach(frames(pcm), (frame, i) =>
            Effect.tap(sendPaced(frame, onFirst, i > 0), () => {
              stretch.sentMs += (frame.samples.length * 1000) / frame.sampleRate
            }), { discard: true })
        }),
        Effect.forkIn(scope)
      )
      return { input, fiber, stretch }
    })

    /** Ends the stretch of text in flight: all of it sent, then a mark. */
    const closeStretch = Effect.gen(function*() {
      if (open === undefined) return
      const current = open
      yield* Queue.offer(current.input, Option.none())
      yield* Fiber.join(current.fiber)
      open = undefined
      done.push(...current.stretch.taken.map((t) => t.text))
      yield* audio.mark(`s${++marks}`)
    })

    const text = (sentence: string) =>
      Effect.gen(function*() {
        if (sentence.trim() === "") return
        characters += sentence.length
        queued.push(sentence)
        if (open === undefined) open = yield* startStretch
        yield* Queue.offer(open.input, Option.some(sentence))
      })

    const recording = (transcript: string, pcm: Pcm.PcmFrame) =>
      Effect.gen(function*() {
        yield* closeStretch
        const all = frames({ sampleRate: audio.sampleRate, samples: Pcm.resample(pcm.samples, pcm.sampleRate, audio.sampleRate) })
        const current = { text: transcript, sent: 0, total: all.length }
        playing = current
        for (const frame of all) {
          yield* sendPaced(frame, onFirst, current.sent > 0)
          current.sent++
        }
        playing = undefined
        done.push(transcript)
        yield* audio.mark(`s${++marks}`)
      })

    const played = () =>
      [
        ...done,
        ...(open !== undefined ? [heardOf(open.stretch)] : []),
        ...(playing !== undefined ? [heardPrefix(playing.text, playing.total === 0 ? 0 : playing.sent / playing.total)] : [])
      ].filter((s) => s !== "").join(" ")

    return {
      text,
      recording,
      finish: closeStretch,
      played,
      queued: () => queued,
      firstFrameAtMs: () => firstFrameAtMs
    } satisfies Reply
  })

  return {
    reply,
    /** Playback was cleared at the provider: nothing more is queued there. */
    cleared: Effect.map(callTime, (now) => {
      dueMs = now
    }),
    /** When what was sent so far ends playing (call time). */
    drainedAt: Effect.map(callTime, (now) => Math.max(now, dueMs)),
    characters: () => characters
  } as const
}

export type Speaker = ReturnType<typeof makeSpeaker>

/** Waits until the audio already sent has been played (the caller hears the goodbye before the hang-up). */
export const untilPlayed = (speaker: Speaker, callTime: Effect.Effect<number>) =>
  Effect.gen(function*() {
    const end = yield* speaker.drainedAt
    const now = yield* callTime
    if (end > now) yield* Effect.sleep(end - now)
  })
