/**
 * An answered call in memory, for tests of the runtime's stages: the caller's audio is what the test
 * `speak`s (PCM frames of 20 ms, sent at once), the agent's audio is collected, and clears, marks,
 * hang-ups, how the call was ended and what the runtime notified (`CallAudio.notify`) are recorded.
 */
import { AttemptId, RunId } from "@agentline/api/Ids"
import type { CallAudio, CallAudioEvent, CallNotice } from "@agentline/core/audio/CallAudio"
import type * as Pcm from "@agentline/core/audio/Pcm"
import { Effect, Queue, Sink, Stream } from "effect"

export const make = (sampleRate = 8000) =>
  Effect.gen(function*() {
    const incoming = yield* Queue.unbounded<CallAudioEvent | undefined>()
    const played: Array<Pcm.PcmFrame> = []
    const state = {
      clears: 0,
      marks: [] as Array<string>,
      hungUp: false,
      voicemail: undefined as string | undefined,
      failed: undefined as string | undefined,
      notices: [] as Array<CallNotice>
    }
    const frameSamples = Math.round(sampleRate / 50)
    const play = (frame: Pcm.PcmFrame) => Effect.sync(() => void played.push(frame))
    const audio: CallAudio = {
      provider: "memory",
      attemptId: AttemptId.make(1),
      runId: RunId.make(1),
      providerCallId: "memory-call",
      streamId: "memory-stream",
      sampleRate,
      parameters: {},
      incoming: Stream.fromQueue(incoming).pipe(Stream.takeWhile((e): e is CallAudioEvent => e !== undefined)),
      play,
      outgoing: Sink.forEach(play),
      mark: (name) => Effect.sync(() => void state.marks.push(name)),
      clear: Effect.sync(() => void state.clears++),
      hangUp: Effect.zipRight(Effect.sync(() => void (state.hungUp = true)), Queue.offer(incoming, undefined)),
      endAsVoicemail: (reason) => Effect.zipRight(Effect.sync(() => void (state.voicemail = reason)), Queue.offer(incoming, undefined)),
      endAsFailed: (reason) => Effect.zipRight(Effect.sync(() => void (state.failed = reason)), Queue.offer(incoming, undefined)),
      notify: (notice) => Effect.sync(() => void state.notices.push(notice))
    }
    /** The caller's audio: `samples` cut into 20 ms frames, all sent now. */
    const speak = (samples: Int16Array) =>
      Effect.forEach(
        Array.from({ length: Math.ceil(samples.length / frameSamples) }, (_, i) => samples.subarray(i * frameSamples, (i + 1) * frameSamples)),
        (chunk) => Queue.offer(incoming, { _tag: "Audio", frame: { sampleRate, samples: chunk } }),
        { discard: true }
      )
    return {
      audio,
      speak,
      /** The caller hangs up: their audio ends. */
      hangUp: Queue.offer(incoming, undefined),
      /** Frames of agent audio sent so far. */
      playedFrames: () => played.length,
      /** Milliseconds of agent audio sent so far. */
      playedMs: () => played.reduce((ms, f) => ms + (f.samples.length * 1000) / f.sampleRate, 0),
      state
    } as const
  })
