/**
 * The web call's wire (docs/web-calls.md), as plain functions: audio is 16-bit little-endian PCM, mono,
 * at `WIRE_SAMPLE_RATE`, in binary WebSocket messages of any length (the server cuts the caller's into
 * 20 ms frames); control messages are JSON text messages.
 */
import * as Pcm from "../audio/Pcm.js"

/** The one rate both directions use. */
export const WIRE_SAMPLE_RATE = 16_000

/** The wire's audio format. */
export const WIRE_FORMAT = { encoding: "l16le", sampleRate: WIRE_SAMPLE_RATE } as const

/** Bytes of one 20 ms frame at the wire's rate. */
export const FRAME_BYTES = (WIRE_SAMPLE_RATE / 50) * 2

/** The largest binary message taken from a browser (one second of audio); longer ones are dropped. */
export const MAX_AUDIO_MESSAGE_BYTES = WIRE_SAMPLE_RATE * 2

/** What the server tells the browser. */
export type ServerMessage =
  | { readonly type: "ready"; readonly run_id: number; readonly sample_rate: number }
  | {
    readonly type: "transcript"
    readonly role: "user" | "assistant"
    readonly text: string
    readonly start_ms: number
    readonly end_ms: number
    readonly interrupted: boolean
  }
  | { readonly type: "latency"; readonly ms: number }
  | { readonly type: "clear" }
  | { readonly type: "end"; readonly run_id: number; readonly reason: string; readonly error?: string }

/** What the browser may tell the server: only that it hangs up. Anything else is ignored. */
export type ClientMessage = { readonly type: "hangup" }

export const parseClientMessage = (text: string): ClientMessage | undefined => {
  if (text.length > 1024) return undefined
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === "object" && value !== null && "type" in value && value.type === "hangup" ? { type: "hangup" } : undefined
  } catch {
    return undefined
  }
}

/** PCM at any rate as the wire's bytes. */
export const encodeAudio = (frame: Pcm.PcmFrame): Uint8Array => Pcm.encode(frame, WIRE_FORMAT).data
