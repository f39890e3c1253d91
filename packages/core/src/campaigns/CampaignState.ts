/**
 * The campaign state machine: one table, one pure function. Every API operation and every dispatcher
 * decision goes through `transition`, so the HTTP layer and the dispatcher cannot disagree about what a
 * state allows; a refusal names the current state and what would be allowed.
 *
 * completed, failed and canceled are terminal: nothing leaves them. Redial is allowed on a completed
 * campaign but leaves it completed (it creates a child campaign).
 */
import { Data, Either } from "effect"

export type CampaignState = "draft" | "running" | "paused" | "completed" | "failed" | "canceled"
export type CampaignAction =
  | "start"
  | "pause"
  | "resume"
  | "cancel"
  | "update"
  | "complete"
  | "fail"
  | "trip_breaker"
  | "redial"

export const STATES: ReadonlyArray<CampaignState> = ["draft", "running", "paused", "completed", "failed", "canceled"]
export const ACTIONS: ReadonlyArray<CampaignAction> = [
  "start",
  "pause",
  "resume",
  "cancel",
  "update",
  "complete",
  "fail",
  "trip_breaker",
  "redial"
]

interface Rule {
  /** The states the action is allowed from. */
  readonly from: ReadonlyArray<CampaignState>
  /** The state it leads to; `same` leaves the state unchanged (settings edits, redial). */
  readonly to: CampaignState | "same"
  /** Completes "Cannot <verb> a campaign in state 'x': …". */
  readonly verb: string
  readonly allowed: string
}

const TABLE: { readonly [A in CampaignAction]: Rule } = {
  start: { from: ["draft", "paused"], to: "running", verb: "start", allowed: "only a draft or paused campaign can be started" },
  pause: { from: ["running"], to: "paused", verb: "pause", allowed: "only a running campaign can be paused" },
  resume: { from: ["paused"], to: "running", verb: "resume", allowed: "only a paused campaign can be resumed" },
  cancel: {
    from: ["draft", "running", "paused"],
    to: "canceled",
    verb: "cancel",
    allowed: "only a draft, running or paused campaign can be canceled"
  },
  update: {
    from: ["draft", "paused"],
    to: "same",
    verb: "update",
    allowed: "settings can be changed only while a campaign is draft or paused"
  },
  complete: { from: ["running"], to: "completed", verb: "complete", allowed: "only a running campaign can complete" },
  fail: { from: ["running"], to: "failed", verb: "fail", allowed: "only a running campaign can fail" },
  trip_breaker: {
    from: ["running"],
    to: "paused",
    verb: "trip the circuit breaker of",
    allowed: "the circuit breaker pauses only a running campaign"
  },
  redial: { from: ["completed"], to: "same", verb: "redial", allowed: "only a completed campaign can be redialed" }
}

export class TransitionRefused extends Data.TaggedError("TransitionRefused")<{
  readonly state: CampaignState
  readonly action: CampaignAction
  /** The states `action` would have been allowed from. */
  readonly allowedFrom: ReadonlyArray<CampaignState>
  readonly message: string
}> {}

export const isTerminal = (state: CampaignState): boolean =>
  state === "completed" || state === "failed" || state === "canceled"

/** A hint for the caller on how to get to a state where the action works, when there is one. */
const hint = (state: CampaignState, action: CampaignAction): string => {
  if (isTerminal(state) && action !== "redial") return ` (a ${state} campaign is finished)`
  if (state === "running" && action === "update") return "; pause it first"
  if (state === "running" && action === "start") return " (it is already running)"
  if (state === "paused" && action === "pause") return " (it is already paused)"
  return ""
}

/** The next state, or why the action is refused in this state. */
export const transition = (state: CampaignState, action: CampaignAction): Either.Either<CampaignState, TransitionRefused> => {
  const rule = TABLE[action]
  if (!rule.from.includes(state)) {
    return Either.left(
      new TransitionRefused({
        state,
        action,
        allowedFrom: rule.from,
        message: `Cannot ${rule.verb} a campaign in state '${state}': ${rule.allowed}${hint(state, action)}`
      })
    )
  }
  return Either.right(rule.to === "same" ? state : rule.to)
}

/** The actions a campaign in `state` accepts, in `ACTIONS` order. */
export const allowedActions = (state: CampaignState): ReadonlyArray<CampaignAction> =>
  ACTIONS.filter((action) => TABLE[action].from.includes(state))

// ------------------------------------------------------------------------------------------ log entries

export type LogLevel = "info" | "warning" | "error"

/** One entry of a campaign's append-only `logs` (stored oldest first). */
export interface LogEntry {
  readonly ts: string
  readonly level: LogLevel
  readonly event: string
  readonly message: string
  readonly details: Record<string, unknown>
}

/** `ts` as epoch millis (from `Clock`) or an ISO string; stored as ISO UTC either way. */
export const logEntry = (
  ts: number | string,
  level: LogLevel,
  event: string,
  message: string,
  details: Record<string, unknown> = {}
): LogEntry => ({
  ts: typeof ts === "number" ? new Date(ts).toISOString() : ts,
  level,
  event,
  message,
  details
})
