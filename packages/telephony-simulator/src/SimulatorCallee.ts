/**
 * The simulator's talking callee: once a call is answered and connected to the server's media stream,
 * a simulated person says scripted lines (synthesized by `CalleeVoice`, a text-to-speech service of
 * its own), taking turns with the agent: it waits for the agent to finish (a gap in the agent's audio),
 * says its next line, and hangs up once the agent has answered its last one. A line written
 * `[interrupt] <words>` is said over the agent instead, once the agent has talked `interruptAfterMs`
 * of its turn (a caller who cuts in: the agent's barge-in). Like a carrier, it sends
 * audio all the time (silence between lines) in 20 ms frames paced in real time, and echoes marks.
 *
 * The stream is the simulator's own protocol (`SimulatorMedia.ts`) over a real WebSocket to the URL
 * the server gave for the call, so a simulated conversation crosses the same path a carrier's does.
 */
import type { AudioFormat } from "@agentline/core/audio/AudioFormat"
import type { TextToSpeechService } from "@agentline/core/voice/Speech"
import { Context, Effect, Option, Stream } from "effect"
import WebSocket from "ws"

/** The callee's voice: any text-to-speech service (the server gives it the offline one, in another voice). */
export class CalleeVoice extends Context.Tag("@agentline/telephony-simulator/CalleeVoice")<CalleeVoice, TextToSpeechService>() {}

/** What the callee sends: 16-bit little-endian PCM at 16 kHz, 20 ms a frame. */
export const FORMAT: AudioFormat = { encoding: "l16le", sampleRate: 16_000 }
const FRAME_BYTES = (FORMAT.sampleRate / 50) * 2
const FRAME_MS = 20

export interface TurnTiming {
  /** Agent silence after which the agent's turn is over (ms). */
  readonly agentGapMs: number
  /** With no word from the agent since the stream started, the callee speaks first after this (ms). */
  readonly firstLineAfterMs: number
  /** After its last line, the callee waits this long for an answer before hanging up (ms). */
  readonly answerWaitMs: number
  /** An interrupting line is said once the agent has talked this long in its turn (ms). */
  readonly interruptAfterMs: number
}

export const defaultTiming: TurnTiming = { agentGapMs: 900, firstLineAfterMs: 6_000, answerWaitMs: 15_000, interruptAfterMs: 700 }

/** The marker of a line said over the agent. */
export const INTERRUPT = "[interrupt]"

/** A scripted line: its words, and whether it is said over the agent. Pure. */
export const parseLine = (line: string): { readonly text: string; readonly interrupts: boolean } => {
  const trimmed = line.trim()
  return trimmed.toLowerCase().startsWith(INTERRUPT)
    ? { text: trimmed.slice(INTERRUPT.length).trim(), interrupts: true }
    : { text: trimmed, interrupts: false }
}

/**
 * Turn-taking of the callee (pure): told when the agent's audio arrives and when a line of its own has
 * been said, it decides at each frame whether to say the next line, hang up, or go on listening.
 */
export interface Turns {
  readonly linesLeft: number
  /** When the agent's audio last arrived (ms), if it spoke since the callee's last line. */
  readonly agentLastAudioAt: number | undefined
  /** When the callee's last line ended, or the stream started (ms). */
  readonly quietSince: number
  readonly speaking: boolean
  /** Whether the agent ever spoke. */
  readonly agentEverSpoke: boolean
  /** When the agent's current run of audio began (ms), while it is talking. */
  readonly agentTalkingSince: number | undefined
}

export type Decision = "speak" | "hang-up" | "listen"

export const startTurns = (lines: number, now: number): Turns => ({
  linesLeft: lines,
  agentLastAudioAt: undefined,
  quietSince: now,
  speaking: false,
  agentEverSpoke: false,
  agentTalkingSince: undefined
})

/**
 * The agent's audio arrived. While the callee says a line it is not an answer to it (the agent was cut
 * into, or talks over the callee): only audio after the line counts.
 */
export const agentAudio = (turns: Turns, now: number, timing: TurnTiming = defaultTiming): Turns => turns.speaking ? { ...turns, agentEverSpoke: true } : ({
  ...turns,
  agentLastAudioAt: now,
  agentEverSpoke: true,
  // A gap as long as the turn gap starts a new run of agent audio.
  agentTalkingSince: turns.agentTalkingSince !== undefined && turns.agentLastAudioAt !== undefined && now - turns.agentLastAudioAt < timing.agentGapMs
    ? turns.agentTalkingSince
    : now
})

export const startLine = (turns: Turns): Turns => ({
  ...turns,
  linesLeft: turns.linesLeft - 1,
  speaking: true,
  agentLastAudioAt: undefined,
  agentTalkingSince: undefined
})

export const endLine = (turns: Turns, now: number): Turns => ({ ...turns, speaking: false, quietSince: now })

