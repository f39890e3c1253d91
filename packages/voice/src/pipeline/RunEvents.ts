/**
 * What the runtime appends to a run's `logs.realtime_feedback_events` besides the executor's own
 * events (`graph/FeedbackEvents.ts`), in the reference's `{type, payload}` shape, and the log that
 * collects them with their times.
 */
import type { ToolCallRecord } from "@agentline/core/tools/ToolResults"
import { Clock, Effect } from "effect"
import { type FeedbackEvent, stamp } from "../graph/FeedbackEvents.js"

export interface UserTranscriptionEvent {
  readonly type: "rtf-user-transcription"
  readonly payload: { readonly text: string; readonly final: boolean }
}

export interface DoNotCallEvent {
  readonly type: "rtf-do-not-call"
  readonly payload: { readonly phrase: string; readonly phone_number: string }
}

export interface InterruptionEvent {
  readonly type: "rtf-interruption"
  readonly payload: { readonly speech_started_at_ms: number; readonly decided_at_ms: number; readonly cleared_at_ms: number }
}

export interface VoicemailDetectedEvent {
  readonly type: "rtf-voicemail-detected"
  readonly payload: { readonly reason: string }
}

/** One call of an organization's tool: arguments, status, latency, result size (`ToolResults.ts`). */
export interface ToolCallEvent {
  readonly type: "rtf-tool-call"
  readonly payload: ToolCallRecord & { readonly tool_call_id: string }
}

export type RunEvent = FeedbackEvent | UserTranscriptionEvent | DoNotCallEvent | InterruptionEvent | VoicemailDetectedEvent | ToolCallEvent

export type StampedEvent = RunEvent & { readonly timestamp: string }

/** The run's event log: events stamped with the Clock's time as they are noted. */
export const makeEventLog = () => {
  const events: Array<StampedEvent> = []
  const noteAt = (list: ReadonlyArray<RunEvent>, atMillis: number): void => {
    for (const event of list) events.push(stamp<RunEvent>(event, new Date(atMillis)))
  }
  return {
    events: (): ReadonlyArray<StampedEvent> => events,
    note: (list: ReadonlyArray<RunEvent>) => Effect.map(Clock.currentTimeMillis, (now) => noteAt(list, now)),
    noteAt
  } as const
}

export type EventLog = ReturnType<typeof makeEventLog>
