/**
 * The server side of a provider's media stream: a WebSocket that presents a media token is the
 * answered call of one attempt. Its frames go through the provider's codec (`media.open`) and become
 * one `CallAudio` handle for the `CallAudioHandler` (the voice runtime); what the handler plays goes
 * back through the same codec. A wrong, reused or expired token opens nothing (the route refuses the
 * upgrade).
 *
 * When the stream ends and the attempt is still open (an incoming call, whose provider sends no
 * status callbacks, or a callback that never came), the provider is asked how the call ended and the
 * attempt is finished with that.
 */
import { AttemptId } from "@agentline/api/Ids"
import { Cause, Chunk, Clock, Effect, FiberSet, Option, Queue, Schedule, Sink, Stream } from "effect"
import { CallTraces } from "../CallTraces.js"
import { SpanNames } from "../Telemetry.js"
import { Dispatcher } from "../dispatcher/Dispatcher.js"
import { DispatchRepo, type StoredAttempt } from "../dispatcher/DispatchRepo.js"
import type { MediaEvent, WebSocketFrame } from "@agentline/telephony-kit/Media"
import { type OutboundRoute, OutboundRouting } from "../telephony/OutboundRouting.js"
import { type CallAudio, type CallAudioEvent, CallAudioHandler, type TransferRequest } from "../audio/CallAudio.js"
import { PostCall } from "../runs/PostCall.js"
import { MediaTokens } from "./MediaTokens.js"
import { Transfers } from "../transfers/Transfers.js"
import { frameBytes } from "../audio/AudioFormat.js"
import * as Pcm from "../audio/Pcm.js"

/** One WebSocket as the media route sees it. */
export interface MediaConnection {
  /**
   * The provider's frames as they arrive, then `undefined` once the socket closed (a queue, not a
   * stream: the call's reader takes what came in since it last looked in one step, 50 frames a second
   * per call). A queue that is shut down ends the frames too.
   */
  readonly frames: Queue.Dequeue<WebSocketFrame | undefined>
  readonly send: (frame: WebSocketFrame) => Effect.Effect<void>
  readonly close: Effect.Effect<void>
}

/** The frames that came in since the last take (at least one; waits for it); none once they ended. */
export const takeFrames = (frames: Queue.Dequeue<WebSocketFrame | undefined>): Effect.Effect<Option.Option<ReadonlyArray<WebSocketFrame>>> =>
  Queue.takeBetween(frames, 1, Number.MAX_SAFE_INTEGER).pipe(
    Effect.map((chunk) => {
      const taken: Array<WebSocketFrame> = []
      for (const frame of chunk) {
        if (frame === undefined) return taken.length > 0 ? Option.some(taken) : Option.none()
        taken.push(frame)
      }
      return Option.some(taken)
    }),
    // A queue shut down while we waited: the frames ended.
    Effect.catchAllCause((cause) =>
      Effect.flatMap(Queue.isShutdown(frames), (down) => down && Cause.isInterruptedOnly(cause) ? Effect.succeed(Option.none()) : Effect.failCause(cause))
    )
  )

/** A redeemed token: the attempt whose call connects, and its configuration. */
export interface MediaCall {
  readonly attempt: StoredAttempt
  readonly route: OutboundRoute
  readonly subprotocol: string | undefined
}

/** How long a provider may take from the WebSocket's opening to the stream's `start`. */
const START_TIMEOUT = "15 seconds"

type Start = Extract<MediaEvent, { readonly _tag: "Start" }>

