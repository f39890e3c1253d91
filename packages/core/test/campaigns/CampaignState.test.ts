import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { logEntry } from "../../src/campaigns/CampaignLog.js"
import { ACTIONS, type CampaignAction, isTerminal, stateChange, STATES, transition, InvalidTransition } from "../../src/campaigns/CampaignState.js"
import { type CampaignState } from "@agentline/api/campaigns/Campaign"

const allowedActions = (state: CampaignState) => ACTIONS.filter((action) => Either.isRight(transition(state, action)))

// Written out by hand from the rules, not derived from the implementation's table. `-` = refused.
// The Record types make the table complete: a missing state or action does not compile.
const _ = null
const EXPECTED: Record<CampaignState, Record<CampaignAction, CampaignState | null>> = {
  draft: { start: "running", pause: _, resume: _, cancel: "canceled", update: "draft", complete: _, fail: _, trip_breaker: _, redial: _ },
  running: {
    start: _,
    pause: "paused",
    resume: _,
    cancel: "canceled",
    update: _,
    complete: "completed",
    fail: "failed",
    trip_breaker: "paused",
    redial: _
  },
  paused: { start: "running", pause: _, resume: "running", cancel: "canceled", update: "paused", complete: _, fail: _, trip_breaker: _, redial: _ },
  completed: { start: _, pause: _, resume: _, cancel: _, update: _, complete: _, fail: _, trip_breaker: _, redial: "completed" },
  failed: { start: _, pause: _, resume: _, cancel: _, update: _, complete: _, fail: _, trip_breaker: _, redial: _ },
  canceled: { start: _, pause: _, resume: _, cancel: _, update: _, complete: _, fail: _, trip_breaker: _, redial: _ }
}

/** The states each action is allowed from, also by hand: a refusal must name them. */
const ALLOWED_FROM: Record<CampaignAction, ReadonlyArray<CampaignState>> = {
  start: ["draft", "paused"],
  pause: ["running"],
  resume: ["paused"],
  cancel: ["draft", "running", "paused"],
  update: ["draft", "paused"],
  complete: ["running"],
  fail: ["running"],
  trip_breaker: ["running"],
  redial: ["completed"]
}

describe("every (state, action) pair", () => {
  it("the lists of states and actions are complete", () => {
    expect([...STATES].sort()).toEqual(Object.keys(EXPECTED).sort())
    expect([...ACTIONS].sort()).toEqual(Object.keys(ALLOWED_FROM).sort())
  })

  for (const state of STATES) {
    for (const action of ACTIONS) {
      const expected = EXPECTED[state][action]
      it(`${state} --${action}--> ${expected ?? "refused"}`, () => {
        const result = transition(state, action)
        if (expected !== null) {
          expect(result).toEqual(Either.right(expected))
          return
        }
        if (Either.isRight(result)) return expect.fail(`${state} ${action} should be refused, got ${result.right}`)
        const refused = result.left
        expect(refused).toBeInstanceOf(InvalidTransition)
        expect(refused._tag).toBe("InvalidTransition")
        expect(refused.from).toBe(state)
        expect(refused.action).toBe(action)
        expect(refused.allowedFrom).toEqual(ALLOWED_FROM[action])
        expect(refused.message).toMatch(new RegExp(`^Cannot .+ a campaign in state '${state}': `))
        // The message says which states would have worked.
        for (const allowed of ALLOWED_FROM[action]) expect(refused.message).toContain(allowed)
      })
    }
  }
})

