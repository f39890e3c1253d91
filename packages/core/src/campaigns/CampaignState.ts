/**
 * The campaign state machine: one table, one pure function. Every API operation and every dispatcher
 * decision goes through `transition`, so the HTTP layer and the dispatcher cannot disagree about what a
 * state allows; a refusal names the current state and what would be allowed.
 *
 * completed, failed and canceled are terminal: nothing leaves them. Redial is allowed on a completed
 * campaign but leaves it completed (it creates a child campaign).
 */
import { CampaignState } from "@agentline/api/campaigns/Campaign"
import { Either, Schema } from "effect"

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

export const STATES: ReadonlyArray<CampaignState> = CampaignState.literals
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
  /** A timestamp column the change sets: the first start, the completion, the breaker's fresh window. */
  readonly stamps?: "started_at" | "completed_at" | "breaker_reset_at"
  /** Allowed only once no contact is queued or being dialed (checked in the same write). */
  readonly whenSettled?: true
}

const TABLE: { readonly [A in CampaignAction]: Rule } = {
  start: {
    from: ["draft", "paused"],
    to: "running",
    verb: "start",
    allowed: "only a draft or paused campaign can be started",
    stamps: "started_at"
  },
  pause: { from: ["running"], to: "paused", verb: "pause", allowed: "only a running campaign can be paused" },
  resume: {
    from: ["paused"],
    to: "running",
    verb: "resume",
    allowed: "only a paused campaign can be resumed",
    stamps: "breaker_reset_at"
  },
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
  complete: {
    from: ["running"],
    to: "completed",
    verb: "complete",
    allowed: "only a running campaign can complete",
    stamps: "completed_at",
    whenSettled: true
  },
  fail: { from: ["running"], to: "failed", verb: "fail", allowed: "only a running campaign can fail" },
  trip_breaker: {
    from: ["running"],
    to: "paused",
    verb: "trip the circuit breaker of",
    allowed: "the circuit breaker pauses only a running campaign"
  },
  redial: { from: ["completed"], to: "same", verb: "redial", allowed: "only a completed campaign can be redialed" }
}

/** `action` is not allowed in state `from`; `allowedFrom` lists the states it would have been allowed from. */
export class InvalidTransition extends Schema.TaggedError<InvalidTransition>()("InvalidTransition", {
  from: CampaignState,
  action: Schema.String,
  allowedFrom: Schema.Array(CampaignState),
  message: Schema.String
}) {}

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
export const transition = (state: CampaignState, action: CampaignAction): Either.Either<CampaignState, InvalidTransition> => {
  const rule = TABLE[action]
  if (!rule.from.includes(state)) {
    return Either.left(
      new InvalidTransition({
        from: state,
        action,
        allowedFrom: rule.from,
        message: `Cannot ${rule.verb} a campaign in state '${state}': ${rule.allowed}${hint(state, action)}`
      })
    )
  }
  return Either.right(rule.to === "same" ? state : rule.to)
}

/** The actions that move a campaign to another state (settings edits and redial leave it where it is). */
export type StateChange = Exclude<CampaignAction, "update" | "redial">

/**
 * What storage applies for a state change: from which states, to which, and what else the same
 * write does. Storage applies exactly this, so the table above is the only writer of campaign state.
 */
export const stateChange = (action: StateChange) => {
  const rule = TABLE[action]
  return {
    from: rule.from,
    to: rule.to as CampaignState,
    stamps: rule.stamps,
    whenSettled: rule.whenSettled === true
  }
}
