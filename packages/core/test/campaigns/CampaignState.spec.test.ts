import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { ACTIONS, type CampaignAction, isTerminal, STATES, transition } from "../../src/campaigns/CampaignState.js"
import { type CampaignState } from "@agentline/api/campaigns/Campaign"

// The expected table, written out independently of the implementation: next state, or null when refused.
const EXPECTED: Record<CampaignState, Record<CampaignAction, CampaignState | null>> = {
  draft: { start: "running", pause: null, resume: null, cancel: "canceled", update: "draft", complete: null, fail: null, trip_breaker: null, redial: null },
  running: { start: null, pause: "paused", resume: null, cancel: "canceled", update: null, complete: "completed", fail: "failed", trip_breaker: "paused", redial: null },
  paused: { start: "running", pause: null, resume: "running", cancel: "canceled", update: "paused", complete: null, fail: null, trip_breaker: null, redial: null },
  completed: { start: null, pause: null, resume: null, cancel: null, update: null, complete: null, fail: null, trip_breaker: null, redial: "completed" },
  failed: { start: null, pause: null, resume: null, cancel: null, update: null, complete: null, fail: null, trip_breaker: null, redial: null },
  canceled: { start: null, pause: null, resume: null, cancel: null, update: null, complete: null, fail: null, trip_breaker: null, redial: null }
}

describe("campaign transitions", () => {
  for (const state of STATES) {
    for (const action of ACTIONS) {
      it(`${state} --${action}--> ${EXPECTED[state][action] ?? "refused"}`, () => {
        const result = transition(state, action)
        const expected = EXPECTED[state][action]
        if (expected === null) {
          expect(Either.isLeft(result)).toBe(true)
          const message = Either.isLeft(result) ? result.left.message : ""
          expect(message).toContain(`'${state}'`)
        } else {
          expect(result).toEqual(Either.right(expected))
        }
      })
    }
  }
  it("terminal states", () => {
    expect(STATES.filter(isTerminal)).toEqual(["completed", "failed", "canceled"])
  })
})
