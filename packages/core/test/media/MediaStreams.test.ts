/**
 * The media route's side of an answered call (`MediaStreams`): a media token opens its attempt's call
 * once, for its provider only; the provider's frames become one `CallAudio` of PCM, digits and marks;
 * what the handler plays goes back as 20 ms frames in the stream's own format; and when the stream ends
 * with the attempt still open (the call's end was never reported), the provider is asked how the call
 * ended and the attempt is finished with that. The WebSocket itself is `http/test/MediaUpgrade.test.ts`
 * and each provider's contract suite.
 */
import { AttemptId, OrganizationId, type RunId } from "@agentline/api/Ids"
import { Simulator } from "@agentline/telephony-simulator"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Fiber, Layer, Option, Queue, Stream, TestClock } from "effect"
import type { CallAudio, CallAudioEvent, CallAudioHandlerShape } from "../../src/audio/CallAudio.js"
import { Dispatcher } from "../../src/dispatcher/Dispatcher.js"
import { DispatchRepo } from "../../src/dispatcher/DispatchRepo.js"
import { type MediaConnection, MediaStreams } from "../../src/media/MediaStreams.js"
import { MediaTokens } from "../../src/media/MediaTokens.js"
import type { WebSocketFrame } from "@agentline/telephony-kit/Media"
import { TelephonyConfigs } from "../../src/telephony/TelephonyConfigs.js"
import type { TelephonyProvider } from "@agentline/telephony-kit/TelephonyProvider"
import { settle, setupDialing } from "../DispatchHarness.js"
import { dialects, TestServices } from "../Harness.js"

/** What the call audio handler saw: the handle, and the events of the caller's side. */
const seen: { audio: CallAudio | undefined; readonly events: Array<CallAudioEvent> } = { audio: undefined, events: [] }

/** Plays 40 ms of 16 kHz PCM and a mark, then listens until the stream ends. */
const handler: CallAudioHandlerShape = {
  handle: (audio) =>
    Effect.gen(function*() {
      seen.audio = audio
      yield* audio.play({ sampleRate: 16000, samples: new Int16Array(640).fill(1000) })
      yield* audio.mark("greeted")
      yield* Stream.runForEach(audio.incoming, (event) => Effect.sync(() => void seen.events.push(event)))
    })
}

/** The simulator, except that the end of each call never reaches the dispatcher (only `get` tells it). */
const silentEnds = (simulator: TelephonyProvider): TelephonyProvider => ({
  ...simulator,
  name: "silent-ends",
  calls: {
    ...simulator.calls!,
    place: (input) => simulator.calls!.place({ ...input, onEvent: (event) => (event.type === "ended" ? Effect.void : input.onEvent(event)) })
  }
})

const Services = (dialect: (typeof dialects)[number]) =>
  Layer.unwrapScoped(Effect.map(Simulator.make(), (simulator) => TestServices(dialect, { providers: [silentEnds(simulator)], callAudio: handler })))

const text = (message: unknown): WebSocketFrame => ({ _tag: "Text", text: JSON.stringify(message) })

/** Waits (real time, a few seconds at most) until `done` holds. */
const until = (done: () => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 200 && !done(); i++) yield* settle(20)
    expect(done()).toBe(true)
  })

for (const dialect of dialects) {
  layer(Services(dialect), { timeout: "60 seconds" })(`Media streams [${dialect}]`, (it) => {
    it.effect("a token opens its call once; frames become PCM, digits and marks; played audio goes back as 20 ms frames; the attempt is settled once the stream ends", () =>
      Effect.gen(function*() {
        seen.audio = undefined
        seen.events.length = 0
        const setup = yield* setupDialing({ limit: 2 })
        const configuration = yield* (yield* TelephonyConfigs).create(setup.principal, {
          name: "silent ends",
          config: { provider: "silent-ends", ring_seconds: 0, talk_seconds: 3 },
          is_default_outbound: false
        })
        const placed = yield* (yield* Dispatcher).placeSingleCall({
          organizationId: OrganizationId.make(setup.principal.organizationId),
          workflow: setup.agent,
          to: "+14155550100",
          initialContext: {},
          telephonyConfigurationId: configuration.id
        })
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ id: number }>`SELECT id FROM call_attempts WHERE run_id = ${placed.workflow_run_id}`
        const attemptId = AttemptId.make(row!.id)

        const tokens = yield* MediaTokens
        const media = yield* MediaStreams
        const token = yield* tokens.issue({ attemptId, provider: "silent-ends" })
        expect(yield* media.open("simulator", token)).toEqual(Option.none())
        expect(yield* media.open("silent-ends", "not-a-token")).toEqual(Option.none())
        const call = yield* media.open("silent-ends", token)
        expect(Option.map(call, (c) => c.attempt.id)).toEqual(Option.some(attemptId))
        expect(yield* media.open("silent-ends", token)).toEqual(Option.none())

        const inbound = yield* Queue.unbounded<WebSocketFrame | undefined>()
        const sent: Array<WebSocketFrame> = []
        let closed = false
        const connection: MediaConnection = {
          frames: inbound,
          send: (frame) => Effect.sync(() => void sent.push(frame)),
          close: Effect.sync(() => void (closed = true)).pipe(Effect.zipRight(Queue.shutdown(inbound)))
        }
        const serving = yield* Effect.fork(media.serve(Option.getOrThrow(call), connection))
        const providerCallId = Option.getOrThrow(call).attempt.providerCallId ?? undefined
        yield* inbound.offerAll([
          text({ event: "start", stream_id: "s-1", call_id: providerCallId, encoding: "mulaw", sample_rate: 8000, parameters: { attempt_id: String(attemptId) } }),
          { _tag: "Binary", data: new Uint8Array(160).fill(0xff) },
          text({ event: "dtmf", digit: "5" })
        ])
        // 40 ms at 16 kHz go back as two 20 ms frames of 8 kHz µ-law, then the mark.
        yield* until(() => sent.some((f) => f._tag === "Text"))
        expect(sent.map((f) => (f._tag === "Binary" ? f.data.length : JSON.parse(f.text)))).toEqual([160, 160, { event: "mark", name: "greeted" }])
        yield* inbound.offerAll([text({ event: "mark", name: "greeted" }), text({ event: "stop" })])
        yield* Fiber.join(serving)
        expect(closed).toBe(true)
        expect(seen.audio).toMatchObject({ provider: "silent-ends", attemptId, runId: placed.workflow_run_id as RunId, streamId: "s-1", sampleRate: 8000, parameters: { attempt_id: String(attemptId) } })
        expect(seen.events.map((e) => (e._tag === "Audio" ? [e._tag, e.frame.sampleRate, e.frame.samples.length] : e))).toEqual([
          ["Audio", 8000, 160],
          { _tag: "Dtmf", digit: "5" },
          { _tag: "MarkReached", name: "greeted" }
        ])

        // Nobody told the dispatcher the call ended: the provider is asked (a few times, a second apart).
        const dispatch = yield* DispatchRepo
        const state = () => Effect.map(dispatch.findAttempt(attemptId), (a) => Option.getOrThrow(a).state)
        expect(yield* state()).toBe("dialing")
        for (let i = 0; i < 10 && (yield* state()) !== "ended"; i++) {
          yield* TestClock.adjust(1000)
          yield* settle(30)
        }
        expect(yield* Effect.map(dispatch.findAttempt(attemptId), (a) => Option.map(a, (x) => [x.state, x.outcome]))).toEqual(Option.some(["ended", "completed"]))
      }))
  })
}
