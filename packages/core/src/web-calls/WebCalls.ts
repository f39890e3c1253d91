/**
 * Web calls (docs/web-calls.md): a conversation with an agent by voice from a browser, without a phone
 * number. `create` makes the run (mode `webcall`, the agent's latest version, its draft when it has
 * one, as text chat does) and a short-lived single-use token; the WebSocket that presents the token
 * (`open`, then `serve`) is the call's audio, both ways, handed to the same `CallAudioHandler` (the
 * voice runtime) as a phone call's media stream. The run is a normal run: the runtime writes its
 * transcript, recordings, usage and cost; here it is completed and its post-call work runs.
 */
import type { Principal } from "@agentline/api/Authentication"
import { AttemptId, DefinitionId, OrganizationId, RunId, WorkflowId } from "@agentline/api/Ids"
import type { WebSocketFrame } from "@agentline/telephony-kit/Media"
import { Cause, Clock, Effect, Option, Queue, Sink, Stream } from "effect"
import * as Crypto from "node:crypto"
import { sha256 } from "../crypto/Digest.js"
import { type CallAudio, type CallAudioEvent, CallAudioHandler, type CallNotice } from "../audio/CallAudio.js"
import { makeFramer } from "../audio/Frames.js"
import * as Pcm from "../audio/Pcm.js"
import { type MediaConnection, takeFrames } from "../media/MediaStreams.js"
import { PostCall } from "../runs/PostCall.js"
import type { StoredRun } from "../runs/Run.js"
import { RunsRepo } from "../runs/RunsRepo.js"
import { iso } from "../Time.js"
import { WorkflowNotFound } from "../workflows/Errors.js"
import { WorkflowsRepo } from "../workflows/WorkflowsRepo.js"
import { WebCallTokensRepo } from "./WebCallTokensRepo.js"
import { encodeAudio, FRAME_BYTES, MAX_AUDIO_MESSAGE_BYTES, parseClientMessage, type ServerMessage, WIRE_SAMPLE_RATE } from "./WebCallWire.js"

/** The run mode of web calls (the reference's, as the embed's voice widget). */
export const WEB_CALL_MODE = "webcall"

/** A token opens its socket within a minute, once. */
export const WEB_CALL_TOKEN_TTL_MILLIS = 60_000


export interface CreatedWebCall {
  readonly run: StoredRun
  readonly token: string
  readonly expiresAt: string
}