export class MediaStreams extends Effect.Service<MediaStreams>()("@agentline/core/MediaStreams", {
  scoped: Effect.gen(function*() {
    const tokens = yield* MediaTokens
    const dispatch = yield* DispatchRepo
    const routing = yield* OutboundRouting
    const dispatcher = yield* Dispatcher
    const handler = yield* CallAudioHandler
    const postCall = yield* PostCall
    const settlers = yield* FiberSet.make()
    const traces = yield* Effect.serviceOption(CallTraces)
    const transfers = yield* Effect.serviceOption(Transfers)

    /** The call a token opens; none for a wrong, reused or expired token, or a call that is gone. */
    const open = Effect.fn("MediaStreams.open")(function*(provider: string, token: string) {
      const attemptId = yield* tokens.redeem({ token, provider })
      if (Option.isNone(attemptId)) return Option.none<MediaCall>()
      const attempt = yield* dispatch.findAttempt(attemptId.value)
      if (Option.isNone(attempt) || attempt.value.runId === null) return Option.none<MediaCall>()
      const route = yield* routing.resolve(attempt.value.organizationId, attempt.value.telephonyConfigurationId).pipe(Effect.option)
      if (Option.isNone(route) || route.value.provider.media === undefined) return Option.none<MediaCall>()
      return Option.some<MediaCall>({ attempt: attempt.value, route: route.value, subprotocol: route.value.provider.media.subprotocol })
    })

    /** An attempt still open once its media ended is settled with what the provider says (a few tries). */
    const settle = (call: MediaCall, providerCallId: string) =>
      Effect.gen(function*() {
        const isOpen = Effect.map(dispatch.findAttempt(call.attempt.id), (a) => Option.isSome(a) && (a.value.state === "dialing" || a.value.state === "claimed"))
        // Most calls were ended by the provider's own status callback by now: nothing to ask it.
        if (!(yield* isOpen)) return
        const status = yield* call.route.calls.get(providerCallId).pipe(
          Effect.filterOrFail((s) => s._tag === "Ended"),
          Effect.retry(Schedule.spaced("1 second").pipe(Schedule.intersect(Schedule.recurs(5)))),
          Effect.option
        )
        if (Option.isNone(status) || status.value._tag !== "Ended") return
        if (!(yield* isOpen)) return
        yield* dispatcher.handleEvent(AttemptId.make(call.attempt.id), {
          type: "ended",
          providerCallId,
          at: yield* Clock.currentTimeMillis,
          outcome: status.value.outcome,
          durationSeconds: status.value.durationSeconds
        })
      }).pipe(Effect.catchAllCause((cause) => Effect.logWarning(`media: could not settle attempt ${call.attempt.id}`, cause)))

    const serve = Effect.fn("MediaStreams.serve")(function*(call: MediaCall, connection: MediaConnection) {
      const media = call.route.provider.media!
      const codec = yield* media.open
      const send = (frames: ReadonlyArray<WebSocketFrame>) => Effect.forEach(frames, connection.send, { discard: true })
      // The provider's frames are decoded where they are read: in the fiber of whoever reads the call's
      // audio (the voice runtime's listener), in one step for all that came in since it last looked. A
      // fiber of its own with a queue between would cost more than the decoding, 50 times a second per call.
      let ended = false
      /** The events of the frames that came in since the last read; none once the stream ended or stopped. */
      const read: Effect.Effect<Option.Option<Array<MediaEvent>>> = Effect.gen(function*() {
        if (ended) return Option.none()
        const frames = yield* takeFrames(connection.frames)
        if (Option.isNone(frames)) {
          ended = true
          return Option.none()
        }
        const events: Array<MediaEvent> = []
        for (const frame of frames.value) {
          const decoded = yield* codec.decode(frame).pipe(Effect.catchAll((e) => Effect.as(Effect.logWarning(`media: ${e.message}`), [])))
          for (const event of decoded) {
            if (event._tag === "Stop") {
              ended = true
              return Option.some(events)
            }
            events.push(event)
          }
        }
        return Option.some(events)
      })
      /** Events read before `start` (a provider may send audio first) and after it in the same read. */
      let early: Array<MediaEvent> = []
      const awaitStart: Effect.Effect<Option.Option<Start>> = Effect.gen(function*() {
        while (true) {
          const events = yield* read
          if (Option.isNone(events)) return Option.none()
          const at = events.value.findIndex((event) => event._tag === "Start")
          if (at < 0) {
            early.push(...events.value)
            continue
          }
          early.push(...events.value.slice(0, at), ...events.value.slice(at + 1))
          return Option.some(events.value[at] as Start)
        }
      })
      const start = yield* awaitStart.pipe(Effect.timeout(START_TIMEOUT), Effect.option, Effect.map(Option.flatten))
      if (Option.isNone(start)) {
        yield* Effect.logWarning(`media: the stream of attempt ${call.attempt.id} never started`)
        return yield* connection.close
      }
      const toCallAudio = (events: ReadonlyArray<MediaEvent>): Chunk.Chunk<CallAudioEvent> => {
        const out: Array<CallAudioEvent> = []
        for (const event of events) {
          if (event._tag === "Audio") out.push({ _tag: "Audio", frame: Pcm.decode(event.audio) })
          else if (event._tag === "Dtmf") out.push({ _tag: "Dtmf", digit: event.digit })
          else if (event._tag === "Mark") out.push({ _tag: "MarkReached", name: event.name })
        }
        return Chunk.unsafeFromArray(out)
      }
      const incoming: Stream.Stream<CallAudioEvent> = Stream.repeatEffectChunkOption(
        Effect.suspend(() => {
          if (early.length > 0) {
            const first = toCallAudio(early)
            early = []
            return Effect.succeed(first)
          }
          return Effect.flatMap(read, Option.match({ onNone: () => Effect.fail(Option.none()), onSome: (events) => Effect.succeed(toCallAudio(events)) }))
        })
      )
      const format = start.value.format
      const providerCallId = start.value.providerCallId ?? call.attempt.providerCallId ?? undefined
      /** 20 ms frames at the stream's rate, as providers expect to receive them. */
      const play = (frame: Pcm.PcmFrame) =>
        Effect.gen(function*() {
          const encoded = Pcm.encode(frame, format)
          const chunk = frameBytes(format, 20)
          for (let offset = 0; offset < encoded.data.length; offset += chunk) {
            yield* Effect.flatMap(
              codec.encode({ _tag: "Audio", audio: { format, data: encoded.data.subarray(offset, offset + chunk) } }),
              send
            )
          }
        }).pipe(Effect.catchAll((e) => Effect.logWarning(`media: ${e.message}`)))
      const connectedAt = yield* Clock.currentTimeMillis
      const hangUp = Effect.gen(function*() {
        if (providerCallId !== undefined) {
          yield* call.route.calls.hangUp(providerCallId).pipe(Effect.catchAll((e) => Effect.logWarning(`media: hang-up: ${e.message}`)))
        }
        yield* Effect.flatMap(codec.encode({ _tag: "Stop" }), send).pipe(Effect.ignore)
        yield* connection.close
      })
      const command = (c: { readonly _tag: "Mark"; readonly name: string } | { readonly _tag: "Clear" }) =>
        Effect.flatMap(codec.encode(c), send).pipe(Effect.catchAll((e) => Effect.logWarning(`media: ${e.message}`)))
      const transferOf = (service: Transfers) => (request: TransferRequest) =>
        service.start({
          organizationId: call.attempt.organizationId,
          runId: call.attempt.runId!,
          attemptId: call.attempt.id,
          telephonyConfigurationId: call.attempt.telephonyConfigurationId,
          providerCallId: providerCallId ?? call.attempt.providerCallId ?? "",
          route: call.route
        }, request).pipe(
          Effect.map((t) => ({ transferId: t.transfer_uuid, mode: t.mode, status: t.status, cause: t.cause })),
          Effect.withSpan("MediaStreams.transfer")
        )
      const withTransfers: Pick<CallAudio, "transfer" | "leave"> = Option.isNone(transfers) ? {} : {
        transfer: transferOf(transfers.value),
        // The provider carries the call on (bridged): this side only stops streaming.
        leave: Effect.zipRight(Effect.flatMap(codec.encode({ _tag: "Stop" }), send).pipe(Effect.ignore), connection.close)
      }
      // The attempt ends first: the provider's own report of the hang-up (completed) then comes after a
      // final state and changes nothing.
      const endAs = (outcome: "voicemail" | "failed", cause: string) =>
        Effect.gen(function*() {
          const at = yield* Clock.currentTimeMillis
          yield* dispatcher.handleEvent(AttemptId.make(call.attempt.id), {
            type: "ended",
            providerCallId: providerCallId ?? call.attempt.providerCallId ?? "",
            at,
            outcome,
            durationSeconds: Math.round((at - connectedAt) / 1000),
            hangupCause: cause
          }, { durable: true }).pipe(Effect.catchAllCause((c) => Effect.logWarning(`media: could not end the attempt as ${outcome}`, c)))
          yield* hangUp
        })
      const audio: CallAudio = {
        ...withTransfers,
        provider: call.route.provider.name,
        attemptId: AttemptId.make(call.attempt.id),
        runId: call.attempt.runId!,
        providerCallId,
        streamId: start.value.streamId,
        sampleRate: format.sampleRate,
        parameters: start.value.parameters,
        incoming,
        play,
        outgoing: Sink.forEach(play),
        mark: (name) => command({ _tag: "Mark", name }),
        clear: command({ _tag: "Clear" }),
        hangUp,
        endAsVoicemail: (reason) => endAs("voicemail", `answering machine detected by the agent (${reason})`),
        endAsFailed: (reason) => endAs("failed", `the agent could not talk: ${reason}`)
      }
      // The run's post-call work (run.ended, webhook nodes) waits for what the handler writes.
      yield* postCall.mediaStarted(audio.runId)
      yield* handler.handle(audio).pipe(
        // The conversation is part of the call's trace (the voice runtime's turns are children of it).
        Option.match(traces, {
          onNone: () => Effect.withSpan(SpanNames.media, { attributes: { "agentline.attempt_id": call.attempt.id } }),
          onSome: (t) => t.within(call.attempt.id, SpanNames.media, { "agentline.provider": audio.provider })
        }),
        Effect.catchAllCause((cause) => Effect.logError("media: the call audio handler failed", cause)),
        // Forked, not run in the finalizer: a finalizer cannot be interrupted, and database work there
        // could hold a shutdown; a run whose session end is not recorded gets its post-call work from
        // the sweep instead.
        Effect.ensuring(FiberSet.run(
          settlers,
          postCall.mediaEnded(audio.runId).pipe(
            Effect.catchAllCause((cause) => Effect.logWarning("media: the session's end was not recorded; the post-call sweep will finish the run", cause))
          )
        ))
      )
      yield* connection.close
      if (providerCallId !== undefined) yield* FiberSet.run(settlers, settle(call, providerCallId))
    }, Effect.scoped, (self, call) =>
      Effect.annotateLogs(self, {
        attempt_id: call.attempt.id,
        organization_id: call.attempt.organizationId,
        ...(call.attempt.runId !== null ? { run_id: call.attempt.runId } : {}),
        ...(call.attempt.campaignId !== null ? { campaign_id: call.attempt.campaignId } : {})
      }))

    return { open, serve } as const
  })
}) {}
