/**
 * What one call leaves behind, collected as it happens and turned into the run's artifacts at the
 * end: the transcript (the reference's text format and a structured JSON with turn timings) and the
 * recordings (mixed, caller and agent WAV at the call's sample rate, aligned on the call's clock).
 * Pure: the session records with call-relative times; nothing here reads a clock.
 */
import type { PcmFrame } from "@agentline/core/audio/Pcm"
import { resample } from "@agentline/core/audio/Pcm"
import { toWav } from "@agentline/core/audio/WavAudio"

export type Role = "user" | "assistant"

export interface Turn {
  readonly role: Role
  readonly text: string
  /** Call-relative milliseconds. */
  readonly startMs: number
  readonly endMs: number
  /** An agent turn the caller talked over: `text` is what was played before it stopped. */
  readonly interrupted?: boolean
}

/**
 * One party's audio on the call's timeline, written in place as it comes: one-second pages, created when
 * audio first lands in them. A frame leaves no object behind (a call of minutes would otherwise keep
 * thousands per party for the collector to walk), and silence that nobody wrote costs nothing.
 */
export interface Track {
  readonly sampleRate: number
  readonly pages: Array<Int16Array | undefined>
}

export const makeTrack = (sampleRate: number): Track => ({ sampleRate, pages: [] })

/** `samples` (at the track's rate) placed at `atMs`; what lands before the call's start is dropped. Later audio overwrites earlier audio at the same place. */
export const writeTrack = (track: Track, samples: Int16Array, atMs: number): void => {
  const rate = track.sampleRate
  let position = Math.round((atMs * rate) / 1000)
  let from = 0
  if (position < 0) {
    from = -position
    position = 0
  }
  while (from < samples.length) {
    const page = Math.floor(position / rate)
    const within = position - page * rate
    const n = Math.min(rate - within, samples.length - from)
    const target = track.pages[page] ?? (track.pages[page] = new Int16Array(rate))
    target.set(samples.subarray(from, from + n), within)
    from += n
    position += n
  }
}

export interface CallRecord {
  readonly sampleRate: number
  readonly turns: Array<Turn>
  readonly caller: Track
  readonly agent: Track
}

/** A record at the call's own rate (the caller's audio rate: 8 kHz for G.711, 16 kHz for Vonage). */
export const makeCallRecord = (sampleRate: number): CallRecord => ({ sampleRate, turns: [], caller: makeTrack(sampleRate), agent: makeTrack(sampleRate) })

const place = (record: CallRecord, into: Track, frame: PcmFrame, atMs: number): void =>
  writeTrack(into, frame.sampleRate === record.sampleRate ? frame.samples : resample(frame.samples, frame.sampleRate, record.sampleRate), atMs)

export const recordCallerAudio = (record: CallRecord, frame: PcmFrame, atMs: number): void => place(record, record.caller, frame, atMs)

export const recordAgentAudio = (record: CallRecord, frame: PcmFrame, atMs: number): void => place(record, record.agent, frame, atMs)

export const recordTurn = (record: CallRecord, turn: Turn): void => {
  if (turn.text.trim() !== "") record.turns.push(turn)
}

/** One party's audio, `durationMs` long: silence where the party was quiet. */
export const track = (from: Track, durationMs: number): Int16Array => {
  const out = new Int16Array(Math.round((durationMs * from.sampleRate) / 1000))
  for (let page = 0; page < from.pages.length && page * from.sampleRate < out.length; page++) {
    const samples = from.pages[page]
    if (samples !== undefined) out.set(samples.subarray(0, Math.min(samples.length, out.length - page * from.sampleRate)), page * from.sampleRate)
  }
  return out
}

/** Both parties summed, clipped to 16 bits. */
export const mix = (a: Int16Array, b: Int16Array): Int16Array => {
  const out = new Int16Array(Math.max(a.length, b.length))
  for (let i = 0; i < out.length; i++) out[i] = Math.max(-32768, Math.min(32767, (a[i] ?? 0) + (b[i] ?? 0)))
  return out
}

const wav = (sampleRate: number, samples: Int16Array): Uint8Array =>
  toWav({ encoding: "l16le", sampleRate }, new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength))

export interface Recordings {
  readonly recording: Uint8Array
  readonly user_recording: Uint8Array
  readonly bot_recording: Uint8Array
}

export const recordings = (record: CallRecord, durationMs: number): Recordings => {
  const user = track(record.caller, durationMs)
  const bot = track(record.agent, durationMs)
  return { recording: wav(record.sampleRate, mix(user, bot)), user_recording: wav(record.sampleRate, user), bot_recording: wav(record.sampleRate, bot) }
}

const ordered = (record: CallRecord) => [...record.turns].sort((a, b) => a.startMs - b.startMs)

/**
 * The reference's plain text: one line per final user utterance and agent text,
 * `[<ISO time>] user: …` / `[<ISO time>] assistant: …`, times on the wall clock of the call's start.
 */
export const transcriptText = (record: CallRecord, startedAt: number): string =>
  ordered(record)
    .map((turn) => `[${new Date(startedAt + turn.startMs).toISOString()}] ${turn.role}: ${turn.text}`)
    .join("\n") + (record.turns.length > 0 ? "\n" : "")

/** The same turns with their timings, for programs. */
export const transcriptJson = (record: CallRecord) =>
  ordered(record).map((turn) => ({
    role: turn.role,
    text: turn.text,
    start_ms: Math.round(turn.startMs),
    end_ms: Math.round(turn.endMs),
    ...(turn.interrupted === true ? { interrupted: true } : {})
  }))