describe("refusal messages", () => {
  const message = (state: CampaignState, action: CampaignAction) =>
    Either.match(transition(state, action), { onLeft: (e) => e.message, onRight: () => "allowed" })

  it.each([
    ["draft", "pause", "Cannot pause a campaign in state 'draft': only a running campaign can be paused"],
    ["draft", "resume", "Cannot resume a campaign in state 'draft': only a paused campaign can be resumed"],
    ["running", "start", "Cannot start a campaign in state 'running': only a draft or paused campaign can be started (it is already running)"],
    ["paused", "pause", "Cannot pause a campaign in state 'paused': only a running campaign can be paused (it is already paused)"],
    [
      "running",
      "update",
      "Cannot update a campaign in state 'running': settings can be changed only while a campaign is draft or paused; pause it first"
    ],
    [
      "completed",
      "update",
      "Cannot update a campaign in state 'completed': settings can be changed only while a campaign is draft or paused (a completed campaign is finished)"
    ],
    ["failed", "resume", "Cannot resume a campaign in state 'failed': only a paused campaign can be resumed (a failed campaign is finished)"],
    [
      "canceled",
      "cancel",
      "Cannot cancel a campaign in state 'canceled': only a draft, running or paused campaign can be canceled (a canceled campaign is finished)"
    ],
    ["running", "redial", "Cannot redial a campaign in state 'running': only a completed campaign can be redialed"],
    [
      "paused",
      "trip_breaker",
      "Cannot trip the circuit breaker of a campaign in state 'paused': the circuit breaker pauses only a running campaign"
    ]
  ] as const)("%s + %s", (state, action, expected) => {
    expect(message(state, action)).toBe(expected)
  })
})

describe("terminal states", () => {
  it("are completed, failed and canceled", () => {
    expect(STATES.filter(isTerminal)).toEqual(["completed", "failed", "canceled"])
  })
  it("no action moves a campaign out of a terminal state", () => {
    for (const state of STATES.filter(isTerminal)) {
      for (const action of ACTIONS) {
        const result = transition(state, action)
        if (Either.isRight(result)) expect(result.right, `${state} ${action}`).toBe(state)
      }
    }
  })
  it("only redial is accepted there, and only on completed", () => {
    expect(allowedActions("completed")).toEqual(["redial"])
    expect(allowedActions("failed")).toEqual([])
    expect(allowedActions("canceled")).toEqual([])
  })
})

describe("stateChange (what storage applies)", () => {
  it("agrees with transition for every state-changing action", () => {
    for (const action of ["start", "pause", "resume", "cancel", "complete", "fail", "trip_breaker"] as const) {
      const change = stateChange(action)
      expect(change.from, action).toEqual(ALLOWED_FROM[action])
      for (const state of change.from) expect(transition(state, action), `${state} ${action}`).toEqual(Either.right(change.to))
    }
  })
  it("completion waits for every contact to settle and stamps completed_at; start stamps started_at", () => {
    expect(stateChange("complete")).toMatchObject({ whenSettled: true, stamps: "completed_at" })
    expect(stateChange("start")).toMatchObject({ whenSettled: false, stamps: "started_at" })
    expect(stateChange("resume").stamps).toBe("breaker_reset_at")
    expect(stateChange("pause").stamps).toBeUndefined()
  })
})

describe("logEntry", () => {
  it("takes epoch millis and stores ISO UTC", () => {
    expect(logEntry(Date.UTC(2026, 10, 23, 14, 0, 0, 5), "warning", "circuit_breaker_tripped", "Paused", { failure_count: 3 })).toEqual({
      ts: "2026-11-23T14:00:00.005Z",
      level: "warning",
      event: "circuit_breaker_tripped",
      message: "Paused",
      details: { failure_count: 3 }
    })
  })
  it("keeps an ISO string as given and defaults details to {}", () => {
    expect(logEntry("2026-01-01T00:00:00.000Z", "info", "campaign_started", "Started")).toEqual({
      ts: "2026-01-01T00:00:00.000Z",
      level: "info",
      event: "campaign_started",
      message: "Started",
      details: {}
    })
  })
  it("has exactly the spec's fields", () => {
    expect(Object.keys(logEntry(0, "error", "e", "m"))).toEqual(["ts", "level", "event", "message", "details"])
  })
})
