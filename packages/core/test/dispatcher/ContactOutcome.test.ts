import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import type { RetryConfig } from "@agentline/api/campaigns/CampaignSettings"
import { type AttemptResult, callTags, nextForContact } from "../../src/dispatcher/ContactOutcome.js"

const policy = (overrides: Partial<RetryConfig> = {}): RetryConfig => ({
  enabled: true,
  max_retries: 2,
  retry_delay_seconds: 120,
  retry_on_busy: true,
  retry_on_no_answer: true,
  retry_on_voicemail: true,
  ...overrides
})

const outcomes: ReadonlyArray<AttemptResult> = ["completed", "busy", "no_answer", "voicemail", "failed", "canceled", "interrupted"]
const retryable = { busy: "retry_on_busy", no_answer: "retry_on_no_answer", voicemail: "retry_on_voicemail" } as const

describe("nextForContact", () => {
  it("covers every outcome × flag × attempt count", () => {
    for (const outcome of outcomes) {
      for (const enabled of [true, false]) {
        for (const flag of [true, false]) {
          for (let attemptsMade = 1; attemptsMade <= 4; attemptsMade++) {
            const p = policy({
              enabled,
              max_retries: 2,
              ...(outcome in retryable ? { [retryable[outcome as keyof typeof retryable]]: flag } : {})
            })
            const next = nextForContact(outcome, attemptsMade, p, 1_000)
            const label = `${outcome} enabled=${enabled} flag=${flag} attempts=${attemptsMade}`
            if (outcome === "completed") {
              expect(next, label).toEqual({ _tag: "Final", state: "done", reached: true })
            } else if (outcome === "interrupted") {
              expect(next, label).toEqual({ _tag: "Final", state: "interrupted", reached: false })
            } else if (outcome in retryable && enabled && flag && attemptsMade - 1 < 2) {
              expect(next, label).toEqual({ _tag: "Retry", at: 1_000 + 120_000 })
            } else {
              expect(next, label).toEqual({ _tag: "Final", state: "exhausted", reached: false })
            }
          }
        }
      }
    }
  })

  it("voicemail is retried when its flag is on (the reference never did)", () => {
    expect(nextForContact("voicemail", 1, policy(), 0)._tag).toBe("Retry")
    expect(nextForContact("voicemail", 1, policy({ retry_on_voicemail: false }), 0)._tag).toBe("Final")
  })

  it("max_retries 0 never retries; the number of attempts is at most max_retries + 1", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.integer({ min: 0, max: 10 }), FastCheck.constantFrom<AttemptResult>("busy", "no_answer", "voicemail"), (max, outcome) => {
        let attempts = 1
        while (nextForContact(outcome, attempts, policy({ max_retries: max }), 0)._tag === "Retry") attempts++
        expect(attempts).toBe(max + 1)
      })
    )
  })
})

describe("callTags", () => {
  it("tags connections, non-connections, voicemail and retries", () => {
    expect(callTags("completed", 1)).toEqual(["connected"])
    expect(callTags("busy", 1)).toEqual(["not_connected", "telephony_busy"])
    expect(callTags("voicemail", 2)).toEqual(["not_connected", "telephony_voicemail", "voicemail_detected", "retry"])
  })
})
