/**
 * A test voice runtime: it echoes the caller's audio back and records both directions. Digits drive
 * it: `1` sets a mark, `2` clears playback, `8` plays a minute of tone, `9` hangs up, `7` transfers the
 * call as `transferRequests` says for it (then leaves the stream, as the voice runtime does).
 */
import type { CallAudioHandlerShape, TransferRequest, TransferStarted } from "@agentline/core/audio/CallAudio"
import { Deferred, Effect, Stream } from "effect"

export interface Recording {
  readonly incoming: Array<Int16Array>
  readonly outgoing: Array<Int16Array>
  readonly digits: Array<string>
  readonly marks: Array<string>
  sampleRate: number
  ended: boolean
}

/** Recordings by provider call id (attempt ids repeat across the suites' databases). */
export const recordings = new Map<string, Recording>()

/** The transfer digit `7` asks for, by provider call id; what the server answered, once asked. */
export const transferRequests = new Map<string, TransferRequest>()
export const transfersStarted = new Map<string, TransferStarted>()

export const samplesOf = (chunks: ReadonlyArray<Int16Array>) => {
  const out = new Int16Array(chunks.reduce((n, c) => n + c.length, 0))
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.length
  }
  return out
}

/** `seconds` of a 440 Hz tone at `sampleRate`. */
export const tone = (seconds: number, sampleRate: number) =>
  Int16Array.from({ length: Math.round(seconds * sampleRate) }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / sampleRate)))

export const loopback: CallAudioHandlerShape = {
  handle: (audio) =>
    Effect.gen(function*() {
      const recording: Recording = { incoming: [], outgoing: [], digits: [], marks: [], sampleRate: audio.sampleRate, ended: false }
      recordings.set(audio.providerCallId ?? `attempt-${audio.attemptId}`, recording)
      let marks = 0
      // Once the call is handed over, the runtime is done with it, whatever the stream does next.
      const left = yield* Deferred.make<void>()
      const play = (samples: Int16Array) => {
        recording.outgoing.push(samples)
        return audio.play({ sampleRate: audio.sampleRate, samples })
      }
      const serve = audio.incoming.pipe(Stream.runForEach((event) => {
        switch (event._tag) {
          case "Audio":
            recording.incoming.push(event.frame.samples)
            return play(event.frame.samples)
          case "MarkReached":
            return Effect.sync(() => void recording.marks.push(event.name))
          case "Dtmf":
            recording.digits.push(event.digit)
            switch (event.digit) {
              case "1":
                return audio.mark(`mark-${++marks}`)
              case "2":
                return audio.clear
              case "8":
                return play(tone(60, audio.sampleRate))
              case "9":
                return audio.hangUp
              case "7": {
                const request = transferRequests.get(audio.providerCallId ?? "")
                if (request === undefined || audio.transfer === undefined) return Effect.void
                return Effect.flatMap(audio.transfer(request), (started) => {
                  transfersStarted.set(audio.providerCallId ?? "", started)
                  return Effect.zipRight(started.status === "failed" ? audio.hangUp : audio.leave ?? Effect.void, Deferred.succeed(left, undefined))
                })
              }
              default:
                return Effect.void
            }
        }
      }))
      yield* Effect.raceFirst(serve, Deferred.await(left))
      recording.ended = true
    })
}
