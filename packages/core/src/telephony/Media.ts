/**
 * The media part of the telephony port: once a call is answered the provider streams its audio over a
 * WebSocket (Twilio and Telnyx JSON with base64 payloads, Vonage binary L16 frames, Asterisk binary
 * µ-law plus text control, ...). A provider's `MediaCodec` translates one such connection's frames
 * into normalized `MediaEvent`s and normalized `MediaCommand`s into frames.
 *
 * Audio is carried as the provider sends it, with its format: the codec never assumes a sample rate
 * or an encoding (Vonage streams 16 kHz L16; Plivo and Telnyx can stream L16 at other rates), and
 * transcoding is the voice runtime's job.
 */
import type { Effect } from "effect"
import type { AudioFormat, AudioFrame } from "../audio/AudioFormat.js"
import type { TelephonyError } from "./TelephonyProvider.js"

/** One WebSocket message, as received from or sent to the provider. */
export type WebSocketFrame =
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "Binary"; readonly data: Uint8Array }

/** What the provider tells us over the media stream. */
export type MediaEvent =
  | {
    /** The stream is set up: its id, the call it belongs to, its audio format, our parameters back. */
    readonly _tag: "Start"
    readonly streamId: string
    readonly providerCallId: string | undefined
    readonly format: AudioFormat
    readonly parameters: Readonly<Record<string, string>>
  }
  | { readonly _tag: "Audio"; readonly audio: AudioFrame }
  | { readonly _tag: "Dtmf"; readonly digit: string }
  /** Audio sent before the mark of this name has been played to the caller. */
  | { readonly _tag: "Mark"; readonly name: string }
  | { readonly _tag: "Stop" }

/** What we tell the provider over the media stream. */
export type MediaCommand =
  | { readonly _tag: "Audio"; readonly audio: AudioFrame }
  /** Ask to be told (a `Mark` event) when the audio sent so far has been played. */
  | { readonly _tag: "Mark"; readonly name: string }
  /** Drop audio sent but not yet played (the caller interrupted). */
  | { readonly _tag: "Clear" }
  /** End the stream (and, for providers where the stream is the call, the call). */
  | { readonly _tag: "Stop" }

/**
 * The codec state of one media WebSocket connection: providers number frames, remember the stream id
 * from `start`, or negotiate the format, so a session is made per connection.
 */
export interface MediaSession {
  /** One frame from the provider as events (none for keep-alives and frames we ignore). */
  readonly decode: (frame: WebSocketFrame) => Effect.Effect<ReadonlyArray<MediaEvent>, TelephonyError>
  /** One command as the frames to send. Fails for audio in another format than the stream's. */
  readonly encode: (command: MediaCommand) => Effect.Effect<ReadonlyArray<WebSocketFrame>, TelephonyError>
}

export interface ProviderMedia {
  /** The WebSocket subprotocol the provider asks for, if any (Asterisk: `media`). */
  readonly subprotocol?: string
  /** A codec for a new media connection. */
  readonly open: Effect.Effect<MediaSession>
}
