/**
 * The run's save: a finished session's recordings and transcript to the blob store, and its gathered
 * context, transcript, events, usage and costs merged into the run (the dispatcher writes its own keys
 * at the call's end, before or after). Also the recordings an agent plays, loaded once per call.
 */
import { BlobStore } from "@agentline/core/blobs/BlobStore"
import { loadPlayable, type PlayableRecording } from "@agentline/core/recordings/Recordings"
import { RecordingsRepo } from "@agentline/core/recordings/RecordingsRepo"
import type { RunId } from "@agentline/api/Ids"
import { RunsRepo } from "@agentline/core/runs/RunsRepo"
import { iso } from "@agentline/core/Time"
import { Cause, Clock, Effect, Either, Option, Stream } from "effect"
import { recordings, transcriptJson, transcriptText } from "../session/CallRecord.js"
import { type CallUsage, costOf, Prices } from "../session/Costs.js"
import type { SessionResult } from "./Session.js"

/** Artifacts larger than this are not stored (a 20-minute call at 16 kHz is about 40 MB). */
const MAX_ARTIFACT_BYTES = 200 * 1024 * 1024

/** The call's usage by service name, for `usage_info` and prices. */
export const callUsage = (result: SessionResult, names: { readonly llm: string | undefined; readonly stt: string; readonly tts: string }): CallUsage => ({
  llm: names.llm !== undefined ? { [names.llm]: { inputTokens: result.tokens.inputTokens, outputTokens: result.tokens.outputTokens } } : {},
  stt: { [names.stt]: { seconds: result.sttSeconds } },
  tts: { [names.tts]: { characters: result.ttsCharacters } }
})

/** Calls per organization tool, with how many failed and their summed latency (`usage_info.tool_calls`). */
export const toolUsage = (calls: SessionResult["toolCalls"]) => {
  const out: Record<string, { calls: number; errors: number; latency_ms: number }> = {}
  for (const c of calls) {
    const u = out[c.name] ?? { calls: 0, errors: 0, latency_ms: 0 }
    u.calls++
    if (c.status === "error") u.errors++
    u.latency_ms += c.latencyMs
    out[c.name] = u
  }
  return out
}

export class RunSave extends Effect.Service<RunSave>()("@agentline/voice/RunSave", {
  effect: Effect.gen(function*() {
    const runs = yield* RunsRepo
    const blobs = yield* BlobStore
    const recordingsRepo = yield* RecordingsRepo
    const prices = yield* Prices

    const readBlob = (key: string) =>
      Effect.gen(function*() {
        const stream = yield* Effect.option(blobs.stream(key))
        if (Option.isNone(stream)) return Option.none<Uint8Array>()
        const chunks = [...(yield* Stream.runCollect(stream.value))]
        const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0))
        let offset = 0
        for (const chunk of chunks) {
          bytes.set(chunk, offset)
          offset += chunk.length
        }
        return Option.some(bytes)
      })

    /** A loader of the organization's recordings for one call: each loaded once (a transition taken twice plays the same audio). */
    const recordingLoader = (organizationId: number) => {
      const loaded = new Map<string, Either.Either<PlayableRecording, string>>()
      return (recordingId: string) =>
        Effect.gen(function*() {
          const known = loaded.get(recordingId)
          if (known !== undefined) return known
          // Storage failing while the call runs is one more reason the recording cannot be played, not the call's end.
          const result = yield* loadPlayable(recordingsRepo, readBlob, organizationId, recordingId).pipe(
            Effect.catchAllDefect((defect) =>
              Effect.succeed(Either.left(`recording '${recordingId}' could not be loaded (${Cause.pretty(Cause.die(defect)).split("\n")[0]})`))
            )
          )
          loaded.set(recordingId, result)
          return result
        })
    }

    const noteError = (runId: RunId, error: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => runs.update(runId, { merge: { gathered_context: { error } } }, iso(now)))

    /** The call's results on its run: merged with what the dispatcher writes at the call's end, whichever comes first. */
    const save = Effect.fn("RunSave.save")(function*(
      runId: RunId,
      organizationId: number,
      result: SessionResult,
      usage: CallUsage,
      voiceActivityDetector: string
    ) {
      const prefix = `${organizationId}/runs/${runId}`
      const files = recordings(result.record, result.durationMs)
      const put = (name: string, bytes: Uint8Array, contentType: string) =>
        Effect.as(blobs.put(`${prefix}/${name}`, Stream.make(bytes), { maxBytes: MAX_ARTIFACT_BYTES, contentType }), `${prefix}/${name}`)
      const artifacts: Partial<Record<"recording" | "user_recording" | "bot_recording" | "transcript", string>> = yield* Effect.all({
        recording: put("recording.wav", files.recording, "audio/wav"),
        user_recording: put("user.wav", files.user_recording, "audio/wav"),
        bot_recording: put("bot.wav", files.bot_recording, "audio/wav"),
        transcript: put("transcript.txt", new TextEncoder().encode(transcriptText(result.record, result.startedAt)), "text/plain; charset=utf-8")
      }).pipe(Effect.catchAll((error) => Effect.as(Effect.logError("Could not store the call's recordings", error), {})))
      const { call_disposition, call_tags, mapped_call_disposition, ...gathered } = result.state.gatheredContext
      const tools = toolUsage(result.toolCalls)
      yield* runs.update(runId, {
        artifacts,
        merge: {
          gathered_context: { ...gathered, call_disposition, mapped_call_disposition, call_tags, end_reason: result.state.ending },
          logs: {
            realtime_feedback_events: result.events,
            transcript: transcriptJson(result.record),
            turn_latency_ms: result.latencies,
            // Which detector decided the turns (docs/voice.md, AGENTLINE_VAD).
            voice_activity_detector: voiceActivityDetector,
            ...(result.toolCalls.length > 0 ? { tool_calls: result.events.flatMap((e) => e.type === "rtf-tool-call" ? [e.payload] : []) } : {})
          },
          // The reference's shape: tokens per model, characters per voice; seconds of audio per recognizer.
          usage_info: {
            llm: Object.fromEntries(Object.entries(usage.llm).map(([key, u]) => [key, {
              prompt_tokens: u.inputTokens,
              completion_tokens: u.outputTokens,
              total_tokens: u.inputTokens + u.outputTokens
            }])),
            tts: Object.fromEntries(Object.entries(usage.tts).map(([key, u]) => [key, u.characters])),
            stt: Object.fromEntries(Object.entries(usage.stt).map(([key, u]) => [key, Math.round(u.seconds * 100) / 100])),
            ...(Object.keys(tools).length > 0 ? { tool_calls: tools } : {}),
            conversation_duration_seconds: Math.round(result.durationMs / 10) / 100
          },
          cost_info: costOf(prices, usage)
        }
      }, iso(yield* Clock.currentTimeMillis))
    })

    return { save, recordingLoader, noteError } as const
  })
}) {}
