/**
 * The campaign state machine: one table, one pure function. Every API operation and every dispatcher
 * decision goes through `transition`; a refusal names the current state and what would be allowed.
 */
import { Either } from "effect"

export type CampaignState = "draft" | "running" | "paused" | "completed" | "failed" | "canceled"
export type CampaignAction = "start" | "pause" | "resume" | "cancel" | "update" | "complete" | "fail" | "trip_breaker" | "redial"

export const STATES: ReadonlyArray<CampaignState> = ["draft", "running", "paused", "completed", "failed", "canceled"]
export const ACTIONS: ReadonlyArray<CampaignAction> = ["start", "pause", "resume", "cancel", "update", "complete", "fail", "trip_breaker", "redial"]

/** For each action: the states it is allowed from, and the state it leads to (`same`: unchanged). */
const TABLE: Record<CampaignAction, { readonly from: ReadonlyArray<CampaignState>; readonly to: CampaignState | "same"; readonly rule: string }> = {
  start: { from: ["draft", "paused"], to: "running", rule: "a draft or paused campaign can be started" },
  pause: { from: ["running"], to: "paused", rule: "only a running campaign can be paused" },
  resume: { from: ["paused"], to: "running", rule: "only a paused campaign can be resumed" },
  cancel: { from: ["draft", "running", "paused"], to: "canceled", rule: "a finished campaign cannot be canceled" },
  update: { from: ["draft", "paused"], to: "same", rule: "settings change only while draft or paused; pause a running campaign first" },
  complete: { from: ["running"], to: "completed", rule: "only a running campaign completes" },
  fail: { from: ["running"], to: "failed", rule: "only a running campaign fails" },
  trip_breaker: { from: ["running"], to: "paused", rule: "the circuit breaker pauses running campaigns only" },
  redial: { from: ["completed"], to: "same", rule: "only completed campaigns can be redialed" }
}

export class TransitionRefused {
  readonly _tag = "TransitionRefused"
  constructor(readonly state: CampaignState, readonly action: CampaignAction, readonly message: string) {}
}

export const isTerminal = (state: CampaignState): boolean => state === "completed" || state === "failed" || state === "canceled"

export const transition = (state: CampaignState, action: CampaignAction): Either.Either<CampaignState, TransitionRefused> => {
  const entry = TABLE[action]
  if (!entry.from.includes(state)) {
    const verb = action === "trip_breaker" ? "trip the breaker of" : action
    return Either.left(new TransitionRefused(state, action, `Cannot ${verb} a campaign in state '${state}': ${entry.rule}`))
  }
  return Either.right(entry.to === "same" ? state : entry.to)
}

export interface LogEntry {
  readonly ts: string
  readonly level: "info" | "warning" | "error"
  readonly event: string
  readonly message: string
  readonly details: Record<string, unknown>
}

export const logEntry = (
  ts: string,
  level: LogEntry["level"],
  event: string,
  message: string,
  details: Record<string, unknown> = {}
): LogEntry => ({ ts, level, event, message, details })
