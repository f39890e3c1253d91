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
import { Clock, Deferred, Effect, FiberSet, Option, Queue, Schedule, Sink, Stream } from "effect"
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
  /** The provider's frames; ends when the socket closes. */
  readonly frames: Stream.Stream<WebSocketFrame>
  readonly send: (frame: WebSocketFrame) => Effect.Effect<void>
  readonly close: Effect.Effect<void>
}

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
        const status = yield* call.route.calls.get(providerCallId).pipe(
          Effect.filterOrFail((s) => s._tag === "Ended"),
          Effect.retry(Schedule.spaced("1 second").pipe(Schedule.intersect(Schedule.recurs(5)))),
          Effect.option
        )
        if (Option.isNone(status) || status.value._tag !== "Ended") return
        const current = yield* dispatch.findAttempt(call.attempt.id)
        if (Option.isNone(current) || (current.value.state !== "dialing" && current.value.state !== "claimed")) return
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
      const incoming = yield* Queue.unbounded<CallAudioEvent | undefined>()
      const started = yield* Deferred.make<Start>()
      const send = (frames: ReadonlyArray<WebSocketFrame>) => Effect.forEach(frames, connection.send, { discard: true })
      const deliver = (event: MediaEvent) => {
        switch (event._tag) {
          case "Start":
            return Deferred.succeed(started, event)
          case "Audio":
            return incoming.offer({ _tag: "Audio", frame: Pcm.decode(event.audio) })
          case "Dtmf":
            return incoming.offer({ _tag: "Dtmf", digit: event.digit })
          case "Mark":
            return incoming.offer({ _tag: "MarkReached", name: event.name })
          case "Stop":
            return incoming.offer(undefined)
        }
      }
      const reading = connection.frames.pipe(
        Stream.runForEach((frame) =>
          codec.decode(frame).pipe(
            Effect.catchAll((e) => Effect.as(Effect.logWarning(`media: ${e.message}`), [])),
            Effect.flatMap((events) => Effect.forEach(events, deliver, { discard: true }))
          )
        ),
        Effect.ensuring(incoming.offer(undefined))
      )
      yield* Effect.forkScoped(reading)
      const start = yield* Deferred.await(started).pipe(Effect.timeout(START_TIMEOUT), Effect.option)
      if (Option.isNone(start)) {
        yield* Effect.logWarning(`media: the stream of attempt ${call.attempt.id} never started`)
        return yield* connection.close
      }
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
        incoming: Stream.fromQueue(incoming).pipe(Stream.takeWhile((e): e is CallAudioEvent => e !== undefined)),
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
