/**
 * One answered call's audio, the same for every provider: what the voice runtime plugs into.
 *
 * - `incoming`: the caller's audio as PCM frames (with their sample rate), the digits they press, the
 *   marks the provider reached (audio sent before the mark has been played); it ends when the call's
 *   media stream ends (the caller hung up, or the call was ended);
 * - `play` / `outgoing`: PCM at any rate, resampled and encoded to the stream's format by the server;
 * - `mark(name)`: be told (a `MarkReached`) when what was played so far has been heard;
 * - `clear`: drop what was sent but not yet played (the caller interrupted);
 * - `hangUp`: end the call;
 * - `endAsVoicemail(reason)`: the runtime found an answering machine: the attempt ends `voicemail` (so
 *   a campaign's voicemail retry rule applies, as with the provider's own detection), then the call is
 *   hung up;
 * - `transfer(request)`: hand the caller to a person (`transfers/Transfers.ts`): the transfer is
 *   recorded and the provider asked; then `leave` ends the runtime's part without hanging up. Absent in
 *   a server without transfers.
 * - `endAsFailed(reason)`: the agent could not talk (no language model, speech synthesis or recognition
 *   failing): the attempt ends `failed` with the reason, then the call is hung up. Optional: a handle
 *   without it is hung up.
 * - `notify(notice)`: told each transcript line and each answer's latency as the conversation goes
 *   (a web call shows them live); optional, telephony has no use for it.
 *
 * The provider's media codec (`TelephonyProvider.media`) and `Pcm` do the translation; this server's
 * media route (`MediaStreams`) builds the handle and hands it to the `CallAudioHandler`.
 */
import type { AttemptId, RunId } from "@agentline/api/Ids"
import { Context, Effect, Layer, type Sink, Stream } from "effect"
import type { PcmFrame } from "./Pcm.js"

export type CallAudioEvent =
  | { readonly _tag: "Audio"; readonly frame: PcmFrame }
  | { readonly _tag: "Dtmf"; readonly digit: string }
  | { readonly _tag: "MarkReached"; readonly name: string }

export interface CallAudio {
  readonly provider: string
  readonly attemptId: AttemptId
  readonly runId: RunId
  readonly providerCallId: string | undefined
  readonly streamId: string
  /** The rate of the caller's audio in `incoming` (the provider's own: 8 kHz for G.711). */
  readonly sampleRate: number
  /** The parameters this server put in the answer document, as the stream's start echoed them. */
  readonly parameters: Readonly<Record<string, string>>
  readonly incoming: Stream.Stream<CallAudioEvent>
  readonly play: (frame: PcmFrame) => Effect.Effect<void>
  readonly outgoing: Sink.Sink<void, PcmFrame>
  readonly mark: (name: string) => Effect.Effect<void>
  readonly clear: Effect.Effect<void>
  readonly hangUp: Effect.Effect<void>
  readonly endAsVoicemail: (reason: string) => Effect.Effect<void>
  readonly endAsFailed?: (reason: string) => Effect.Effect<void>
  /** Asks the provider to transfer the call; the transfer as recorded (`failed` at once when refused). */
  readonly transfer?: ((request: TransferRequest) => Effect.Effect<TransferStarted>) | undefined
  /** Ends this side of the media stream without hanging the call up (the provider carries it on). */
  readonly leave?: Effect.Effect<void> | undefined
  /** Told what the conversation produced as it goes: transcript lines, answers' latencies. */
  readonly notify?: ((notice: CallNotice) => Effect.Effect<void>) | undefined
}

/**
 * What the runtime tells a handle that listens (`CallAudio.notify`): a line of the transcript as it is
 * recorded (the caller's when recognized, the agent's once played or cut), and the latency of an answer
 * (the caller's end of speech to the answer's first audio, milliseconds).
 */
export type CallNotice =
  | {
    readonly _tag: "Transcript"
    readonly role: "user" | "assistant"
    readonly text: string
    readonly startMs: number
    readonly endMs: number
    readonly interrupted: boolean
  }
  | { readonly _tag: "Latency"; readonly ms: number }

/** A transfer the runtime asks for: where to, how, how long the target may ring. */
export interface TransferRequest {
  readonly target: string
  readonly mode: "cold" | "warm"
  readonly timeoutSeconds: number
  /** For a warm transfer: what the person who answers is told before the caller joins. */
  readonly briefing?: string | undefined
}

/** A transfer as recorded when asked: `dialing`, or already `failed` (with why). */
export interface TransferStarted {
  readonly transferId: string
  readonly mode: "cold" | "warm"
  readonly status: "dialing" | "answered" | "busy" | "no_answer" | "failed"
  readonly cause: string | null
}

/** What serves answered calls: the voice runtime. Returns when it is done with the call. */
export interface CallAudioHandlerShape {
  readonly handle: (audio: CallAudio) => Effect.Effect<void>
}

export class CallAudioHandler extends Context.Tag("@agentline/core/CallAudioHandler")<CallAudioHandler, CallAudioHandlerShape>() {
  /** No voice runtime: the line stays open and silent until the caller hangs up. */
  static readonly silent: CallAudioHandlerShape = {
    handle: (audio) => Stream.runDrain(audio.incoming)
  }

  static layer = (handler: CallAudioHandlerShape): Layer.Layer<CallAudioHandler> => Layer.succeed(CallAudioHandler, handler)
}
