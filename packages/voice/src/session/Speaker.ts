/**
 * The agent's mouth on one call: sentences synthesized by the `TextToSpeech` port, cut into 20 ms
 * frames and sent in real time (paced by the Clock, a little ahead so the provider never runs dry),
 * with a mark after each sentence. What was sent is recorded on the call's timeline, and `played`
 * tells how much of the text the caller heard when playback is cut short (barge-in).
 */
import type { CallAudio } from "@agentline/core/audio/CallAudio"
import * as Pcm from "@agentline/core/audio/Pcm"
import type { TextToSpeechService } from "@agentline/core/voice/Speech"
import { Effect, Stream } from "effect"
import { type CallRecord, recordAgentAudio } from "./CallRecord.js"

export const FRAME_MS = 20
/** How far ahead of real time audio is sent: enough to ride over a busy event loop, small enough to clear fast. */
export const LEAD_MS = 60

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

/** What one utterance (a reply, a greeting) got played so far. */
export interface Playback {
  readonly sentences: Array<string>
  /** The sentence being played and how much of it was sent. */
  current: { readonly text: string; sent: number; total: number } | undefined
  /** Call time of the first frame sent, for the turn's latency. */
  firstFrameAtMs: number | undefined
}

export const newPlayback = (): Playback => ({ sentences: [], current: undefined, firstFrameAtMs: undefined })

export const playedText = (playback: Playback): string =>
  [...playback.sentences, ...(playback.current !== undefined
    ? [heardPrefix(playback.current.text, playback.current.total === 0 ? 0 : playback.current.sent / playback.current.total)]
    : [])]
    .filter((s) => s !== "")
    .join(" ")

export interface SpeakerOptions {
  readonly audio: CallAudio
  readonly tts: TextToSpeechService
  readonly record: CallRecord
  /** Call-relative milliseconds now. */
  readonly callTime: Effect.Effect<number>
}

export const makeSpeaker = (options: SpeakerOptions) => {
  const { audio, callTime, record, tts } = options
  const format = { encoding: "l16le" as const, sampleRate: audio.sampleRate }
  /** When the next frame is due on the call's timeline (audio already queued at the provider). */
  let dueMs = 0
  let marks = 0
  let characters = 0

  const sendPaced = (frame: Pcm.PcmFrame, playback: Playback) =>
    Effect.gen(function*() {
      const now = yield* callTime
      if (dueMs < now) dueMs = now
      const ahead = dueMs - now
      if (ahead > LEAD_MS) yield* Effect.sleep(ahead - LEAD_MS)
      yield* audio.play(frame)
      recordAgentAudio(record, frame, dueMs)
      if (playback.firstFrameAtMs === undefined) playback.firstFrameAtMs = dueMs
      dueMs += (frame.samples.length * 1000) / frame.sampleRate
    })

  /** Plays `all` as the utterance `text`: paced, counted for what was heard, with a mark at its end. */
  const play = (text: string, all: ReadonlyArray<Pcm.PcmFrame>, playback: Playback) =>
    Effect.gen(function*() {
      const current = { text, sent: 0, total: all.length }
      playback.current = current
      for (const frame of all) {
        yield* sendPaced(frame, playback)
        current.sent++
      }
      playback.sentences.push(text)
      playback.current = undefined
      yield* audio.mark(`s${++marks}`)
    })

  /** Speaks one sentence to the end (interruptible between frames). */
  const sentence = (text: string, playback: Playback) =>
    Effect.gen(function*() {
      characters += text.length
      const chunks = yield* Stream.runCollect(tts.synthesize(format, Stream.make(text)))
      yield* play(text, [...chunks].flatMap((chunk) => frames(Pcm.decode(chunk.audio))), playback)
    })

  /**
   * Plays a recording (PCM at its own rate, resampled to the line's) like a sentence: paced, with a mark
   * at its end, interruptible between frames; `text` (its transcript) is what the playback says was heard.
   */
  const recording = (text: string, pcm: Pcm.PcmFrame, playback: Playback) =>
    play(text, frames({ sampleRate: audio.sampleRate, samples: Pcm.resample(pcm.samples, pcm.sampleRate, audio.sampleRate) }), playback)

  return {
    sentence,
    recording,
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

