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

interface Placed {
  readonly atMs: number
  readonly samples: Int16Array
}

export interface CallRecord {
  readonly sampleRate: number
  readonly turns: Array<Turn>
  readonly caller: Array<Placed>
  readonly agent: Array<Placed>
}

/** A record at the call's own rate (the caller's audio rate: 8 kHz for G.711, 16 kHz for Vonage). */
export const makeCallRecord = (sampleRate: number): CallRecord => ({ sampleRate, turns: [], caller: [], agent: [] })

const at = (record: CallRecord, frame: PcmFrame, atMs: number): Placed => ({
  atMs,
  samples: resample(frame.samples, frame.sampleRate, record.sampleRate)
})

export const recordCallerAudio = (record: CallRecord, frame: PcmFrame, atMs: number): void => {
  record.caller.push(at(record, frame, atMs))
}

export const recordAgentAudio = (record: CallRecord, frame: PcmFrame, atMs: number): void => {
  record.agent.push(at(record, frame, atMs))
}

export const recordTurn = (record: CallRecord, turn: Turn): void => {
  if (turn.text.trim() !== "") record.turns.push(turn)
}

/** One party's audio on the call's timeline, `durationMs` long: silence where the party was quiet. */
export const track = (sampleRate: number, placed: ReadonlyArray<Placed>, durationMs: number): Int16Array => {
  const out = new Int16Array(Math.round((durationMs * sampleRate) / 1000))
  for (const piece of placed) {
    const offset = Math.round((piece.atMs * sampleRate) / 1000)
    for (let i = 0; i < piece.samples.length && offset + i < out.length; i++) {
      if (offset + i >= 0) out[offset + i] = piece.samples[i]!
    }
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
  const user = track(record.sampleRate, record.caller, durationMs)
  const bot = track(record.sampleRate, record.agent, durationMs)
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