/** `nextInterrupts`: the next line is an `[interrupt]` line. */
export const decide = (turns: Turns, now: number, timing: TurnTiming = defaultTiming, nextInterrupts = false): Decision => {
  if (turns.speaking) return "listen"
  const agentDone = turns.agentLastAudioAt !== undefined && now - turns.agentLastAudioAt >= timing.agentGapMs
  if (turns.linesLeft > 0) {
    if (agentDone) return "speak"
    if (
      nextInterrupts && !agentDone && turns.agentTalkingSince !== undefined && turns.agentLastAudioAt !== undefined &&
      now - turns.agentTalkingSince >= timing.interruptAfterMs
    ) return "speak"
    // An agent that says nothing first (no greeting) is spoken to; one that does not answer, spoken to again.
    if (!turns.agentEverSpoke && now - turns.quietSince >= timing.firstLineAfterMs) return "speak"
    if (turns.agentLastAudioAt === undefined && now - turns.quietSince >= timing.answerWaitMs) return "speak"
    return "listen"
  }
  if (agentDone) return "hang-up"
  if (turns.agentLastAudioAt === undefined && now - turns.quietSince >= timing.answerWaitMs) return "hang-up"
  return "listen"
}

const silence = new Uint8Array(FRAME_BYTES)

/**
 * Holds one conversation over the media stream at `url`; ends when the callee hangs up (closes the
 * stream) or the server closes it. Never fails: a stream that cannot be opened just ends the talk.
 */
export const converse = (input: {
  readonly url: string
  readonly parameters: Readonly<Record<string, string>>
  readonly callId: string
  readonly lines: ReadonlyArray<string>
  readonly voice: TextToSpeechService
  readonly timing?: TurnTiming
}) =>
  Effect.gen(function*() {
    const socket = yield* Effect.acquireRelease(
      Effect.async<WebSocket | undefined>((resume) => {
        const ws = new WebSocket(input.url)
        ws.once("open", () => resume(Effect.succeed(ws)))
        ws.once("error", () => resume(Effect.succeed(undefined)))
        ws.once("unexpected-response", () => resume(Effect.succeed(undefined)))
      }),
      (ws) => Effect.sync(() => ws?.close())
    )
    if (socket === undefined) return yield* Effect.logWarning(`simulator: call ${input.callId} could not open its media stream`)
    let turns = startTurns(input.lines.length, Date.now())
    let closed = false
    socket.on("close", () => (closed = true))
    socket.on("message", (data, isBinary) => {
      if (isBinary) {
        turns = agentAudio(turns, Date.now(), input.timing)
        return
      }
      let message: { event?: unknown; name?: unknown }
      try {
        message = JSON.parse(String(data))
      } catch {
        return
      }
      // The callee plays what it gets as it comes: a mark is reached as soon as it arrives.
      if (message.event === "mark" && typeof message.name === "string") socket.send(JSON.stringify({ event: "mark", name: message.name }))
      if (message.event === "stop") socket.close()
    })
    socket.send(JSON.stringify({
      event: "start",
      stream_id: `stream-${input.callId}`,
      call_id: input.callId,
      encoding: FORMAT.encoding,
      sample_rate: FORMAT.sampleRate,
      parameters: input.parameters
    }))

    const pending: Array<Uint8Array> = []
    let next = 0
    let preparing = false
    const say = (line: string) =>
      input.voice.synthesize(FORMAT, Stream.make(line)).pipe(
        Stream.runForEach((chunk) => Effect.sync(() => pending.push(chunk.audio.data))),
        Effect.catchAll((e) => Effect.logWarning(`simulator: the callee could not say a line: ${e.message}`)),
        Effect.ensuring(Effect.sync(() => (preparing = false)))
      )
    /** The next 20 ms of the callee's audio: its line while there is one, silence otherwise. */
    let buffered = new Uint8Array(0)
    const nextFrame = (): Uint8Array => {
      while (buffered.length < FRAME_BYTES && pending.length > 0) {
        const chunk = pending.shift()!
        const joined = new Uint8Array(buffered.length + chunk.length)
        joined.set(buffered)
        joined.set(chunk, buffered.length)
        buffered = joined
      }
      if (buffered.length === 0) return silence
      const frame = new Uint8Array(FRAME_BYTES)
      frame.set(buffered.subarray(0, FRAME_BYTES))
      buffered = buffered.subarray(Math.min(FRAME_BYTES, buffered.length))
      return frame
    }

    const startedAt = Date.now()
    for (let tick = 1; !closed; tick++) {
      const now = Date.now()
      const talking = buffered.length > 0 || pending.length > 0 || preparing
      if (turns.speaking && !talking) turns = endLine(turns, now)
      const upcoming = input.lines[next]
      const decision = decide(turns, now, input.timing, upcoming !== undefined && parseLine(upcoming).interrupts)
      if (decision === "hang-up") break
      if (decision === "speak") {
        turns = startLine(turns)
        preparing = true
        yield* Effect.forkScoped(say(parseLine(input.lines[next++]!).text))
      }
      if (socket.readyState === WebSocket.OPEN) socket.send(nextFrame())
      // Paced against the start, not the last frame: sleeps that run late do not add up.
      yield* Effect.sleep(Math.max(0, startedAt + tick * FRAME_MS - Date.now()))
    }
  }).pipe(Effect.scoped)

export const voiceOf = Effect.serviceOption(CalleeVoice).pipe(Effect.map(Option.getOrUndefined))
