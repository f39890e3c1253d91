import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import {
  DEFAULT_RETRY_DELAYS_MILLIS,
  isDelivered,
  nextAttemptAt,
  runEndedData,
  shouldDisable
} from "../../src/webhooks/WebhookEvents.js"

describe("webhook retry schedule", () => {
  it("retries for at least 24 hours after the first attempt, then gives up", () => {
    let at = 0
    let attempts = 1
    for (let next = nextAttemptAt(DEFAULT_RETRY_DELAYS_MILLIS, attempts, at); next !== undefined; attempts++) {
      expect(next).toBeGreaterThan(at)
      at = next
      next = nextAttemptAt(DEFAULT_RETRY_DELAYS_MILLIS, attempts + 1, at)
    }
    expect(at).toBeGreaterThanOrEqual(24 * 3_600_000)
    expect(attempts).toBe(DEFAULT_RETRY_DELAYS_MILLIS.length + 1)
    expect(nextAttemptAt(DEFAULT_RETRY_DELAYS_MILLIS, 1, 1000)).toBe(6000)
  })

  it("only 2xx is delivered", () => {
    FastCheck.assert(FastCheck.property(FastCheck.integer({ min: 100, max: 599 }), (status) => {
      expect(isDelivered(status)).toBe(status >= 200 && status < 300)
    }))
    expect(isDelivered(null)).toBe(false)
  })

  it("an endpoint is disabled once it has failed for the whole limit", () => {
    const since = "2026-11-01T00:00:00.000Z"
    const t = Date.parse(since)
    expect(shouldDisable(since, t + 5 * 86_400_000 - 1, 5 * 86_400_000)).toBe(false)
    expect(shouldDisable(since, t + 5 * 86_400_000, 5 * 86_400_000)).toBe(true)
  })
})

describe("run.ended data", () => {
  it("puts outcome, duration and disposition up front, with the links the run has", () => {
    const data = runEndedData({
      id: 5,
      workflow_id: 2,
      campaign_id: null,
      name: "r",
      mode: "twilio",
      call_type: "outbound",
      initial_context: null,
      gathered_context: { outcome: "completed", call_disposition: "completed", mapped_call_disposition: "interested", email: "a@b.c" },
      usage_info: { call_duration_seconds: 42 },
      cost_info: null,
      created_at: "2026-11-25T00:00:00.000Z"
    }, { run: "https://x/api/v1/workflow/2/runs/5", artifact: (a) => (a === "transcript" ? "https://x/t" : null) })
    expect(data).toMatchObject({
      run_id: 5,
      outcome: "completed",
      duration_seconds: 42,
      disposition: "interested",
      gathered_context: { email: "a@b.c" },
      initial_context: {},
      links: { run: "https://x/api/v1/workflow/2/runs/5", transcript: "https://x/t", recording: null }
    })
  })
})