export class WebCalls extends Effect.Service<WebCalls>()("@agentline/core/WebCalls", {
  effect: Effect.gen(function*() {
    const tokens = yield* WebCallTokensRepo
    const runs = yield* RunsRepo
    const workflows = yield* WorkflowsRepo
    const handler = yield* CallAudioHandler
    const postCall = yield* PostCall

    /** A new web call's run with the agent's latest version, and the token its socket opens with. */
    const create = Effect.fn("WebCalls.create")(function*(
      principal: Principal,
      workflowId: number,
      request: { readonly name?: string | null | undefined; readonly initial_context?: Record<string, unknown> | null | undefined }
    ) {
      const agent = yield* workflows.find(principal.organizationId, workflowId, "latest")
      if (Option.isNone(agent)) return yield* new WorkflowNotFound({ workflowId })
      const now = yield* Clock.currentTimeMillis
      const run = yield* runs.insert({
        organization_id: OrganizationId.make(principal.organizationId),
        workflow_id: WorkflowId.make(workflowId),
        campaign_id: null,
        definition_id: DefinitionId.make(agent.value.definition_id),
        name: request.name?.trim() || `WR-WEB-${Crypto.randomBytes(4).toString("hex").toUpperCase()}`,
        mode: WEB_CALL_MODE,
        call_type: "inbound",
        initial_context: { ...agent.value.template_context_variables, ...request.initial_context, provider: WEB_CALL_MODE, direction: "inbound" },
        gathered_context: null,
        logs: null,
        now: iso(now)
      })
      const source = principal.via._tag === "ApiKey" ? "api" : "dashboard"
      const annotated = yield* runs.update(run.id, { annotations: { web_call: { source } } }, iso(now))
      const token = Crypto.randomBytes(32).toString("base64url")
      const expiresAt = iso(now + WEB_CALL_TOKEN_TTL_MILLIS)
      yield* tokens.insert({ tokenHash: sha256(token), runId: RunId.make(run.id), organizationId: principal.organizationId, now: iso(now), expiresAt })
      return { run: Option.getOrElse(annotated, () => run), token, expiresAt } satisfies CreatedWebCall
    })

    /** The run a token opens, once; none for a wrong, reused or expired token or a run already over. */
    const open = Effect.fn("WebCalls.open")(function*(token: string) {
      if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return Option.none<StoredRun>()
      const runId = yield* tokens.redeem({ tokenHash: sha256(token), now: iso(yield* Clock.currentTimeMillis) })
      if (Option.isNone(runId)) return Option.none<StoredRun>()
      const run = yield* runs.findById(runId.value)
      return Option.filter(run, (r) => !r.is_completed && r.mode === WEB_CALL_MODE)
    })

    /** The call on an opened socket, until it ends; then the run is completed. */
    const serve = Effect.fn("WebCalls.serve")(function*(run: StoredRun, connection: MediaConnection) {
      const incoming = yield* Queue.unbounded<CallAudioEvent | undefined>()
      const framer = makeFramer(FRAME_BYTES, 2)
      const send = (message: ServerMessage) => connection.send({ _tag: "Text", text: JSON.stringify(message) })
      const connectedAt = yield* Clock.currentTimeMillis
      /** How the runtime ended the call, when it did (the caller's hang-up leaves it unset). */
      let ending: { readonly reason: string; readonly error?: string } | undefined
      const endBy = (reason: string, error?: string) =>
        Effect.zipRight(Effect.sync(() => void (ending ??= error === undefined ? { reason } : { reason, error })), incoming.offer(undefined))

      const receive = (frame: WebSocketFrame) => {
        if (frame._tag === "Text") return parseClientMessage(frame.text)?.type === "hangup" ? incoming.offer(undefined) : Effect.void
        if (frame.data.length > MAX_AUDIO_MESSAGE_BYTES) return Effect.void
        return Effect.forEach(framer.push(frame.data), (bytes) =>
          incoming.offer({ _tag: "Audio", frame: { sampleRate: WIRE_SAMPLE_RATE, samples: Pcm.decodeToPcm16("l16le", bytes) } }), { discard: true })
      }
      const receiving = Effect.gen(function*() {
        while (true) {
          const frames = yield* takeFrames(connection.frames)
          if (Option.isNone(frames)) return
          for (const frame of frames.value) yield* receive(frame)
        }
      })
      yield* Effect.forkScoped(receiving.pipe(Effect.ensuring(incoming.offer(undefined))))

      const play = (frame: Pcm.PcmFrame) => connection.send({ _tag: "Binary", data: encodeAudio(frame) })
      const notify = (notice: CallNotice) =>
        send(
          notice._tag === "Latency"
            ? { type: "latency", ms: notice.ms }
            : { type: "transcript", role: notice.role, text: notice.text, start_ms: Math.round(notice.startMs), end_ms: Math.round(notice.endMs), interrupted: notice.interrupted }
        )
      const audio: CallAudio = {
        provider: WEB_CALL_MODE,
        // A web call has no telephony attempt; the run's id stands in where one is logged.
        attemptId: AttemptId.make(run.id),
        runId: RunId.make(run.id),
        providerCallId: undefined,
        streamId: `webcall-${run.id}`,
        sampleRate: WIRE_SAMPLE_RATE,
        parameters: {},
        incoming: Stream.fromQueue(incoming).pipe(Stream.takeWhile((e): e is CallAudioEvent => e !== undefined)),
        play,
        outgoing: Sink.forEach(play),
        // The browser plays what it gets at once; nothing waits for marks.
        mark: () => Effect.void,
        clear: send({ type: "clear" }),
        hangUp: endBy("agent_hangup"),
        endAsVoicemail: (reason) => endBy("voicemail", reason),
        endAsFailed: (reason) => endBy("failed", reason),
        notify
      }
      yield* send({ type: "ready", run_id: run.id, sample_rate: WIRE_SAMPLE_RATE })
      yield* postCall.mediaStarted(run.id)
      yield* handler.handle(audio).pipe(
        Effect.withSpan("agentline.web_call", { attributes: { "agentline.run_id": run.id } }),
        Effect.catchAllCause((cause) => Cause.isInterruptedOnly(cause) ? Effect.interrupt : Effect.logError("web call: the call audio handler failed", cause))
      )
      const endedAt = yield* Clock.currentTimeMillis
      const seconds = Math.round((endedAt - connectedAt) / 1000)
      yield* runs.update(run.id, {
        is_completed: true,
        merge: {
          gathered_context: { outcome: ending?.reason === "failed" ? "failed" : "completed" },
          usage_info: { call_duration_seconds: seconds },
          cost_info: { call_duration_seconds: seconds }
        }
      }, iso(endedAt))
      yield* postCall.mediaEnded(run.id).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("web call: the session's end was not recorded; the post-call sweep will finish the run", cause))
      )
      yield* send({ type: "end", run_id: run.id, reason: ending?.reason ?? "user_hangup", ...(ending?.error !== undefined ? { error: ending.error } : {}) })
      yield* connection.close
    }, Effect.scoped, (self, run) => Effect.annotateLogs(self, { run_id: run.id, organization_id: run.organization_id }))

    return { create, open, serve } as const
  })
}) {}
